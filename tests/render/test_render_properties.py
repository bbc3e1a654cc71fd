"""Properties of the terminal primitives over arbitrary input (hypothesis): no input breaks the layout."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rlvitals.render.charts import BLOCKS, NAN_MARK, chart, display_width, sparkline
from rlvitals.render.jsonout import clean
from rlvitals.render.terminal import wrap

floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64), st.sampled_from([1e308, -1e308, 5e-324, 0.0, -0.0])
)
values = st.lists(floats, min_size=0, max_size=300)
FAST = settings(max_examples=60, deadline=None)


@FAST
@given(values, st.integers(1, 60))
def test_sparkline_length_alphabet_and_nan_marks(vals, width):
    s = sparkline(vals, width)
    assert len(s) == min(width, len(vals))
    assert set(s) <= set(BLOCKS) | {NAN_MARK}
    if vals and all(math.isfinite(v) for v in vals):
        assert NAN_MARK not in s
    if any(not math.isfinite(v) for v in vals):
        assert NAN_MARK in s  # a NaN/inf is never smoothed away


@FAST
@given(
    values.filter(lambda v: len(v) > 0), st.integers(4, 50), st.integers(2, 8), st.one_of(st.none(), st.floats(-10, 10))
)
def test_chart_rows_align(vals, width, height, ref):
    lines = chart(vals, width=width, height=height, ref=ref)
    fin = [v for v in vals if math.isfinite(v)]
    if not fin:
        assert lines == ["(no finite values)"]
        return
    assert len(lines) == height + 1  # rows + x axis (no steps for a bare list)
    assert len({display_width(x) for x in lines}) == 1


words = st.lists(
    st.one_of(
        st.sampled_from(
            ["entropy", "熵崩塌", "ratio_mean=1.0000", "（常用", "1.0）", "，", "症状告诉你不对", "a", "—"]
        ),
        st.text(min_size=1, max_size=12),
    ),
    max_size=40,
)


@FAST
@given(words, st.integers(10, 100))
def test_wrap_never_exceeds_width_and_loses_nothing(parts, width):
    text = " ".join(parts)
    lines = wrap(text, width, "  ", "")
    assert all(display_width(x) <= width for x in lines)
    assert "".join("".join(x.split()) for x in lines) == "".join(text.split())


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**9), 10**9), floats, st.text(max_size=5)),
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=4), kids, max_size=4)),
    max_leaves=20,
)


@FAST
@given(json_values)
def test_clean_always_gives_strict_json(obj):
    import json

    json.dumps(clean(obj), allow_nan=False)
    json.dumps(clean(np.asarray([1.0, np.nan, np.inf])), allow_nan=False)
