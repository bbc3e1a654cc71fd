"""The lesson's log format: `[  12] reward=0.412 acc=21.1% entropy=1.842 kl=0.002 … trunc=3.1%`.

One line per step: the step in brackets at the start, then `key=value` pairs in any order and any
subset; other lines may be interleaved.  Read correctly where the lesson's own script is not:
negative numbers, `1e-4`, `nan`/`inf`, `%` turned into a fraction (`21.1%` → 0.211).

Two paths, one result (a test holds them equal):

- `LessonParser` reads line by line (used by `watch` and as the fallback).
- `read_lesson` reads a file in big blocks.  It learns line layouts (the keys, their order, which
  carry `%`) from the lines, recognises a layout's lines by their "skeleton" (the line without
  digits, signs, dots and blanks: `lr=3.3e-10` and `lr=0.0001` are two skeletons, both learned), and
  turns them into numbers at once (`fastnum.read_rows`, numpy's C reader, which checks each line's
  token count; a block it refuses goes token by token, `fastnum.parse_numbers`: `float()`'s float64).
  Every other line (noise, a `nan`, a line no layout reads) goes through `LessonParser` and its row
  is merged back in line order: no line is lost, "later wins" holds, memory stays bounded.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import numpy as np

from ..run import PERCENT_METRICS, Run
from .base import Format, LineParser, clean_line
from .blocks import layout_ids, trim_heap, whole_lines
from .fastnum import KEEP_NUMERIC, numeric_buffer, parse_numbers, read_rows, token_bounds
from .values import OutOfRange, parse_step, parse_value, steps_ok

__all__ = ["FORMAT", "KEYS", "LessonParser", "read_lesson", "write_lesson"]

_STEP = re.compile(r"^\s*\[\s*(-?\d+)\s*\]")
# (?<!…): a key starts after a blank or a bracket, so a long run without `=` is tried once, not once per byte
_PAIR = re.compile(r"(?<![^\s=\[\]])([^\s=\[\]]+)=(\S*)")
_DEL_SKELETON = b"0123456789.+- \t\r"
# For the block path: '=' becomes a blank (so a key's own digits never touch its value), the
# characters a value can hold are kept, everything else (key letters, brackets, '%') is dropped.
_NB_TABLE = bytes.maketrans(b"=\t\r", b"   ")
_NB_DELETE = bytes(c for c in range(256) if c not in KEEP_NUMERIC and c not in b"=\t\r \n")

# canonical name -> the lesson's key (the lesson calls clip_frac `clip` and ratio_mean `ratio`)
KEYS: dict[str, str] = {
    "reward": "reward",
    "acc": "acc",
    "entropy": "entropy",
    "kl": "kl",
    "adv_std": "adv_std",
    "clip_frac": "clip",
    "ratio_mean": "ratio",
    "len": "len",
    "gnorm": "gnorm",
    "trunc": "trunc",
    "lr": "lr",
    "loss": "loss",
    "val_acc": "val_acc",
}


class LessonParser(LineParser):
    """Line-by-line reader of the lesson's format."""

    format_name = "lesson"

    def parse_row(self, line: str) -> tuple[str, dict[str, float]] | None:
        """(step as printed, row) for a metric line, None for any other line; bad values are counted.
        The step is checked by the builder (values.parse_step)."""
        m = _STEP.match(line)
        if m is None:
            line = clean_line(line)
            m = _STEP.match(line)
            if m is None:
                return None
        row: dict[str, float] = {}
        bad = 0
        for key, text in _PAIR.findall(line, m.end()):
            v = parse_value(text)
            if v is None:
                bad += 1
            else:
                row[key] = v
        if bad and row:  # a line left with no value is counted as a skipped line
            self.builder.drop("unreadable value", bad)
        return m.group(1), row

    def parse(self, line: str, lineno: int) -> None:
        got = self.parse_row(line)
        if got is None:
            if line.strip():
                self.builder.skip("not a metric line")
            return
        step, row = got
        if row:
            self.builder.add_row(step, row, lineno)
        else:
            self.builder.skip("step line without key=value pairs")


# ---------------------------------------------------------------- the block path


class _Layout:
    """One line layout: keys in order, which carry '%', where each value's token sits, tokens per line."""

    def __init__(self, keys: list[str], pct: list[bool], value_pos: list[int], per_line: int):
        self.keys, self.pct, self.value_pos, self.per_line = keys, pct, value_pos, per_line


def _learn(raw: bytes) -> _Layout | None:
    """A layout from one line, if the block path can read lines like it (else None)."""
    if not raw.startswith(b"["):
        return None
    try:
        line = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    m = _STEP.match(line)
    if m is None:
        return None
    pairs = _PAIR.findall(line, m.end())
    if not pairs or len({k for k, _ in pairs}) != len(pairs):
        return None
    for _, text in pairs:
        core = text[:-1] if text.endswith("%") else text
        if not core or any(c not in "0123456789.+-eE" for c in core):
            return None
    tokens = raw.translate(_NB_TABLE, _NB_DELETE).split()
    # which token holds each value: walk the pairs, skipping the tokens a key's letters leave behind
    pos, value_pos = 1, []
    for key, _ in pairs:
        pos += len(key.encode().translate(_NB_TABLE, _NB_DELETE).split())
        value_pos.append(pos)
        pos += 1
    if pos != len(tokens):
        return None
    return _Layout([k for k, _ in pairs], [t.endswith("%") for _, t in pairs], value_pos, pos)


class _BlockReader:
    def __init__(self, name: str) -> None:
        self.parser = LessonParser(name)
        self.builder = self.parser.builder
        self.layouts: dict[bytes, _Layout | int] = {}  # skeleton -> its layout, or the tries that failed
        self.lineno = 0  # lines consumed before the current block
        self.blocks = 0

    def block(self, data: bytes) -> None:
        """A block of whole lines (ends with a newline)."""
        nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        bounds = np.concatenate(([0], nl + 1))  # line i is data[bounds[i]:bounds[i+1]]
        n = int(nl.size)
        line: Callable[[int], bytes] = lambda i: data[bounds[i] : bounds[i + 1] - 1]  # noqa: E731 - without its newline
        skel = data.translate(None, _DEL_SKELETON).split(b"\n")[:-1]

        def learn(k: bytes, at: int) -> _Layout | None:
            return _learn(line(at).rstrip(b"\r")) if k.startswith(b"[") else None

        self.layouts, ids, table = layout_ids(self.layouts, skel, learn)
        fast = np.flatnonzero(ids)
        other = np.flatnonzero(ids == 0).tolist()
        groups: list[tuple[_Layout, np.ndarray, np.ndarray, dict[str, np.ndarray]]] = []
        loaded = self._loaded(data, ids, table, fast) if fast.size else None
        if loaded is not None:
            groups = loaded
            taken = np.zeros(n, dtype=bool)
            taken[fast] = True
            other = np.flatnonzero(~taken).tolist()
        elif fast.size:
            clean = data if not other else self._without(data, bounds, other)
            nb = numeric_buffer(clean, _NB_TABLE, _NB_DELETE)
            starts, ends = token_bounds(nb)
            # tokens per line, from where each newline falls among the token starts
            before = np.searchsorted(starts, np.flatnonzero(nb == 10))
            first = np.concatenate(([0], before[:-1]))
            fid = ids[fast]
            per_line = np.array([0] + [t.per_line for t in table[1:]], dtype=np.int64)
            aligned = (before - first) == per_line[fid]
            want: list[np.ndarray] = []
            picked: list[tuple[_Layout, np.ndarray, np.ndarray]] = []
            for j in np.unique(fid).tolist():
                lay = table[j]
                assert lay is not None
                sel = np.flatnonzero((fid == j) & aligned)
                if sel.size:
                    tok = first[sel][:, None] + np.array([0, *lay.value_pos], dtype=np.int64)
                    picked.append((lay, sel, tok))
                    want.append(tok.ravel())
            if want:
                every = np.concatenate(want)
                vals, okv = parse_numbers(nb, starts[every], ends[every] - starts[every])
                at = 0
                for lay, sel, tok in picked:
                    v = vals[at : at + tok.size].reshape(tok.shape)
                    good = okv[at : at + tok.size].reshape(tok.shape).all(axis=1)
                    at += tok.size
                    good &= steps_ok(v[:, 0])  # a step out of range goes slow, to be counted there
                    if not good.all():
                        v, sel = v[good], sel[good]
                    cols = {
                        k: (v[:, c + 1] / 100.0 if pct else v[:, c + 1])
                        for c, (k, pct) in enumerate(zip(lay.keys, lay.pct))
                    }
                    groups.append((lay, fast[sel], v[:, 0].astype(np.int64), cols))
            taken = np.zeros(n, dtype=bool)
            for _, rows, _, _ in groups:
                taken[rows] = True
            other = np.flatnonzero(~taken).tolist()
        fb_rows: list[tuple[int, int, dict[str, float]]] = []
        cr = b"\r" in data
        noise = 0
        for i in other:
            k = skel[i]
            if not cr and b"[" not in k:  # no step bracket: noise (the skeleton keeps '[')
                if k or line(i).strip():
                    noise += 1
                continue
            fb_rows.extend((i, step, row) for step, row in self._rows(line(i)))
        if noise:
            self.builder.skip("not a metric line", noise)
        self._merge(groups, fb_rows)
        self.lineno += n
        self.blocks += 1
        trim_heap(self.blocks)

    @staticmethod
    def _loaded(
        data: bytes, ids: np.ndarray, table: list[_Layout], fast: np.ndarray
    ) -> list[tuple[_Layout, np.ndarray, np.ndarray, dict[str, np.ndarray]]] | None:
        """Every line with a layout, read at once per kind of layout (`fastnum.read_rows`); None when
        one of them is not as its layout says (then the token-by-token path sorts them out)."""
        lines = data.translate(_NB_TABLE, _NB_DELETE).split(b"\n")
        # layouts that differ only in how their numbers are spelled read alike: one call for them all
        kinds: dict[tuple[object, ...], int] = {}
        kind_of = np.zeros(len(table), dtype=np.int64)
        for j, lay in enumerate(table[1:], 1):
            kind_of[j] = kinds.setdefault(
                (tuple(lay.keys), tuple(lay.pct), tuple(lay.value_pos), lay.per_line), len(kinds)
            )
        kind = kind_of[ids[fast]]
        groups = []
        for j in kinds.values():
            sel = fast if len(kinds) == 1 else fast[kind == j]
            if not sel.size:
                continue
            lay = table[1 + int(np.flatnonzero(kind_of[1:] == j)[0])]
            rows = lines[:-1] if sel.size == len(lines) - 1 else [lines[i] for i in sel.tolist()]
            got = read_rows(rows, lay.per_line, 0, lay.value_pos)
            if got is None or not steps_ok(got[0]).all():
                return None
            steps, v = got[0].astype(np.int64), got[1]
            for c, pct in enumerate(lay.pct):
                if pct:
                    v[c] /= 100.0  # in place: no second copy of a percent column
            groups.append((lay, sel, steps, dict(zip(lay.keys, v))))
        return groups

    @staticmethod
    def _without(data: bytes, bounds: np.ndarray, drop: list[int]) -> bytes:
        """`data` without the lines `drop` (sorted indices)."""
        pieces, at = [], 0
        b = bounds.tolist() if len(drop) > 64 else bounds
        for i in drop:
            pieces.append(data[at : int(b[i])])
            at = int(b[i + 1])
        pieces.append(data[at:])
        return b"".join(pieces)

    def _rows(self, raw: bytes) -> list[tuple[int, dict[str, float]]]:
        """Rows of one line the block path did not take (a tqdm `\\r` repaint splits it in pieces,
        as text mode and `watch` would)."""
        if b"[" not in raw and b"\r" not in raw:  # cannot hold a step: noise, counted
            if raw.strip():
                self.builder.skip("not a metric line")
            return []
        line = raw.decode("utf-8", errors="replace")
        out = []
        for piece in line.split("\r") if "\r" in line else (line,):
            got = self.parser.parse_row(piece)
            if got is None:
                if piece.strip():
                    self.builder.skip("not a metric line")
            elif not got[1]:
                self.builder.skip("step line without key=value pairs")
            else:
                step = parse_step(got[0])
                row = got[1]
                if isinstance(step, str):
                    self.builder.skip(step)
                    continue
                if any(isinstance(v, OutOfRange) for v in row.values()):
                    row = self.builder.clean_row(row)
                    if not row:
                        continue
                out.append((step, row))
        return out

    def _slow(self, lines: list[bytes], idx: list[int]) -> None:
        for i in idx:
            for step, row in self._rows(lines[i]):
                self.builder.add_row(step, row, self.lineno + i + 1)

    def _merge(
        self,
        groups: list[tuple[_Layout, np.ndarray, np.ndarray, dict[str, np.ndarray]]],
        fb_rows: list[tuple[int, int, dict[str, float]]],
    ) -> None:
        """Block rows (each layout's) and fallback rows, in line order, as one `add_block`."""
        if len(groups) == 1 and not fb_rows:
            _, rows, steps, cols = groups[0]
            self.builder.add_block(steps, cols, lines=self.lineno + rows + 1)
            return
        if not groups and not fb_rows:
            return
        line_no = np.concatenate([g[1] for g in groups] + [np.array([r[0] for r in fb_rows], dtype=np.int64)])
        order = np.argsort(line_no, kind="stable")
        steps = np.concatenate([g[2] for g in groups] + [np.array([r[1] for r in fb_rows], dtype=np.int64)])
        keys: dict[str, None] = {}
        for g in groups:
            keys.update(dict.fromkeys(g[3]))
        for _, _, row in fb_rows:
            keys.update(dict.fromkeys(row))
        if len(keys) > 256:
            # many distinct keys (each line its own): a dense table would cost keys × rows
            table = [
                (int(r), int(s), {k: float(v[j]) for k, v in g[3].items()})
                for g in groups
                for j, (r, s) in enumerate(zip(g[1], g[2]))
            ] + fb_rows
            for j in order.tolist():
                i, step, row = table[j]
                self.builder.add_row(step, row, self.lineno + i + 1)
            return
        out, present = {}, {}
        for key in keys:
            parts = [g[3].get(key, np.full(g[1].size, np.nan)) for g in groups]
            has = [np.full(g[1].size, key in g[3]) for g in groups]
            parts.append(np.array([r[2].get(key, math.nan) for r in fb_rows], dtype=np.float64))
            has.append(np.array([key in r[2] for r in fb_rows], dtype=bool))
            out[key] = np.concatenate(parts)[order]
            present[key] = np.concatenate(has)[order]
        self.builder.add_block(steps[order], out, present=present, lines=self.lineno + line_no[order] + 1)


def read_lesson(path: Path, name: str) -> Run:
    """Read a lesson-format file in blocks (see the module docstring)."""
    reader = _BlockReader(name)
    with open(path, "rb") as f:
        rest = whole_lines(f, reader.block)
    if rest:
        reader.builder.partial = True
        for step, row in reader._rows(rest):
            reader.builder.add_row(step, row, reader.lineno + 1)
        reader.builder.partial = False
    return reader.builder.build(release=True)


# ---------------------------------------------------------------- writing and sniffing


def _fmt(v: float, pct: bool) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v * 100:.6g}%" if pct else f"{v:.6g}"


def write_lesson(run: Run, out: TextIO) -> None:
    """One `[step] key=value …` line per step, the lesson's key names, rates as percentages."""
    names = [n for n in KEYS if n in run.series]
    if not names:
        return
    lookup = {n: dict(zip(run.series[n].steps.tolist(), run.series[n].values.tolist())) for n in names}
    for step in run.steps.tolist():
        parts = [f"{KEYS[n]}={_fmt(lookup[n][step], n in PERCENT_METRICS)}" for n in names if step in lookup[n]]
        out.write(f"[{step:>4}] " + " ".join(parts) + "\n")


_SNIFF = re.compile(r"^\s*\[\s*-?\d+\s*\]\s*[^\s=\[\]]+=\S", re.M)


def _sniff(text: str) -> float:
    hits = len(_SNIFF.findall(text))
    if hits == 0:
        return 0.0
    return min(0.9, 0.6 + 0.1 * hits)


FORMAT = Format(
    "lesson",
    "the lesson's lines: `[  12] reward=0.412 acc=21.1% entropy=… trunc=…%`",
    _sniff,
    parser=LessonParser,
    reader=read_lesson,
    writer=write_lesson,
)
