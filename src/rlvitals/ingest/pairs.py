"""The `name: number` pairs of one line of a hand-rolled loop's log (the generic reader's, and its sniff's).

- A number after `:` or `=`; its name is the up-to-four words before it, back to the previous pair
  or a delimiter (`, ; | ( ) [ ] { } < > : =`, tab), or the words inside the quotes of a printed
  dict's key; a source location (`config.py:2368`) is no name.  `12%` is read as 0.12.
- Inside a dict printed under a name (`stats: {'reward': 0.5}`) a name is that name's, as the dict
  readers flatten it (`stats/reward`); a `total_<x>` beside its count in the same dict also gives
  the mean it sums.
- A name coming again on the line starts a new row (`line_rows`).

Every regex is linear (possessive quantifiers; names are found by scanning back, not by matching).
"""

from __future__ import annotations

import re

from .values import OUT_OF_RANGE, checked_float

__all__ = ["STEP_NAMES", "line_rows", "pairs"]

_VALUE = re.compile(
    r"[:=][ \t]*+(?P<v>[-+]?(?:\d++(?:\.\d*+)?|\.\d++)(?:[eE][-+]?\d++)?|[-+]?(?:nan|inf(?:inity)?))"
    r"(?P<pct>%?)(?![\w.:/])",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z_][\w./\-]*")
_TO_COMMA = str.maketrans(dict.fromkeys(",;|()[]{}<>:=\t", ","))  # every delimiter of a name, as a comma
STEP_NAMES = frozenset({"step", "global step", "global_step", "globalstep", "iter", "iteration", "epoch"})
MAX_WORDS = 4
_SOURCE_FILE = re.compile(r"\.(?:py|pyx|c|cc|cpp|cu|h|hpp|rs|go|java|js|ts|sh)$")


def _name(segment: str) -> str | None:
    """The name before a separator: up to four words back to a delimiter, a number or the end of
    a sentence ("GPU: Tesla T4. Max memory" → "Max memory"); a source location
    ("config.py:2368") is no name."""
    cut = segment.translate(_TO_COMMA).rfind(",")  # the last delimiter, in two passes in C
    name = segment[cut + 1 :]
    if "'" in name or '"' in name:
        name = name.strip()
        if len(name) > 2 and name[-1] in "'\"" and (q := name.rfind(name[-1], 0, -1)) >= 0:
            name = name[q + 1 : -1]  # a quoted key of a printed dict (`{'reward': 0.5}`): its words
    words = name.split()
    keep: list[str] = []
    for w in reversed(words):
        if len(keep) == MAX_WORDS or not _WORD.fullmatch(w) or (keep and w.endswith(".")):
            break
        keep.append(w)
    if not keep or _SOURCE_FILE.search(keep[0]):
        return None
    return " ".join(reversed(keep))


_BRACE = re.compile(r"[{}]")
_KEY_BEFORE = 200  # characters looked back for the name of a nested dict's key


def pairs(line: str) -> tuple[dict[str, float], bool]:
    """The `name: number` pairs of a line (step words removed) and whether a `%` was read (`line_rows`
    merged: a name written twice keeps its last value)."""
    rows, pct = line_rows(line)
    if len(rows) == 1:
        return rows[0], pct
    return {k: v for row in rows for k, v in row.items()}, pct


def line_rows(line: str) -> tuple[list[dict[str, float]], bool]:
    """The line's `name: number` pairs as rows -- a new row where a name comes again (a JSON dump of
    every step on one line) -- and whether a `%` was read.  Inside a dict printed under a name
    (`reward_data: {'total': 12}`) a name is that name's, as the dict readers flatten it
    (`reward_data/total`)."""
    rows: list[dict[str, float]] = []
    out: dict[str, float] = {}
    pct = False
    # most lines hold no sum (a few substring looks in C say so before any regex)
    sums = ("otal_" in line or "um_" in line or "OTAL_" in line or "UM_" in line) and _SUM_HINT.search(line)
    means = _means_of_sums if sums else _same
    prev = 0
    # the names of the dicts printed in the line open at each point (None: a dict without a name);
    # the common line prints none and skips this
    braces = _BRACE.finditer(line) if "{" in line else None
    brace = next(braces, None) if braces is not None else None
    stack: list[str | None] = []
    for m in _VALUE.finditer(line):
        if brace is not None:
            while brace is not None and brace.start() < m.start():
                if brace.group() == "}":
                    if stack:
                        stack.pop()
                else:
                    head = line[max(0, brace.start() - _KEY_BEFORE) : brace.start()].rstrip()
                    stack.append(_name(head[:-1]) if head.endswith((":", "=")) else None)
                brace = next(braces, None) if braces is not None else None
        name = _name(line[prev : m.start()])
        prev = m.end()
        if name is None or name.lower() in STEP_NAMES:
            continue
        if stack and any(stack):
            name = "/".join([*(k for k in stack if k), name])
        value = checked_float(m.group("v"))  # `1e400`: OUT_OF_RANGE, dropped by the builder
        if m.group("pct") and value is not OUT_OF_RANGE:
            value, pct = value / 100.0, True
        if name in out:
            rows.append(means(out))
            out = {}
        out[name] = value
    rows.append(means(out))
    return rows, pct


# a dict's count of what its `total_<x>` / `sum_<x>` values add up (`{'total_num': 64, 'total_reward': 16}`)
_COUNTS = frozenset({"num", "count", "n", "total_num", "total_count", "num_samples", "n_samples", "total_samples"})
_SUM = re.compile(r"^(?:total|sum)_(?P<x>\w+)$", re.IGNORECASE)
_SUM_HINT = re.compile(r"(?:total|sum)_", re.IGNORECASE)


def _same(row: dict[str, float]) -> dict[str, float]:
    return row


def _means_of_sums(row: dict[str, float]) -> dict[str, float]:
    """Beside each sum a dict (or a line) gives with its count, the mean it sums: `total_reward` 16 of
    `total_num` 64 is a reward of 0.25 (`<prefix>/reward`), as a reader divides them."""
    counts = {k.rpartition("/")[0]: v for k, v in row.items() if k.rpartition("/")[2].lower() in _COUNTS}
    if not counts:
        return row
    out = dict(row)
    for k, v in row.items():
        prefix, _, leaf = k.rpartition("/")
        n = counts.get(prefix)
        m = _SUM.match(leaf)
        if m and n and n > 0 and leaf.lower() not in _COUNTS and isinstance(v, float):
            out[f"{prefix}/{m.group('x')}" if prefix else m.group("x")] = v / n
    return out
