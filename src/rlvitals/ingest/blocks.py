"""Reading line formats in big blocks with numpy: the fast path of the verl console, JSONL and CSV readers.

A format's lines that share a *skeleton* (the line with its number characters removed) share a layout:
the same keys in the same order, each value in the same blank-separated token once the separators
are turned into blanks.  A layout is learned from one line (`learn`) and checked there: the numbers
the layout reads must be exactly the row the format's own line parser makes of that line, or the
layout is not used.  Then every line of that skeleton, and of the same token count, is read at once:
by numpy's C text reader (`fastnum.read_rows`), or, in a block it refuses, token by token
(`fastnum.parse_numbers`); either way whatever the spelling of its numbers, as `float()` reads it.

Every other line -- noise, a `nan`, a line with a blank cell or a string, a tqdm `\\r` repaint, a
value the block path cannot read -- goes to the format's `LineParser.feed`, in line order, between
the block rows around it: skip counts, notes, "later wins" and run splits are the line parser's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..run import Run
from .base import LineParser
from .builder import release_heap
from .fastnum import numeric_buffer, parse_numbers, read_rows, token_bounds
from .progress import tick
from .values import steps_ok

__all__ = ["BLOCK", "Layout", "Syntax", "layout_ids", "read_blocks", "trim_heap", "whole_lines"]

BLOCK = 1 << 20
MAX_LAYOUTS = 4096  # skeletons remembered (learned or not); then the cache starts over
_NUMBER = frozenset(b"0123456789.+-eE")


TRIM_EVERY = 16  # blocks


def trim_heap(blocks_read: int) -> None:
    """Every TRIM_EVERY blocks, hand the heap's free pages back (glibc's malloc_trim).  Each block's
    temporaries are freed between the small arrays the builder keeps, and glibc keeps the holes:
    at 5M steps that was ~10% of the peak (1,087 -> 976 MiB), at no measurable CPU cost."""
    if blocks_read % TRIM_EVERY == 0:
        release_heap()


def layout_ids(
    layouts: dict[bytes, Any], skel: list[bytes], learn: Callable[[bytes, int], Any]
) -> tuple[dict[bytes, Any], np.ndarray, list[Any]]:
    """Each line's layout number (0: none) and the layouts by number, for a block whose lines have
    the skeletons `skel` (the line with its numbers taken out).  `layouts` remembers each skeleton's
    layout, or how many tries to learn one failed (an int); it starts over past MAX_LAYOUTS and is
    returned.  `learn(skeleton, i)` learns a layout from line i (None: no layout reads it).  One odd
    line does not condemn its skeleton: two more tries, from its last line and one in the middle."""
    if len(layouts) > MAX_LAYOUTS:
        layouts = {}
    number: dict[bytes, int] = {}
    table: list[Any] = [None]
    for k, count in Counter(skel).items():
        lay = layouts.get(k, 0)
        while isinstance(lay, int) and lay < 3 and (lay == 0 or count > lay):
            at = (
                skel.index(k)
                if lay == 0
                else len(skel) - 1 - skel[::-1].index(k)
                if lay == 1
                else (skel.index(k, len(skel) // 2) if k in skel[len(skel) // 2 : -1] else skel.index(k))
            )
            got = learn(k, at)
            lay = layouts[k] = got if got is not None else lay + 1
        lay = layouts[k]
        if isinstance(lay, int):
            number[k] = 0
        else:
            number[k] = len(table)
            table.append(lay)
    return layouts, np.fromiter(map(number.__getitem__, skel), dtype=np.int32, count=len(skel)), table


class Layout:
    """Keys in order, the token of the step and of each value, tokens per line."""

    def __init__(self, keys: list[str], step_pos: int, value_pos: list[int], per_line: int) -> None:
        self.keys, self.step_pos, self.value_pos, self.per_line = keys, step_pos, value_pos, per_line


class Syntax:
    """How one format's bytes become tokens: `table`/`delete` for `bytes.translate` (separators to
    blanks, letters dropped), `skeleton` the bytes a skeleton drops, `learn(raw, parser)` a layout
    with the row the line parser makes of that line, or None; `check` narrows what a number may be
    where the format is stricter than `float()` (JSON: no `+1`, `.5`, `5.` or `007`), token by
    token (so such a format sets `c_reader=False`: its blocks are read token by token, where
    `check` runs, not by numpy's C reader); `rows_need`: bytes without which a line can add no row (a careful line without them
    does not split the block's rows)."""

    def __init__(
        self,
        table: bytes,
        delete: bytes,
        skeleton: bytes,
        learn: Callable[[bytes, LineParser], tuple[Layout, dict[str, float], float] | None],
        check: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
        c_reader: bool = True,
        rows_need: bytes | None = None,
    ) -> None:
        self.table, self.delete, self.skeleton, self.learn = table, delete, skeleton, learn
        self.rows_need = rows_need  # a line without these bytes adds no row and numbers none
        self.check = check  # (buffer, starts, ends) -> the tokens the format's own grammar allows
        self.c_reader = c_reader

    def tokens(self, raw: bytes) -> list[bytes]:
        return raw.translate(self.table, self.delete).split()

    def count(self, raw: bytes) -> int:
        return len(self.tokens(raw))


def numeric(text: bytes) -> bool:
    """Only number characters (what the block path reads; the rest goes the careful way)."""
    return bool(text) and _NUMBER.issuperset(text)


class _Reader:
    def __init__(self, parser: LineParser, syntax: Syntax) -> None:
        self.parser, self.syntax = parser, syntax
        self.builder = parser.builder
        self.layouts: dict[bytes, Layout | int] = {}  # skeleton -> its layout, or the tries that failed
        self.lineno = 0
        self.fast_rows = 0
        self.blocks = 0

    def _check(self, raw: bytes) -> Layout | None:
        got = self.syntax.learn(raw, self.parser)
        if got is None:
            return None
        lay, row, step = got
        a = numeric_buffer(raw + b"\n", self.syntax.table, self.syntax.delete)
        s, e = token_bounds(a)
        if s.size != lay.per_line or list(row) != lay.keys:
            return None
        pos = [lay.step_pos, *lay.value_pos]
        v, ok = parse_numbers(a, s[pos], e[pos] - s[pos])
        if self.syntax.check is not None:
            ok &= self.syntax.check(a, s[pos], e[pos])
        same = (
            bool(ok.all())
            and v[0] == step
            and all(np.float64(x).tobytes() == np.float64(row[k]).tobytes() for k, x in zip(lay.keys, v[1:].tolist()))
        )
        return lay if same else None

    def block(self, data: bytes) -> None:
        """A block of whole lines (ends with a newline)."""
        nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        bounds = np.concatenate(([0], nl + 1)).tolist()
        n = int(nl.size)
        line: Callable[[int], bytes] = lambda i: data[bounds[i] : bounds[i + 1] - 1]  # noqa: E731 - without its newline
        skel = data.translate(None, self.syntax.skeleton).split(b"\n")[:-1]
        self.layouts, ids, table = layout_ids(self.layouts, skel, lambda k, at: self._check(line(at)))
        fast = np.flatnonzero(ids)
        rows: list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]] = []
        loaded = self._loaded(data, ids, table, fast) if fast.size * 4 >= n else None
        if loaded is not None:
            rows = loaded
        elif fast.size * 4 >= n:  # (mostly careful lines: all of them go the careful way)
            other = np.flatnonzero(ids == 0).tolist()
            clean = data if not other else b"".join(line(i) + b"\n" for i in fast.tolist())
            nb = numeric_buffer(clean, self.syntax.table, self.syntax.delete)
            starts, ends = token_bounds(nb)
            before = np.searchsorted(starts, np.flatnonzero(nb == 10))
            first = np.concatenate(([0], before[:-1]))
            fid = ids[fast]
            per_line = np.array([0] + [t.per_line for t in table[1:]], dtype=np.int64)
            aligned = (before - first) == per_line[fid]
            want, picked = [], []
            for j in np.unique(fid).tolist():
                lay = table[j]
                assert lay is not None
                sel = np.flatnonzero((fid == j) & aligned)
                if sel.size:
                    tok = first[sel][:, None] + np.array([lay.step_pos, *lay.value_pos], dtype=np.int64)
                    picked.append((lay, sel, tok))
                    want.append(tok.ravel())
            if want:
                every = np.concatenate(want)
                vals, okv = parse_numbers(nb, starts[every], ends[every] - starts[every])
                if self.syntax.check is not None:
                    okv &= self.syntax.check(nb, starts[every], ends[every])
                at = 0
                for lay, sel, tok in picked:
                    v = vals[at : at + tok.size].reshape(tok.shape)
                    good = okv[at : at + tok.size].reshape(tok.shape).all(axis=1) & steps_ok(v[:, 0])
                    at += tok.size
                    if not good.all():
                        v, sel = v[good], sel[good]
                    rows.append((fast[sel], v[:, 0].astype(np.int64), {k: v[:, c + 1] for c, k in enumerate(lay.keys)}))
        taken = np.zeros(n, dtype=bool)
        for r in rows:
            taken[r[0]] = True
        self._emit(rows, np.flatnonzero(~taken).tolist(), line)
        self.lineno += n
        self.blocks += 1
        trim_heap(self.blocks)

    def _loaded(
        self, data: bytes, ids: np.ndarray, table: list[Layout], fast: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]] | None:
        """Every line with a layout, read at once per kind of layout (`fastnum.read_rows`); None when
        one of them is not as its layout says (then the token-by-token path below sorts them out)."""
        if not self.syntax.c_reader:
            return None
        lines = data.translate(self.syntax.table, self.syntax.delete).split(b"\n")
        kinds: dict[tuple[object, ...], int] = {}
        kind_of = np.zeros(len(table), dtype=np.int64)
        for j, lay in enumerate(table[1:], 1):
            kind_of[j] = kinds.setdefault(
                (tuple(lay.keys), lay.step_pos, tuple(lay.value_pos), lay.per_line), len(kinds)
            )
        kind = kind_of[ids[fast]]
        rows = []
        for j in kinds.values():
            sel = fast if len(kinds) == 1 else fast[kind == j]
            if not sel.size:
                continue
            lay = table[1 + int(np.flatnonzero(kind_of[1:] == j)[0])]
            part = lines[:-1] if sel.size == len(lines) - 1 else [lines[i] for i in sel.tolist()]
            got = read_rows(part, lay.per_line, lay.step_pos, lay.value_pos)
            if got is None or not steps_ok(got[0]).all():
                return None
            rows.append((sel, got[0].astype(np.int64), dict(zip(lay.keys, got[1]))))
        return rows

    def _emit(
        self,
        rows: list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]],
        careful: list[int],
        line: Callable[[int], bytes],
    ) -> None:
        """The block rows and the careful lines, in line order."""
        if rows:
            line_no = np.concatenate([r[0] for r in rows])
            order = np.argsort(line_no, kind="stable")
            line_no = line_no[order]
            steps = np.concatenate([r[1] for r in rows])[order]
            keys: dict[str, None] = {}
            for r in rows:
                keys.update(dict.fromkeys(r[2]))
            cols, present = {}, {}
            for key in keys:
                cols[key] = np.concatenate([r[2].get(key, np.full(r[0].size, np.nan)) for r in rows])[order]
                if any(key not in r[2] for r in rows):
                    present[key] = np.concatenate([np.full(r[0].size, key in r[2]) for r in rows])[order]
        at = 0
        cuts = np.searchsorted(line_no, careful).tolist() if rows else [0] * len(careful)
        need = self.syntax.rows_need
        for i, cut in zip([*careful, None], [*cuts, None]):
            hi = int(line_no.size) if cut is None and rows else (cut or 0)
            # a line that cannot add a row (a tqdm bar, a warning) is only counted: the block's
            # rows need not stop for it, so they go on in one add_block
            quiet = i is not None and need is not None and need not in line(i)
            if rows and hi > at and not quiet:
                sl = slice(at, hi)
                self.builder.add_block(
                    steps[sl],
                    {k: v[sl] for k, v in cols.items()},
                    present={k: p[sl] for k, p in present.items()} or None,
                    lines=self.lineno + line_no[sl] + 1,
                )
                self.fast_rows += hi - at
                if hasattr(self.parser, "_row_no"):  # readers that number their rows (JSONL, CSV)
                    self.parser._row_no += hi - at
                at = hi
            if i is not None:
                self.parser.lineno = self.lineno + i
                self.parser.feed(line(i).decode("utf-8", errors="replace"))


def whole_lines(f: BinaryIO, block: Callable[[bytes], object]) -> bytes:
    """Hand the rest of `f` to `block` in blocks of about BLOCK bytes, each ending at a newline (the
    progress ticked per block); return a last line with no newline (b"" when the file ends in one)."""
    rest = b""
    while True:
        chunk = f.read(BLOCK)
        if not chunk:
            break
        tick(f.tell())
        cut = chunk.rfind(b"\n") + 1  # (`rest` holds no newline)
        if cut == 0:
            rest += chunk
            continue
        # one copy of the block at most (the chunk itself when it ends a line and nothing is left over)
        block(chunk if not rest and cut == len(chunk) else b"".join((rest, memoryview(chunk)[:cut])))
        rest = chunk[cut:]
    return rest


def read_blocks(path: Path, parser: LineParser, syntax: Syntax, head: int = 0) -> tuple[Run, int]:
    """Read a file with `parser` for its careful lines and `syntax` for its block rows; the first
    `head` non-blank lines (a CSV header) go to the parser before any block.  Returns the run
    (built once, its blocks released as they are joined) and how many rows the block path read."""
    reader = _Reader(parser, syntax)
    with open(path, "rb") as f:
        while head:
            raw = f.readline()
            if not raw:
                break
            reader.lineno += 1
            parser.lineno = reader.lineno - 1
            if raw.strip():
                head -= 1
            if raw.endswith(b"\n"):
                parser.feed(raw.decode("utf-8", errors="replace"))
            else:
                parser.feed_last(raw.decode("utf-8", errors="replace"))
        rest = whole_lines(f, reader.block)
    if rest:
        parser.lineno = reader.lineno
        parser.feed_last(rest.decode("utf-8", errors="replace"))
    if type(parser).finish is LineParser.finish:
        return parser.builder.build(release=True), reader.fast_rows
    return parser.finish(), reader.fast_rows
