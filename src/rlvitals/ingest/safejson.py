"""JSON that cannot exhaust the stack: nesting deeper than `values.MAX_DEPTH` is cut out first.

Python's decoder recurses once per nested `{`/`[`; a line of a thousand `[` raises RecursionError
(and the readers' own flattening recurses too).  `loads` counts brackets first (two C-level
`str.count` calls: a line with at most MAX_DEPTH brackets cannot be too deep) and only for the
rare text with more computes the real depth of every byte with numpy (brackets inside strings
ignored).  Every value nested deeper than the cap is replaced by the string `DEEP` before
decoding, and the number of values so replaced is returned, for the caller to count.  An integer
too long for Python to convert (> 4300 digits) decodes as `values.OUT_OF_RANGE`.  `closers` says
which brackets would close a text cut short (the readers then read a document up to its cut).
"""

from __future__ import annotations

import json
import re

import numpy as np

from .values import MAX_DEPTH, OUT_OF_RANGE

__all__ = ["DEEP", "TooDeep", "closers", "loads"]

DEEP = "<nested too deep>"


class TooDeep(ValueError):
    """The decoder recursed too deep although the depth was capped (should not happen)."""


def loads(text: str, limit: int = MAX_DEPTH) -> tuple[object, int]:
    """(the decoded JSON value, how many values nested deeper than `limit` became `DEEP`).
    Raises ValueError (json.JSONDecodeError or TooDeep) when the text is not JSON."""
    deep = 0
    if text.count("{") + text.count("[") > limit:
        text, deep = _cut_deep(text, limit)
    try:
        return json.loads(text), deep
    except RecursionError:
        raise TooDeep("nested too deep") from None
    except ValueError as e:
        if "integer string conversion" not in str(e):
            raise
    # an integer of thousands of digits (Python refuses to convert > 4300): out of range, not bad JSON
    return json.loads(text, parse_int=_int), deep


def _int(s: str) -> int | float:
    return OUT_OF_RANGE if len(s) > 400 else int(s)


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}\"]+")


def closers(text: str) -> str | None:
    """The brackets that would close a JSON text cut short, innermost first ("" when none is open);
    None when it ends inside a string or closes a bracket it never opened.  Strings and everything
    but brackets are dropped by two C-level passes first: the stack is walked over brackets only."""
    marks = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if '"' in marks:
        return None  # a string left open
    stack: list[str] = []
    for c in marks:
        if c in "[{":
            stack.append("]" if c == "[" else "}")
        elif not stack or stack.pop() != c:
            return None
    return "".join(reversed(stack))


def _cut_deep(text: str, limit: int) -> tuple[str, int]:
    data = text.encode("utf-8", "surrogatepass")
    b = np.frombuffer(data, dtype=np.uint8)
    idx = np.arange(b.size)
    # a quote ends/starts a string unless an odd number of backslashes comes right before it
    last_plain = np.maximum.accumulate(np.where(b == 92, -1, idx))
    run = np.zeros(b.size, dtype=np.int64)
    run[1:] = idx[:-1] - last_plain[:-1]
    quote = (b == 34) & (run % 2 == 0)
    outside = np.cumsum(quote) % 2 == 0
    opens = ((b == 123) | (b == 91)) & outside
    closes = ((b == 125) | (b == 93)) & outside
    depth = np.cumsum(opens.astype(np.int64) - closes)  # depth after each byte
    if depth.size == 0 or int(depth.max()) <= limit:
        return text, 0
    starts = np.flatnonzero(opens & (depth == limit + 1))
    ends = np.flatnonzero(closes & (depth == limit))
    pieces, at = [], 0
    marker = json.dumps(DEEP).encode()
    for s in starts.tolist():
        if s < at:
            continue
        k = int(np.searchsorted(ends, s))
        e = int(ends[k]) + 1 if k < ends.size else b.size
        pieces += [data[at:s], marker]
        at = e
    pieces.append(data[at:])
    return b"".join(pieces).decode("utf-8", "surrogatepass"), int(starts.size)
