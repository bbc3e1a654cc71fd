"""The TRL console in blocks: the dict rows and tqdm bars of a million-step log read with numpy.

The Trainer prints, per logged step, a tqdm bar repaint (`\\r  5%|▌    | 5/100 [00:19<11:24, 1.0it/s]`)
and a dict (`{'loss': 0.0123, 'grad_norm': 1.2e-05, 'epoch': 0.05}`).  `TrlParser` reads them line by
line; here whole blocks of such lines are read at once, with the parser's own state kept exactly:

- **dict lines.**  A line's *skeleton* is the line without the characters `0-9 . + -`.  Lines with
  one skeleton have the same keys in the same order and the same bytes around every number; a
  skeleton is learned from one line (`_learn`), kept only when `parse_dict` reads that line to
  plain finite floats and the layout below reads exactly those floats.  The line's bytes then
  become fields: every byte but the number characters, blanks, `:` `,` `}` is dropped and `,` `}`
  turn into `:`.  Fields alternate key (what number characters a key leaves: its `e`s) and value
  (the number with the blanks around it), and numpy's C reader reads them all in one call per
  kind of keys: a value field holding anything but one number, a key field not as learned, a
  field too many or too few, fail the call, and those lines go to the parser.  A value `float()`
  reads as inf (`1e400`) sends its line to the parser too.
- **bar lines.**  A line that is only a bar (`\\r` optional, then the percent, the bar, `N/TOTAL
  [time]`) is checked by one anchored regex over the block's candidates; its counter, total and
  time text update the parser's `draws`, `bars`, `drawn` and `marks` as `TrlParser.parse` would.
- **every other line** (a bar with several `\\r` repaints, ANSI colour, a `nan`, a header, a
  warning, a cut-off last line) is fed to the parser, split at `\\r`, `\\n` and `\\r\\n` as
  `read`'s text stream splits it, so line numbers, skip counts and notes are the parser's.

Rows read here are kept as columns (`Chunk`): keys, values, line numbers, epochs and, per tqdm
total, the counter and draw number each row saw -- what `TrlParser` keeps a `_Row` for.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..run import Run
from .blocks import layout_ids, trim_heap, whole_lines
from .pydict import DictSyntaxError, parse_dict
from .trl_rows import SUMMARY_KEYS, Chunk, is_eval_keys
from .values import STEP_LIMIT

__all__ = ["read_trl_blocks"]

MIN_RUN = 8  # fewer fast lines than this between two careful ones: the parser reads them too
MAX_SPLITS = 64  # numpy calls a kind of keys may take in a block to find the lines it cannot read

_NUMBER = b"0123456789.+-"
_FIELD_DELETE = bytes(c for c in range(256) if c not in b"0123456789.+-eE :,}\n")
_FIELD_TABLE = bytes.maketrans(b",}", b"::")
_FORBIDDEN = (b"[", b'"', b"\\", b"(", b"=", b"\x7f")
# a line that is one tqdm bar and nothing else: no `/` before the counter, no `[`/`]` in the time
# text, nothing after it (so `_TQDM` finds exactly this counter, and no header or dict is there)
_BAR = rb" *[0-9]{1,3}%\|[ #\x80-\xff]*\| ([0-9]+)/([0-9]+) \[([^\x00-\x1f\x7f-\xff\[\]{=]{0,80})(?<!cluster)\]"
_BAR_LINE = re.compile(_BAR)
# many lines in one call, the time text not taken (only a counter drawn twice needs it)
_BAR_LINES = re.compile(rb"^" + _BAR.replace(rb"\[([^", rb"\[(?:[^") + rb"$", re.MULTILINE)
_ULINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")  # text-mode lines (newline="")


class _Parser(Protocol):
    """What the block reader uses of `trl.TrlParser` (state it updates as `parse` would)."""

    lineno: int
    draws: int
    bars: dict[int, tuple[int, int]]
    drawn: dict[int, tuple[int, str]]
    marks: dict[int, list[int]]
    _bar_items: Any

    def feed(self, line: str) -> bool: ...
    def feed_last(self, line: str) -> bool: ...
    def add_chunk(self, chunk: Chunk) -> None: ...
    def finish(self) -> Run: ...
    def snapshot(self, release: bool = False) -> Run: ...


class _DictLayout:
    def __init__(self, keys: tuple[str, ...], key_fields: list[bytes]) -> None:
        self.keys, self.key_fields = keys, key_fields
        dt = []
        for i, kf in enumerate(key_fields):
            dt += [(f"k{i}", f"S{len(kf) + 1}"), (f"v{i}", np.float64)]
        self.dtype = np.dtype([*dt, ("end", "S1")])


_BAR_KIND = object()  # the layout of a bar line
_BLANK_KIND = object()  # blanks and number characters only (tqdm.write clears the bar with blanks)


def _counter(digits: bytes) -> int | None:
    """A tqdm counter as `trl._count` reads it (ASCII digits)."""
    if len(digits) > 16 and len(digits.lstrip(b"0")) > 16:
        return None
    n = int(digits)
    return n if n < STEP_LIMIT else None


def _learn(raw: bytes) -> _DictLayout | object | None:
    if raw.startswith(b"{'"):
        return _learn_dict(raw)
    if not raw.translate(None, _NUMBER).strip(b" "):  # no `/`, `[`, `{` nor `steps`: parse does nothing
        return _BLANK_KIND
    return _BAR_KIND if _BAR_LINE.fullmatch(raw) else None


def _learn_dict(raw: bytes) -> _DictLayout | None:
    """The layout of a dict line TrlParser reads to finite floats (and an epoch), else None."""
    if not raw.endswith(b"}") or raw.count(b"{") != 1 or raw.count(b"}") != 1 or any(f in raw for f in _FORBIDDEN):
        return None
    if min(raw) < 0x20 or max(raw) > 0x7E:
        return None
    try:
        parsed = parse_dict(raw.decode("ascii"), 0)
    except DictSyntaxError:
        return None
    keys = tuple(parsed)
    if any(k in parsed for k in SUMMARY_KEYS) or "step" in parsed or not [k for k in keys if k != "epoch"]:
        return None
    for k, v in parsed.items():
        if type(v) is not float or not math.isfinite(v) or any(c in k for c in "0123456789.+-:,}{'"):
            return None
    fields = raw.translate(_FIELD_TABLE, _FIELD_DELETE).split(b":")
    if len(fields) != 2 * len(keys) + 1 or fields[-1]:
        return None
    for i, k in enumerate(keys):
        try:
            got = float(fields[2 * i + 1])
        except ValueError:
            return None
        if np.float64(got).tobytes() != np.float64(parsed[k]).tobytes():
            return None
    return _DictLayout(keys, fields[0:-1:2])


class _Reader:
    def __init__(self, parser: _Parser) -> None:
        self.p = parser
        self.layouts: dict[bytes, Any] = {}
        self.lineno = 0  # text-mode lines so far
        self.blocks = 0
        self.fast_rows = 0

    def careful(self, raw: bytes, last: bool = False) -> None:
        """Feed one line (no newline) to the parser, split as the text stream splits it."""
        text = raw.decode("utf-8", errors="replace") + ("" if last else "\n")
        pieces = _ULINES.findall(text)
        for k, piece in enumerate(pieces):
            self.p.lineno = self.lineno
            self.lineno += 1
            if last and k == len(pieces) - 1 and not piece.endswith(("\n", "\r")):
                self.p.feed_last(piece)
            else:
                self.p.feed(piece)

    def _load(self, fields: list[bytes], lay: _DictLayout) -> list[np.ndarray] | None:
        """The values of lines of one kind of keys (`fields`: the lines' field bytes), or None."""
        try:
            got = np.loadtxt(fields, dtype=lay.dtype, delimiter=":", comments=None, ndmin=1, encoding="latin1")
        except (ValueError, OverflowError):
            return None
        if got.shape != (len(fields),) or (got["end"] != b"").any():
            return None
        for i, kf in enumerate(lay.key_fields):
            if (got[f"k{i}"] != kf).any():
                return None
        return [np.ascontiguousarray(got[f"v{i}"]) for i in range(len(lay.keys))]

    def _split_load(
        self, lines: list[bytes], lay: _DictLayout, budget: list[int]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """(which lines were read, their values, NaN for the others): a call that fails is split
        in halves until the lines that fail it are found (at most MAX_SPLITS calls a kind)."""
        got = self._load(lines, lay) if budget[0] > 0 else None
        budget[0] -= 1
        if got is not None:
            return np.ones(len(lines), dtype=bool), got
        if len(lines) <= 1 or budget[0] <= 0:
            return np.zeros(len(lines), dtype=bool), [np.full(len(lines), np.nan) for _ in lay.keys]
        h = len(lines) // 2
        (ok1, c1), (ok2, c2) = self._split_load(lines[:h], lay, budget), self._split_load(lines[h:], lay, budget)
        return np.concatenate((ok1, ok2)), [np.concatenate(pair) for pair in zip(c1, c2)]

    def block(self, data: bytes) -> None:
        """A block of whole lines (ends with a newline), read as text-mode lines: a `\r` ends a
        line as `\n` and `\r\n` do (a tqdm repaint, a dict printed after one, are lines of
        their own, as `read`'s text stream and `LineParser.feed` make them)."""
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = data.split(b"\n")[:-1]
        n = len(lines)
        ulast = self.lineno + np.arange(1, n + 1)  # each line's number
        skel = data.translate(None, _NUMBER).split(b"\n")[:-1]
        self.layouts, ids, table = layout_ids(self.layouts, skel, lambda k, at: _learn(lines[at]))
        kind = np.full(n, -1, dtype=np.int64)  # -1 careful, -2 bar, -3 nothing to read, else a kind of keys
        by_keys: dict[tuple[object, ...], int] = {}
        kinds: list[_DictLayout] = []
        of_layout = np.full(len(table), -1, dtype=np.int64)
        for j, lay in enumerate(table[1:], 1):
            if lay is _BAR_KIND:
                of_layout[j] = -2
            elif lay is _BLANK_KIND:
                of_layout[j] = -3
            else:
                of_layout[j] = by_keys.setdefault((lay.keys, *lay.key_fields), len(by_keys))
                if of_layout[j] == len(kinds):
                    kinds.append(lay)
        kind = of_layout[ids]
        cols: list[list[np.ndarray]] = []
        rank = np.zeros(n, dtype=np.int64)
        fields = data.translate(_FIELD_TABLE, _FIELD_DELETE).split(b"\n") if kinds else []
        for k, lay in enumerate(kinds):
            sel = np.flatnonzero(kind == k)
            budget = [MAX_SPLITS]
            read, got = self._split_load([fields[i] for i in sel.tolist()], lay, budget)
            for c in got:
                read &= np.isfinite(c)  # an overflow (`1e400`): the parser says what it is
            if not read.all():
                kind[sel[~read]] = -1
                got = [c[read] for c in got]
                sel = sel[read]
            rank[sel] = np.arange(sel.size)
            cols.append(got)
        bars = self._bars(lines, kind)
        careful = np.flatnonzero(kind == -1).tolist()
        at = 0
        for stop in [*careful, n]:
            if stop - at >= MIN_RUN:
                self._segment(at, stop, kind, rank, cols, kinds, bars, ulast, lines)
            else:
                for i in range(at, stop):
                    self.lineno = int(ulast[i - 1]) if i else self.lineno
                    self.careful(lines[i])
            if stop < n:
                self.lineno = int(ulast[stop - 1]) if stop else self.lineno
                self.careful(lines[stop])
            at = stop + 1
        self.lineno = int(ulast[-1]) if n else self.lineno
        self.p.lineno = self.lineno
        self.blocks += 1
        trim_heap(self.blocks)

    def _bars(self, lines: list[bytes], kind: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(line, counter, total) of every valid bar on a bar line; lines that are not as their
        skeleton promised become careful (kind -1)."""
        sel = np.flatnonzero(kind == -2)
        found = _BAR_LINES.findall(b"\n".join([lines[i] for i in sel.tolist()]))
        if len(found) != sel.size:
            found = []
            for i in sel.tolist():
                m = _BAR_LINE.fullmatch(lines[i])
                if m is None:
                    kind[i] = -1
                else:
                    found.append(m.groups()[:2])
            sel = np.flatnonzero(kind == -2)
        digits = np.array(found, dtype=bytes).reshape(-1, 2)
        if digits.dtype.itemsize <= 16:  # (16 digits or fewer: each counter fits an int64)
            cnt, total = digits.astype(np.int64).T
            ok = (total > 0) & (cnt <= total) & (total < STEP_LIMIT)
        else:
            got = [(_counter(a), _counter(b)) for a, b in found]
            ok = np.array([a is not None and b is not None and b > 0 and a <= b for a, b in got], dtype=bool)
            cnt = np.array([a if a is not None else -1 for a, _ in got], dtype=np.int64)
            total = np.array([b if b is not None else -1 for _, b in got], dtype=np.int64)
        return sel[ok], cnt[ok], total[ok]

    def _segment(
        self,
        a: int,
        b: int,
        kind: np.ndarray,
        rank: np.ndarray,
        cols: list[list[np.ndarray]],
        kinds: list[_DictLayout],
        bars: tuple[np.ndarray, np.ndarray, np.ndarray],
        ulast: np.ndarray,
        lines: list[bytes],
    ) -> None:
        """Lines a..b-1, every one a dict row or a bar line: the parser's state and rows as `parse`
        would leave them, line after line."""
        p = self.p
        ev_line, ev_n, ev_total = bars
        lo, hi = np.searchsorted(ev_line, [a, b]).tolist()
        rows = a + np.flatnonzero(kind[a:b] >= 0)
        events = ev_line[lo:hi]
        row_bars: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if events.size:
            draws = p.draws + 1 + np.arange(events.size, dtype=np.int64)
            tot, cnt = ev_total[lo:hi], ev_n[lo:hi]
            for total in dict.fromkeys(tot.tolist()):
                mine = np.flatnonzero(tot == total)
                self._marks(total, cnt[mine], events[mine], lines)
                j = np.searchsorted(events[mine], rows) - 1
                before = p.bars.get(total, (-1, -1))
                row_bars[total] = (
                    np.where(j >= 0, cnt[mine][j], before[0]),
                    np.where(j >= 0, draws[mine][j], before[1]),
                )
                p.bars[total] = (int(cnt[mine][-1]), int(draws[mine][-1]))
            p.draws += int(events.size)
            p._bar_items = None
        for total, (c, d) in list(p.bars.items()):
            if total not in row_bars:
                row_bars[total] = (np.full(rows.size, c, dtype=np.int64), np.full(rows.size, d, dtype=np.int64))
        if not rows.size:
            return
        ks = kind[rows]
        cuts = [0, *(np.flatnonzero(ks[1:] != ks[:-1]) + 1).tolist(), int(rows.size)]
        for s, e in zip(cuts[:-1], cuts[1:]):
            k = int(ks[s])
            lay, got = kinds[k], cols[k]
            r0, r1 = int(rank[rows[s]]), int(rank[rows[e - 1]]) + 1
            keys = tuple(x for x in lay.keys if x != "epoch")
            values = [got[i][r0:r1] for i, x in enumerate(lay.keys) if x != "epoch"]
            if "epoch" in lay.keys:
                ep = got[lay.keys.index("epoch")][r0:r1]
                epochs = np.where(np.isfinite(ep) & (ep >= 0) & (ep < 1e9), ep, np.nan)
            else:
                epochs = np.full(e - s, np.nan)
            chunk_bars = {t: (c[s:e], d[s:e]) for t, (c, d) in row_bars.items()}
            p.add_chunk(Chunk(keys, values, ulast[rows[s:e]], epochs, chunk_bars, is_eval_keys(keys)))
            self.fast_rows += e - s

    def _marks(self, total: int, cnt: np.ndarray, at: np.ndarray, lines: list[bytes]) -> None:
        """The bar's redraws: a counter drawn twice in a row at the same time text marks a logged
        row (`at`: the lines of the bars of this total; their time text is read where it matters)."""
        p = self.p

        def text(i: int) -> str:
            m = _BAR_LINE.fullmatch(lines[int(at[i])])
            assert m is not None  # (checked in _bars)
            return m.group(3).decode("ascii")

        prev = p.drawn.get(total)
        same = np.zeros(cnt.size, dtype=bool)
        same[1:] = cnt[1:] == cnt[:-1]
        if prev is not None:
            same[0] = prev[0] == cnt[0]
        for i in np.flatnonzero(same & (cnt >= 1)).tolist():
            if (prev[1] if i == 0 and prev is not None else text(i - 1)) != text(i):
                continue
            marks = p.marks.setdefault(total, [])
            if not marks or marks[-1] != cnt[i]:
                marks.append(int(cnt[i]))
        p.drawn[total] = (int(cnt[-1]), text(cnt.size - 1))


def read_trl_blocks(path: Path, parser: _Parser, release: bool = False) -> tuple[Run, int]:
    """Read a TRL console log with `parser` for its careful lines; returns the run and how many
    rows the block path read.  `release`: the parser's rows are let go as the run is built."""
    reader = _Reader(parser)
    with open(path, "rb") as f:
        rest = whole_lines(f, reader.block)
    if rest:
        reader.careful(rest, last=True)
    return parser.snapshot(release) if release else parser.finish(), reader.fast_rows
