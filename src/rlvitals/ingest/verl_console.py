"""verl's console logger: one `step:N - key:value - key:value …` line per training step.

Two spellings, one reader:

- old (before 2025-07): `(main_task pid=54569) step:12 - critic/kl:0.000 - actor/entropy_loss:0.412 …`,
  values printed with 3 decimals (so small numbers collapse to 0.000: we keep what was printed);
- new: ANSI colour, `(TaskRunner pid=46086)` prefix, values via `pprint.pformat`, which prints numpy
  scalars as `np.float64(0.0123)`; about 57 keys a line.

With `val_before_train` the first line (`step:0`) holds only `val-core/…`/`val-aux/…` keys;
validation metrics then arrive on their own cadence (every `test_freq` steps), each key keeping its
own steps.  `"Initial validation metrics: {…}"` and `"Final validation metrics: {…}"` are printed as
Python dicts; they are kept in `Run.meta` (not as series: they repeat a step line's numbers).
Several Ray workers printing the same line merge (same step, later wins).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TextIO

from ..run import Run
from .base import Format, LineParser, clean_line
from .blocks import Layout, Syntax, numeric, read_blocks
from .pydict import KeyMap, rows_for_writer
from .values import parse_value

__all__ = ["FORMAT", "KEYS", "VerlConsoleParser", "write_verl"]

_STEP = re.compile(r"^\s*step:(-?\d+)(?: - |\s*$)")
_NP_PREFIXES = ("np.float64(", "np.float32(", "np.float16(", "np.int64(", "np.int32(", "np.uint64(", "np.bool_(")
_VALIDATION = ("Initial validation metrics:", "Final validation metrics:")
_INF = math.inf

# canonical name -> the key verl (new) prints for it
KEYS: dict[str, str] = {
    "reward": "critic/score/mean",
    "acc": "critic/correct/mean",
    "entropy": "actor/entropy",
    "kl": "actor/kl_loss",
    "adv_std": "advantages/std",
    "clip_frac": "actor/pg_clipfrac",
    "ratio_mean": "actor/ratio_mean",
    "len": "response_length/mean",
    "gnorm": "actor/grad_norm",
    "trunc": "response_length/clip_ratio",
    "lr": "actor/lr",
    "loss": "actor/pg_loss",
    "val_acc": "val-core/data/acc/mean@1",
}


# What verl's trainer logs for each canonical metric (ppo/metric_utils.compute_data_metrics, the
# actor's update metrics, rollout correction): no training accuracy (critic/score/mean is the
# accuracy only for a 0/1 verifier), no advantage spread (critic/advantages/mean|max|min), and the
# π/π_rollout ratio only as rollout_corr/rollout_is_mean (algorithm.rollout_correction metrics).
WRITES: KeyMap = {
    "reward": ("critic/score/mean", None),
    "entropy": ("actor/entropy", None),
    "kl": ("actor/kl_loss", None),
    "clip_frac": ("actor/pg_clipfrac", None),
    "ratio_mean": ("rollout_corr/rollout_is_mean", None),
    "len": ("response_length/mean", None),
    "gnorm": ("actor/grad_norm", None),
    "trunc": ("response_length/clip_ratio", None),
    "lr": ("actor/lr", None),
    "loss": ("actor/pg_loss", None),
    "val_acc": ("val-core/data/acc/mean@1", None),
}


class VerlConsoleParser(LineParser):
    """Line-by-line reader of verl's console lines (both spellings)."""

    format_name = "verl-console"

    def parse(self, line: str, lineno: int) -> None:
        if "step:" not in line:
            if "validation metrics:" in line:
                self._validation(clean_line(line))
            elif line.strip() and clean_line(line).strip():
                self.builder.skip("not a metric line")
            return
        line = clean_line(line)
        m = _STEP.match(line)
        if m is None:
            if line.strip():
                self.builder.skip("not a metric line")
            return
        rest = line[m.end() :].rstrip()
        step = m.group(1)  # checked by the builder (values.parse_step)
        if not rest:
            self.builder.skip("step line without metrics")
            return
        fast = self._fast(rest)
        if fast is not None:
            self.builder.add_row(step, fast, lineno)
            return
        row: dict[str, float] = {}
        bad = 0
        for part in rest.split(" - "):
            key, sep, text = part.partition(":")
            v = parse_value(text) if sep else None
            if v is None:
                bad += 1
            else:
                row[key.strip()] = v
        if bad and row:
            self.builder.drop("unreadable key:value", bad)
        if row:
            self.builder.add_row(step, row, lineno)
        else:
            self.builder.skip("step line without metrics")

    @staticmethod
    def _fast(rest: str) -> dict[str, float] | None:
        """The common line in a few C-level string calls; None sends it to the careful loop."""
        if "np." in rest:  # np.float64(0.1) - … -> 0.1 - …
            rest = rest.replace("np.float64(", "")
            if "np." in rest:
                for prefix in _NP_PREFIXES:
                    rest = rest.replace(prefix, "")
            rest = rest.replace(") - ", " - ")
            if rest.endswith(")"):
                rest = rest[:-1]
        items = rest.replace(" - ", ":").split(":")
        if len(items) % 2:
            return None
        keys = items[0::2]
        try:
            values = list(map(float, items[1::2]))
        except ValueError:
            return None
        total = sum(values)  # one C pass: finite means no inf (nor an overflow) below
        if total - total != 0 and (_INF in values or -_INF in values):
            return None  # `inf` or an overflow (`1e400`): parse_value tells them apart
        row = dict(zip(keys, values))
        return row if len(row) == len(keys) and "" not in row else None

    def _validation(self, line: str) -> None:
        # str.find, not a regex: `\{.*\}` tried after every marker of a long line is quadratic
        for marker in _VALIDATION:
            at = line.find(marker)
            if at >= 0:
                break
        open_, close = line.find("{", at + len(marker)), line.rfind("}")
        if at < 0 or open_ < 0 or close < open_ or line[at + len(marker) : open_].strip():
            self.builder.skip("not a metric line")
            return
        from .pydict import DictSyntaxError, numeric, parse_dict

        try:
            row, _ = numeric(parse_dict(line[open_ : close + 1]))
        except DictSyntaxError:
            self.builder.skip("unreadable validation dict")
            return
        self.builder.meta[f"{marker.split()[0].lower()}_validation"] = row


def _learn(raw: bytes, parser: LineParser) -> tuple[Layout, dict[str, float], float] | None:
    """A step line whose values are plain numbers (bare or in `np.float64(…)`): its layout, and the
    row VerlConsoleParser makes of it."""
    at = raw.find(b"step:")
    if at < 0 or b"\r" in raw:
        return None
    try:
        line = clean_line(raw.decode("ascii"))
    except UnicodeDecodeError:
        return None
    m = _STEP.match(line)
    rest = line[m.end() :].rstrip() if m else ""
    row = VerlConsoleParser._fast(rest) if rest else None
    if m is None or row is None:
        return None
    pos = _SYNTAX.count(raw[: at + 5])
    step_pos, pos = pos, pos + 1
    parts = raw[at + 5 + len(m.group(1)) :].split(b" - ")
    if parts[0] or len(parts) < 2:
        return None
    keys, value_pos = [], []
    for part in parts[1:]:
        key, _, v = part.partition(b":")
        if v.startswith(b"np."):
            o = v.find(b"(")
            if o < 0 or not v.endswith(b")"):
                return None
            pre, inner = key + b":" + v[: o + 1], v[o + 1 : -1]
        else:
            pre, inner = key + b":", v
        if not numeric(inner):
            return None
        pos += 1 + _SYNTAX.count(pre)  # the " - " before it leaves a "-"
        keys.append(key.decode("ascii"))
        value_pos.append(pos)
        pos += 1
    return Layout(keys, step_pos, value_pos, pos), row, float(m.group(1))


_SYNTAX = Syntax(
    bytes.maketrans(b":()\t\r", b"     "),
    bytes(c for c in range(256) if c not in b"0123456789.+-eE:()\t\r \n"),
    b"0123456789.+- \t",
    _learn,
    rows_need=b"step:",
)


def read_verl(path: Path, name: str) -> Run:
    """A verl console log: step lines of plain numbers in blocks (blocks.py), every other line
    (validation dicts, banners, tqdm, a `nan`) by VerlConsoleParser."""
    return read_blocks(path, VerlConsoleParser(name), _SYNTAX)[0]


def _fmt(v: float) -> str:
    if math.isnan(v):
        return "np.float64(nan)"
    if math.isinf(v):
        return "np.float64(inf)" if v > 0 else "np.float64(-inf)"
    return f"np.float64({v!r})"


def write_verl(run: Run, out: TextIO) -> None:
    """Lines as new verl prints them (Ray prefix, `np.float64(…)`, full precision), with the keys
    verl logs (WRITES) and the run's other keys as logged.  Rates are fractions in verl too; a
    metric logged on its own cadence (`val_acc`) appears only at its steps."""
    for step, row in rows_for_writer(run, WRITES):
        parts = [f"{k}:{_fmt(v)}" for k, v in row.items()]
        out.write(f"(TaskRunner pid=46086) step:{step} - " + " - ".join(parts) + "\n")


_SNIFF = re.compile(r"^\s*step:\d+ - [^\s:]+:\S", re.M)


def _sniff(text: str) -> float:
    hits = len(_SNIFF.findall(text))
    return 0.0 if hits == 0 else min(0.95, 0.7 + 0.1 * hits)


FORMAT = Format(
    "verl-console",
    "verl console: `step:N - key:value - …` (old 3-decimal and new np.float64 spellings)",
    _sniff,
    parser=VerlConsoleParser,
    reader=read_verl,
    writer=write_verl,
)
