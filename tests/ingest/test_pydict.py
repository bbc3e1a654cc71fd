"""The dict-repr scanner: every spelling real trainers print, nesting, and clear failures."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlvitals.ingest.pydict import DictSyntaxError, find_dict, format_dict, numeric, parse_dict


def test_plain_python_dict():
    d = parse_dict("{'loss': 0.0012, 'grad_norm': 0.31, 'learning_rate': 1e-06, 'epoch': 0.12}")
    assert d == {"loss": 0.0012, "grad_norm": 0.31, "learning_rate": 1e-06, "epoch": 0.12}


def test_numpy_torch_and_special_values():
    d = parse_dict(
        "{'a': np.float64(-0.5), 'b': np.float32(nan), 'c': tensor(0.4375, device='cuda:0'), "
        "'d': nan, 'e': inf, 'f': -inf, 'g': None, 'h': '0.0123', 'i': True, 'j': 'adam'}"
    )
    assert d["a"] == -0.5 and math.isnan(d["b"]) and d["c"] == 0.4375
    assert math.isnan(d["d"]) and d["e"] == math.inf and d["f"] == -math.inf
    assert d["g"] is None and d["h"] == 0.0123 and d["i"] == 1.0 and d["j"] == "adam"


def test_nested_dicts_flatten_with_slash_and_json_spellings():
    d = parse_dict('{"step": 3, "metrics": {"critic/score/mean": 0.4, "x": {"y": NaN}, "z": null}}')
    assert d["step"] == 3.0 and d["metrics/critic/score/mean"] == 0.4
    assert math.isnan(d["metrics/x/y"]) and d["metrics/z"] is None


def test_lists_and_strings_with_delimiters_are_values_not_structure():
    d = parse_dict("{'tags': [1, 2, {'a': 3}], 'msg': 'a, b}: c', 'r': 0.5}")
    assert d["r"] == 0.5 and d["msg"] == "a, b}: c" and isinstance(d["tags"], str)


def test_numeric_keeps_none_as_nan_and_counts_the_rest():
    row, dropped = numeric({"a": 1.0, "b": None, "c": "text"})
    assert row["a"] == 1.0 and math.isnan(row["b"]) and "c" not in row and dropped == 1
    row, dropped = numeric({"b": None}, none_as_nan=False)
    assert row == {} and dropped == 1


@pytest.mark.parametrize("bad", ["{'loss': 0.1, 'kl': 0.0", "{'loss': 0.1, 'kl'", "{'a': (1, 2}", "no dict", "{'a' 1}"])
def test_incomplete_dicts_raise_a_syntax_error(bad):
    with pytest.raises(DictSyntaxError):
        parse_dict(bad)


def test_find_dict_after_marker():
    line = "INFO 08-13 x.py:1] ✨ Global step 7: {'reward': 0.4}"
    assert parse_dict(line, find_dict(line, "Global step")) == {"reward": 0.4}
    assert find_dict("nothing here", "Global step") == -1


def test_empty_dict():
    assert parse_dict("{}") == {}


_floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
_keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz/_@0123456789-.", min_size=1, max_size=20)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_keys, _floats, max_size=12))
def test_str_of_any_float_dict_round_trips(d):
    back = parse_dict(format_dict(d))
    assert set(back) == set(d)
    for k, v in d.items():
        assert (math.isnan(v) and math.isnan(back[k])) or back[k] == v


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        _keys,
        st.one_of(
            _floats,
            st.none(),
            st.booleans(),
            st.text(alphabet="abc ,:}{", max_size=6),
            st.dictionaries(_keys, _floats, max_size=3),
        ),
        max_size=8,
    )
)
def test_fast_json_path_and_scanner_agree(d):
    from rlvitals.ingest.pydict import _parse

    text = str(d)
    slow: dict = {}
    _parse(text, 0, "", slow)
    fast = parse_dict(text)
    assert set(fast) == set(slow)
    for k in fast:
        a, b = fast[k], slow[k]
        assert (isinstance(a, float) and math.isnan(a) and math.isnan(b)) or a == b, (k, a, b)
