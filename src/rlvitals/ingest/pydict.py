"""Tolerant reading of the Python dict reprs that trainers print (`str(dict)`, `pprint`), and the
shared pieces of the dict-console readers (TRL, OpenRLHF, slime, ROLL) and their writers.

A printed dict is not JSON and often not even valid Python: `nan`, `inf`, `None`,
`np.float64(0.12)`, `tensor(0.4375, device='cuda:0')`, quoted numbers (`'0.0123'`, SkyRL and recent
transformers), nested dicts.  `parse_dict` is a small hand-written scanner (never `eval`): keys are
quoted or bare words, values run to the next `,`/`}` outside brackets and quotes and are read by
`values.parse_value`; nested dicts are flattened with `/`.  Each value comes back as a float, `None`
(logged as None/null) or the raw text (a string or list, not a number) so the caller can count it.
Dicts nested deeper than `values.MAX_DEPTH` raise `DictTooDeep` (counted "nested too deep" by the
readers): the scanner keeps its own stack, so no input depth reaches Python's recursion limit.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from ..run import Run
from .aliases import lookup
from .components import component_name
from .values import MAX_DEPTH, as_float, parse_value

__all__ = [
    "DictSyntaxError",
    "DictTooDeep",
    "KeyMap",
    "find_dict",
    "format_dict",
    "numeric",
    "parse_dict",
    "rows_for_writer",
    "skip_reason",
]

Value = float | None | str


class DictSyntaxError(ValueError):
    """The text is not a complete dict (a truncated line, a stray brace)."""


class DictTooDeep(DictSyntaxError):
    """Dicts nested deeper than MAX_DEPTH (no logger writes that: bad bytes)."""


def skip_reason(e: DictSyntaxError) -> str:
    """What a reader counts a dict it could not parse as."""
    return "nested too deep" if isinstance(e, DictTooDeep) else "truncated or malformed dict"


_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _skip_string(text: str, i: int) -> int:
    """Index just past the quoted string that starts at `i`."""
    quote = text[i]
    j = i + 1
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        j += 1
    raise DictSyntaxError("unterminated string")


def _skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in " \t\n\r":
        i += 1
    return i


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] in "'\"" and s[-1] == s[0]:
        return s[1:-1]
    return s


def _scan_value(text: str, i: int) -> int:
    """Index of the `,` or `}` that ends the bare value starting at `i` (brackets and quotes nest)."""
    stack: list[str] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            i = _skip_string(text, i)
            continue
        if c in _CLOSE:
            stack.append(_CLOSE[c])
        elif stack and c == stack[-1]:
            stack.pop()
        elif not stack and c in ",}":
            return i
        elif c in ")]}":
            raise DictSyntaxError(f"unbalanced {c!r}")
        i += 1
    raise DictSyntaxError("dict not closed")


def _parse(text: str, i: int, prefix: str, out: dict[str, Value]) -> int:
    """Parse the dict whose `{` is at `i` into `out`; return the index after its `}`.
    Nested dicts push their prefix on a stack (no recursion)."""
    i = _skip_ws(text, i + 1)
    n = len(text)
    outer: list[str] = []  # the prefixes of the dicts this one is nested in
    while True:
        if i >= n:
            raise DictSyntaxError("dict not closed")
        if text[i] == "}":
            if not outer:
                return i + 1
            prefix = outer.pop()
            j = _skip_ws(text, i + 1)
            if j < n and text[j] == ",":
                j = _skip_ws(text, j + 1)
            elif j < n and text[j] != "}":
                raise DictSyntaxError(f"unexpected {text[j]!r} after a nested dict")
            i = j
            continue
        # key
        if text[i] in "'\"":
            j = _skip_string(text, i)
            key = text[i + 1 : j - 1]
        else:
            j = text.find(":", i)
            if j < 0:
                raise DictSyntaxError("key without value")
            key = text[i:j].strip()
        j = _skip_ws(text, j)
        if j >= n or text[j] != ":":
            raise DictSyntaxError(f"expected ':' after key {key!r}")
        j = _skip_ws(text, j + 1)
        full = f"{prefix}{key}"
        if j < n and text[j] == "{":
            if len(outer) >= MAX_DEPTH:
                raise DictTooDeep("nested too deep")
            outer.append(prefix)
            prefix = full + "/"
            i = _skip_ws(text, j + 1)
            continue
        else:
            end = _scan_value(text, j)
            raw = text[j:end].strip()
            low = raw.lower()
            if low in ("none", "null"):
                out[full] = None
            else:
                v = parse_value(raw)
                out[full] = v if v is not None else _unquote(raw)
            j = end
        j = _skip_ws(text, j)
        if j < n and text[j] == ",":
            j = _skip_ws(text, j + 1)
        elif j < n and text[j] != "}":
            raise DictSyntaxError(f"unexpected {text[j]!r} after value of {key!r}")
        i = j


# The fast path: a plain `str(dict)` of floats is JSON once quotes and Python's spellings of the
# special values are swapped, and the C JSON decoder is ~10x faster than the scanner below.
_JSON_SPECIAL = re.compile(r"(?<=: )(-?inf|nan|None|True|False)(?=[,}])")
_JSON_WORD = {"inf": "Infinity", "-inf": "-Infinity", "nan": "NaN", "None": "null", "True": "true", "False": "false"}
_DECODER = json.JSONDecoder(parse_int=float)
_FLOAT = float
_INF = math.inf


def _flatten_json(obj: dict[str, object], prefix: str, out: dict[str, Value]) -> None:
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            _flatten_json(v, key + "/", out)
        elif isinstance(v, bool):
            out[key] = 1.0 if v else 0.0
        elif isinstance(v, (int, float)):
            out[key] = as_float(v)
        elif v is None:
            out[key] = None
        elif isinstance(v, str):
            num = parse_value(v)
            out[key] = num if num is not None else v
        else:
            out[key] = f"<{type(v).__name__}>"  # a list: not a metric (never repr'd: it may be deep)


def _fast(text: str, i: int) -> dict[str, Value] | None:
    if '"' in text or "(" in text or "\\" in text:
        return None
    body = text[i:].replace("'", '"')
    if body.count("{") + body.count("[") > MAX_DEPTH:
        return None  # possibly deep: the scanner decides
    if "nan" in body or "inf" in body or "None" in body or "True" in body or "False" in body:
        body = _JSON_SPECIAL.sub(lambda m: _JSON_WORD[m.group(1)], body)
    try:
        obj, _ = _DECODER.raw_decode(body)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    if all(type(v) is _FLOAT for v in obj.values()):  # the common case: a flat dict of floats
        out = obj
    else:
        out = {}
        _flatten_json(obj, "", out)
    vals = out.values()
    if _INF in vals or -_INF in vals:  # `1e400` decodes to inf: let parse_value judge
        return None
    return out


def parse_dict(text: str, start: int | None = None) -> dict[str, Value]:
    """Parse the dict repr in `text` (beginning at `start`, else at the first `{`).

    Nested dicts are flattened with `/`.  Raises DictSyntaxError when the dict is incomplete.
    """
    i = text.find("{") if start is None else start
    if i < 0 or i >= len(text) or text[i] != "{":
        raise DictSyntaxError("no dict")
    fast = _fast(text, i)
    if fast is not None:
        return fast
    out: dict[str, Value] = {}
    _parse(text, i, "", out)
    return out


def marked_dict(
    line: str, marker: re.Pattern[str], skip: Callable[[str], None]
) -> tuple[re.Match[str], dict[str, Value]] | None:
    """The dict printed after `marker` (a regex ending at its opening brace), on a cleaned line.

    Returns (the marker's match, the parsed dict), or None when the line has no marker; a dict cut
    short or malformed is counted through `skip` ("truncated or malformed dict") and gives None.
    """
    from .base import clean_line

    line = clean_line(line)
    m = marker.search(line)
    if m is None:
        return None
    try:
        return m, parse_dict(line, m.end() - 1)
    except DictSyntaxError as e:
        skip(skip_reason(e))
        return None


def find_dict(text: str, marker: str) -> int:
    """Index of the `{` that follows `marker` in `text`, or -1."""
    k = text.find(marker)
    if k < 0:
        return -1
    return text.find("{", k + len(marker))


def numeric(values: Mapping[str, object], none_as_nan: bool = True) -> tuple[dict[str, float], int]:
    """Split a parsed dict into numeric values and a count of values that were not numbers.

    `None` becomes NaN when `none_as_nan` (TRL writes None when every value of a metric was NaN: a
    logged gap is evidence, not noise); other non-numbers (strings, lists) are counted, not kept.
    """
    row: dict[str, float] = {}
    dropped = 0
    for k, v in values.items():
        if isinstance(v, float):
            row[k] = v
        elif v is None and none_as_nan:
            row[k] = math.nan
        else:
            dropped += 1
    return row, dropped


# -- writers ---------------------------------------------------------------------------------------
# canonical -> (framework key, function from canonical values to the logged values, or None)
KeyMap = dict[str, tuple[str, Callable[[np.ndarray], np.ndarray] | None]]


def rows_for_writer(run: Run, keymap: KeyMap) -> Iterator[tuple[int, dict[str, float]]]:
    """(step, {framework key: value}) for every step of `run`, in step order.

    Canonical series are written under the framework's key (through its inverse transform); extras
    are written as logged, except one that would stand in for a canonical metric the run has and
    that the framework's key would not outrank on reading back (it would replace the metric), or
    one standing in for a metric this framework does not log.  A metric read from a reward
    function's own key (`rewards/correctness/mean` as acc) is written under that key where the
    framework has no key of its own for the metric: the user's reward functions are logged alike
    in every trainer.  An extra that measures exactly what
    the framework logs for a metric (rlprobe's `zero_variance_group_frac` where TRL logs
    `frac_reward_zero_std`: the same share of groups without reward spread) is written under the
    framework's key instead of the value derived back from the canonical series.
    """
    columns: list[tuple[str, np.ndarray, np.ndarray]] = []
    direct = _direct_measures(run, keymap)
    for name, s in run.series.items():
        if name not in keymap:
            if component_name(s.source) is not None:  # a reward function's mean the user logged
                columns.append((s.source, s.steps, np.asarray(s.values, dtype=float)))
            continue
        key, fn = keymap[name]
        if name in direct:
            steps, values = direct[name]
        else:
            steps, values = s.steps, (fn(s.values) if fn is not None else s.values)
        columns.append((key, steps, np.asarray(values, dtype=float)))
    written = {c[0] for c in columns}
    for key, s in run.extras.items():
        if key in written or not _extra_survives(key, run, keymap):
            continue
        columns.append((key, s.steps, s.values))
    if not columns:
        return
    all_steps = np.unique(np.concatenate([c[1] for c in columns]))
    index = [(key, {int(st): float(v) for st, v in zip(steps, vals)}) for key, steps, vals in columns]
    for step in all_steps.tolist():
        row = {key: d[step] for key, d in index if step in d}
        if row:
            yield step, row


def _extra_survives(key: str, run: Run, keymap: KeyMap) -> bool:
    """Whether extra `key` can be written beside the vitals without changing them on reading back."""
    alias = lookup(key)
    if alias is None or alias.canonical not in run.series:
        return True
    if alias.canonical not in keymap:
        return False  # a stand-in for a metric this framework does not log
    ours = lookup(keymap[alias.canonical][0])
    return ours is not None and ours.rank < alias.rank and ours.canonical == alias.canonical


def _direct_measures(run: Run, keymap: KeyMap) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """canonical -> (steps, values) of an extra the run logged that means what the framework's key
    for that metric means (both read through the same proxy transform), to write as logged."""
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, (key, fn) in keymap.items():
        ours = lookup(key)
        if fn is None or name not in run.series or ours is None or ours.transform is None:
            continue
        for ekey, s in run.extras.items():
            alias = lookup(ekey)
            if alias is not None and alias.canonical == name and alias.transform is ours.transform:
                out[name] = (s.steps, s.values)
                break
    return out


def format_dict(row: dict[str, float]) -> str:
    """`str(dict)` as Python prints it: `{'reward': 0.5, 'kl': nan}`."""
    return str({k: float(v) for k, v in row.items()})
