"""ROLL's stdout tracker: one JSON object per step after the logger prefix.

    [2026-08-19 10:00:00] [tracking.py (161)] [INFO] [DRIVER 0 / 1][PID 77] metrics_tag: {"step": 3, "metrics": {…}}

`json.dumps` writes NaN as `NaN` (Python's json reads it back).  Nested metric dicts are flattened
with `/`.  ROLL writes one file per worker and rank: the same step printed twice merges (later wins).

What ROLL's MetricsManager logs that the diagnosis needs besides the plain keys (alias table):
- `token/total_response_length/clip` counts the answers that reached the response cap in the
  step's batch, and `system/batch_size` on the same line is that batch's size: their quotient is
  the truncation rate (kept as `token/total_response_length/clip_rate`).  A count without the
  batch size is not a rate and stays an extra.
- `group/mixed_groups_ratio`, the share of prompt groups neither all right nor all wrong (the
  others carry no advantage): adv_std ≈ √share, the proxy TRL's `frac_reward_zero_std` gets.
- `val_correct/all/mean`, the validation accuracy, on the eval steps.
"""

from __future__ import annotations

import json
import math
from typing import Any, TextIO

import numpy as np

from ..run import Run
from .base import Format, LineParser, clean_line
from .pydict import DictSyntaxError, KeyMap, numeric, parse_dict, rows_for_writer, skip_reason
from .safejson import loads
from .values import OUT_OF_RANGE, as_float

__all__ = ["FORMAT", "RollParser", "write"]

MARKER = "metrics_tag:"
CLIP_COUNT, BATCH, CLIP_RATE = (
    "token/total_response_length/clip",
    "system/batch_size",
    "token/total_response_length/clip_rate",
)
WRITE_BATCH = 512  # what the writer logs as system/batch_size (64 prompts x 8 answers)


def _flatten(d: dict[str, object], prefix: str, out: dict[str, object]) -> None:
    for k, v in d.items():
        if isinstance(v, dict):
            _flatten(v, f"{prefix}{k}/", out)
        else:
            out[f"{prefix}{k}"] = v


def _number(v: Any, text: str) -> Any:
    """A JSON number as a float (OUT_OF_RANGE beyond float64: `1e400` reads as inf, an infinity
    only when the text spells one); anything else as it is."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return v
    if isinstance(v, int):
        return as_float(v)
    return OUT_OF_RANGE if v in (math.inf, -math.inf) and "Infinity" not in text else v


class RollParser(LineParser):
    format_name = "roll"

    def parse(self, line: str, lineno: int) -> None:
        if MARKER not in line:
            return
        body = clean_line(line).split(MARKER, 1)[1].strip()
        from_json = True
        try:
            obj, deep = loads(body)
        except ValueError:
            from_json = False
            try:  # not JSON after all (a hand-printed dict)
                obj, deep = parse_dict(body), 0
            except DictSyntaxError as e:
                self.builder.skip(
                    "nested too deep" if skip_reason(e) == "nested too deep" else "truncated or malformed metrics_tag"
                )
                return
        if deep:
            self.builder.skip("nested too deep")
            return
        if not isinstance(obj, dict):
            self.builder.skip("truncated or malformed metrics_tag")
            return
        flat: dict[str, object] = {}
        if isinstance(obj.get("metrics"), dict):
            _flatten(obj["metrics"], "", flat)
        else:  # parse_dict flattened it already: metrics/…
            flat = {key[8:]: v for key, v in obj.items() if key.startswith("metrics/")}
        step = obj.get("step")
        if isinstance(step, bool) or not isinstance(step, (int, float)):
            self.builder.skip("metrics_tag without step")
            return
        values = {key: _number(v, body) for key, v in flat.items()} if from_json else flat
        row, dropped = numeric(values)
        _clip_rate(row)
        self.builder.add_parsed(step, row, lineno, dropped=dropped, empty_reason="metrics_tag without metrics")


def _clip_rate(row: dict[str, float]) -> None:
    """The truncation rate from the cap count and the batch size logged on the same line."""
    count, batch = row.get(CLIP_COUNT), row.get(BATCH)
    if count is not None and batch is not None and math.isfinite(batch) and batch > 0:
        row[CLIP_RATE] = count / batch


def _count_of(rate: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(rate, dtype=float) * WRITE_BATCH)


def _mixed_share(adv_std: np.ndarray) -> np.ndarray:
    share: np.ndarray = np.clip(np.square(np.asarray(adv_std, dtype=float)), 0.0, 1.0)
    return share


KEYS: KeyMap = {
    "reward": ("critic/score/mean", None),
    "acc": ("critic/correct/mean", None),
    "entropy": ("critic/entropy/mean", None),
    "kl": ("actor/kl_loss", None),
    "clip_frac": ("actor/ppo_ratio_clipfrac", None),
    "ratio_mean": ("actor/ratio_mean", None),
    "len": ("token/response_length/mean", None),
    "gnorm": ("actor_train/grad_norm", None),
    "lr": ("actor/lr", None),
    "loss": ("actor/pg_loss", None),
    "val_acc": ("val_correct/all/mean", None),
    # ROLL logs no adv_std and no truncation rate: what it logs instead (see the module doc)
    "adv_std": ("group/mixed_groups_ratio", _mixed_share),
    "trunc": (CLIP_COUNT, _count_of),
}


def write(run: Run, out: TextIO) -> None:
    """The driver's stdout lines: the cap count with the batch size it counts in."""
    for step, row in rows_for_writer(run, KEYS):
        if CLIP_COUNT in row:
            row[BATCH] = float(WRITE_BATCH)
        body = json.dumps({"step": step, "metrics": row})
        out.write(f"[2026-08-19 10:00:00] [tracking.py (161)] [INFO] [DRIVER 0 / 1][PID 77] {MARKER} {body}\n")


def _sniff(text: str) -> float:
    hits = text.count(MARKER + " {")
    return 0.0 if hits == 0 else min(0.95, 0.7 + 0.05 * hits)


FORMAT = Format(
    "roll", 'ROLL stdout tracker: `metrics_tag: {"step": N, "metrics": {…}}`', _sniff, parser=RollParser, writer=write
)
