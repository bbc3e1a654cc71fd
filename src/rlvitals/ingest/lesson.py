"""The lesson's log format: `[  12] reward=0.412 acc=21.1% entropy=1.842 kl=0.002 … trunc=3.1%`.

One line per step: the step in brackets at the start, then `key=value` pairs in any order and any
subset; other lines may be interleaved.  Read correctly where the lesson's own script is not:
negative numbers, `1e-4`, `nan`/`inf`, `%` turned into a fraction (`21.1%` → 0.211).

Two paths, one result (a test holds them equal):

- `LessonParser` reads line by line (used by `watch` and as the fallback).
- `read_lesson` reads a file in big blocks.  It learns the dominant line layout (the keys, their
  order and which carry `%`) from the first metric line, recognises lines of that layout by their
  "skeleton" (the line with digits, signs, dots and blanks removed), and turns all of them into
  numbers at once with numpy (`fastnum.parse_tokens`).  Every other line (noise, a line whose keys
  moved, a `nan`) goes through `LessonParser`, and its row is merged back in line order, so no line
  is lost and "later wins" still holds.  Memory is bounded by the block size plus the values kept.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path
from typing import TextIO

import numpy as np

from ..run import PERCENT_METRICS, Run
from .base import Format, LineParser, clean_line
from .fastnum import KEEP_NUMERIC, numeric_buffer, parse_window, tokenize
from .progress import tick
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
BLOCK = 4 << 20

# canonical name -> the lesson's key (the lesson calls clip_frac `clip` and ratio_mean `ratio`)
KEYS: dict[str, str] = {"reward": "reward", "acc": "acc", "entropy": "entropy", "kl": "kl",
                        "adv_std": "adv_std", "clip_frac": "clip", "ratio_mean": "ratio", "len": "len",
                        "gnorm": "gnorm", "trunc": "trunc", "lr": "lr", "loss": "loss", "val_acc": "val_acc"}


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
        if bad and row:                      # a line left with no value is counted as a skipped line
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
    """The dominant line layout: its skeleton, keys in order, which carry '%', tokens per line."""

    def __init__(self, raw: bytes, keys: list[str], pct: list[bool], value_pos: list[int], per_line: int):
        self.skeleton = raw.translate(None, _DEL_SKELETON)
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
        if not core or any(c not in "0123456789.+-" for c in core):
            return None
    tokens = raw.translate(_NB_TABLE, _NB_DELETE).split()
    # which token holds each value: walk the pairs, skipping the tokens a key's digits leave behind
    pos, value_pos = 1, []
    for key, _ in pairs:
        pos += len(key.encode().translate(_NB_TABLE, _NB_DELETE).split())
        value_pos.append(pos)
        pos += 1
    if pos != len(tokens):
        return None
    return _Layout(raw, [k for k, _ in pairs], [t.endswith("%") for _, t in pairs], value_pos, pos)


class _BlockReader:
    def __init__(self, name: str) -> None:
        self.parser = LessonParser(name)
        self.builder = self.parser.builder
        self.layout: _Layout | None = None
        self.lineno = 0                         # lines consumed before the current block

    def block(self, data: bytes) -> None:
        """A block of whole lines (ends with a newline)."""
        nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        bounds = np.concatenate(([0], nl + 1))            # line i is data[bounds[i]:bounds[i+1]]
        n = int(nl.size)
        line = lambda i: data[bounds[i]:bounds[i + 1] - 1]   # noqa: E731 - without its newline
        if self.layout is None:
            for i in range(min(n, 2000)):
                self.layout = _learn(line(i).rstrip(b"\r"))
                if self.layout is not None:
                    break
        if self.layout is None:
            self._slow([line(i) for i in range(n)], range(n))
            self.lineno += n
            return
        skel = data.translate(None, _DEL_SKELETON).split(b"\n")[:-1]
        same = np.fromiter(map(self.layout.skeleton.__eq__, skel), dtype=bool, count=n)
        if same.sum() < n // 2:
            self._relearn(line, skel)
            same = np.fromiter(map(self.layout.skeleton.__eq__, skel), dtype=bool, count=n)
        lay = self.layout
        other = np.flatnonzero(~same).tolist()
        rows = np.flatnonzero(same)
        steps = cols = None
        if rows.size:
            clean = data if not other else self._without(data, bounds, other)
            nb = numeric_buffer(clean, _NB_TABLE, _NB_DELETE)
            starts, length, window = tokenize(nb)
            if starts.size == rows.size * lay.per_line:
                shape = (rows.size, lay.per_line)
                starts, length = starts.reshape(shape), length.reshape(shape)
                window = window.reshape(*shape, window.shape[1])
                stepv, ok = parse_window(nb, starts[:, 0], length[:, 0], window[:, 0])
                ok &= steps_ok(stepv)         # a step out of range goes slow, to be counted there
                cols = {}
                for key, pct, p in zip(lay.keys, lay.pct, lay.value_pos):
                    v, okv = parse_window(nb, starts[:, p], length[:, p], window[:, p])
                    cols[key] = v / 100.0 if pct else v
                    ok &= okv
                if not ok.all():              # a value the block path cannot read: that line goes slow
                    other = sorted(other + rows[~ok].tolist())
                    rows, stepv = rows[ok], stepv[ok]
                    cols = {k: v[ok] for k, v in cols.items()}
                steps = stepv.astype(np.int64)
            else:                             # tokens do not line up (a key with odd characters)
                other, rows = list(range(n)), rows[:0]
        fb_rows: list[tuple[int, int, dict[str, float]]] = []
        cr = b"\r" in data
        noise = 0
        for i in other:
            k = skel[i]
            if not cr and b"[" not in k:      # no step bracket: noise (the skeleton keeps '[')
                if k or line(i).strip():
                    noise += 1
                continue
            fb_rows.extend((i, step, row) for step, row in self._rows(line(i)))
        if noise:
            self.builder.skip("not a metric line", noise)
        self._merge(rows, steps, cols, fb_rows)
        self.lineno += n

    @staticmethod
    def _without(data: bytes, bounds: np.ndarray, drop: list[int]) -> bytes:
        """`data` without the lines `drop` (sorted indices)."""
        pieces, at = [], 0
        b = bounds.tolist() if len(drop) > 64 else bounds
        for i in drop:
            pieces.append(data[at:int(b[i])])
            at = int(b[i + 1])
        pieces.append(data[at:])
        return b"".join(pieces)

    def _relearn(self, line, skel: list[bytes]) -> None:
        """Most lines of this block have another layout (the first line was unusual, or the
        logger changed): take the block's most common readable layout instead."""
        for k, _ in Counter(skel).most_common(4):
            lay = _learn(line(skel.index(k)).rstrip(b"\r"))
            if lay is not None:
                self.layout = lay
                return

    def _rows(self, raw: bytes) -> list[tuple[int, dict[str, float]]]:
        """Rows of one line the block path did not take (a tqdm `\\r` repaint splits it in pieces,
        as text mode and `watch` would)."""
        if b"[" not in raw and b"\r" not in raw:          # cannot hold a step: noise, counted
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

    def _slow(self, lines, idx) -> None:
        for i in idx:
            for step, row in self._rows(lines[i]):
                self.builder.add_row(step, row, self.lineno + i + 1)

    def _merge(self, rows, steps, cols, fb_rows) -> None:
        """Block rows and fallback rows, in line order, as one `add_block`."""
        if not fb_rows:
            if rows.size:
                self.builder.add_block(steps, cols, lines=self.lineno + rows + 1)
            return
        n_fast = int(rows.size) if steps is not None else 0
        line_no = np.concatenate([rows[:n_fast], np.array([r[0] for r in fb_rows], dtype=np.int64)])
        order = np.argsort(line_no, kind="stable")
        all_steps_raw = np.concatenate([steps[:n_fast] if n_fast else np.empty(0, np.int64),
                                        np.array([r[1] for r in fb_rows], dtype=np.int64)])
        all_steps = all_steps_raw[order]
        keys = dict.fromkeys(cols) if n_fast else {}
        for _, _, row in fb_rows:
            keys.update(dict.fromkeys(row))
        if len(keys) > 256:
            # many distinct keys (each line its own): a dense table would cost keys × rows
            for j in order.tolist():
                if j < n_fast:
                    self.builder.add_row(int(all_steps_raw[j]), {k: float(v[j]) for k, v in cols.items()},
                                         self.lineno + int(line_no[j]) + 1)
                else:
                    i, step, row = fb_rows[j - n_fast]
                    self.builder.add_row(step, row, self.lineno + i + 1)
            return
        out, present = {}, {}
        nfb = len(fb_rows)
        for key in keys:
            fast = cols[key] if n_fast and key in cols else np.full(n_fast, np.nan)
            fb = np.array([r[2].get(key, math.nan) for r in fb_rows], dtype=np.float64)
            has = np.concatenate([np.full(n_fast, n_fast > 0 and key in cols),
                                  np.array([key in r[2] for r in fb_rows], dtype=bool)])
            out[key] = np.concatenate([fast, fb])[order]
            present[key] = has[order]
        assert nfb + n_fast == all_steps.size
        self.builder.add_block(all_steps, out, present=present, lines=self.lineno + line_no[order] + 1)


def read_lesson(path: Path, name: str) -> Run:
    """Read a lesson-format file in blocks (see the module docstring)."""
    reader = _BlockReader(name)
    with open(path, "rb") as f:
        rest = b""
        while True:
            chunk = f.read(BLOCK)
            if not chunk:
                break
            tick(f.tell())
            data = rest + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            rest = data[cut:]
            reader.block(data[:cut])
    if rest:
        reader.builder.partial = True
        for step, row in reader._rows(rest):
            reader.builder.add_row(step, row, reader.lineno + 1)
        reader.builder.partial = False
    return reader.builder.build()


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


FORMAT = Format("lesson", "the lesson's lines: `[  12] reward=0.412 acc=21.1% entropy=… trunc=…%`",
                _sniff, parser=LessonParser, reader=read_lesson, writer=write_lesson)
