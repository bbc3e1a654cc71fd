"""JSON Lines: one JSON object per line.

Two shapes, one parser:

- flat: `{"step": 12, "loss": -0.05, "mean_reward": 0.63, …}` (prime-rl, torchtune's JSONL logger,
  hand-rolled loggers such as rookworld's); the step is `step`, `_step`, `global_step`,
  `train/global_step`, `iteration` (or a loop's own counter: `base.LOOP_COUNTERS`), else the row
  number (and a note says so); a record the loop marked as an evaluation (`"type": "eval"`,
  `"split": "val"`, ...) holds evals (`eval/<key>`, their own cadence), not training metrics;
- verl's file logger: `{"step": N, "data": {flat metrics}}`, written with orjson, which turns
  NaN/inf into `null`: there, `null` is read as NaN (a logged NaN is evidence, not a gap).

Nested objects are flattened with `/`; a string holding one number (`"0.0123"`, `"7.8%"` -> 0.078) is
read as that number; a boolean saying whether the task was solved (`"solved": true`), the answer
cut or the update skipped is read as 1/0 (`is_metric_flag`); other strings, lists and booleans-as-flags are not metrics and are counted in
`Run.dropped`.  A line holding only `{"config": {...}}` (rl-doctor's convention) is the
run's settings: kept in `Run.meta["config"]`, counted as "config line".  A line that is not JSON is
counted ("malformed JSON line"), and so is a line nested deeper than any logger writes ("nested too
deep"); a cut-off last line is counted as "truncated last line".  Steps and values are
range-checked by the builder (see values.py).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TextIO

import numpy as np

from ..i18n import Msg
from ..run import Run
from . import aliases
from .base import LOOP_COUNTERS, Format, LineParser, normalise_column
from .blocks import Layout, Syntax, read_blocks
from .components import is_correctness_name, is_eval_key
from .pydict import rows_for_writer
from .safejson import loads
from .values import OUT_OF_RANGE, as_float, is_skip_flag, parse_value

__all__ = ["FORMAT", "STEP_KEYS", "JsonlParser", "flatten", "is_metric_flag", "write_jsonl"]

_INFS = (math.inf, -math.inf)
# the step, by the names loops give it (first found wins); an agent loop's `episode` only when no other
STEP_KEYS = (
    "step",
    "_step",
    "global_step",
    "train/global_step",
    "trainer/global_step",
    "iteration",
    *LOOP_COUNTERS,
    "episode",
)


def flatten(obj: dict[str, object], prefix: str = "", out: dict[str, object] | None = None) -> dict[str, object]:
    """{"a": {"b": 1}} -> {"a/b": 1}."""
    out = {} if out is None else out
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            flatten(v, key + "/", out)
        else:
            out[key] = v
    return out


class JsonlParser(LineParser):
    """Line-by-line reader of JSON Lines (flat or verl's `{"step", "data"}`)."""

    format_name = "jsonl"
    null_is_nan = False  # verl's file logger writes NaN as null

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._row_no = -1
        # the eval records of the current eval step: their sums and counts per key (`_eval_mean`)
        self._eval_at: object = None
        self._eval_sums: dict[str, tuple[float, int]] = {}

    def parse(self, line: str, lineno: int) -> None:
        text = line.strip()
        if not text:
            return
        if not text.startswith("{"):
            self.builder.skip("not a JSON object line")
            return
        try:
            obj, deep = loads(text)
        except ValueError:
            self.builder.skip("malformed JSON line")
            return
        if deep:
            self.builder.skip("nested too deep")
            return
        if not isinstance(obj, dict):
            self.builder.skip("not a JSON object line")
            return
        if len(obj) == 1 and isinstance(obj.get("config"), dict):
            # rl-doctor's convention: a leading `{"config": {...}}` line holds the run's settings
            self.builder.skip("config line")
            self.builder.meta["config"] = obj["config"]
            return
        if _is_config_record(obj):
            # a loop's typed header ({"type": "config", "argv": [...], "args": {...}}): its numbers are
            # settings (batch size, lr, seed), never a row of metrics at step 0 or 1
            self.builder.skip("config line")
            self.builder.meta.setdefault("config", {k: v for k, v in obj.items() if k not in RECORD_KINDS})
            return
        self._row_no += 1
        verl = isinstance(obj.get("data"), dict) and "step" in obj
        null_nan = self.null_is_nan or verl
        flat = flatten(obj["data"]) if verl else flatten(obj)
        step = obj.get("step") if verl else None
        if step is None:
            for key in STEP_KEYS:
                if isinstance(flat.get(key), (int, float)) and not isinstance(flat.get(key), bool):
                    step = flat[key]
                    break
        for key in STEP_KEYS:
            flat.pop(key, None)
        evals = _is_eval_record(flat)
        if evals:
            # a loop writing typed records ({"type": "eval", ...} beside its "rollout"/"train" ones):
            # an eval's numbers are evals, on their own cadence, not the training reward at that step
            flat = {k if is_eval_key(k) else f"eval/{k}": v for k, v in flat.items()}
        if step is None or not isinstance(step, (int, float)) or isinstance(step, bool):
            step = self._row_no
            self.builder.meta["step_inferred"] = True
            self.builder.note(Msg("note.row_number_field"))
        row: dict[str, float] = {}
        dropped = 0
        for key, v in flat.items():
            if " /" in key or "/ " in key:
                key = normalise_column(key)  # a notebook table's `completions / mean_length`, copied as a key
            if isinstance(v, bool) and is_metric_flag(key):
                row[key] = float(v)  # `"solved": true`: the share solved is the accuracy; an update skipped
            elif isinstance(v, bool) or (v is None and not null_nan):
                dropped += 1
            elif v is None:
                row[key] = math.nan
            elif isinstance(v, int):
                row[key] = as_float(v)
            elif isinstance(v, float):
                # json reads `1e400` as inf: an infinity only when the line spells one
                row[key] = OUT_OF_RANGE if v in _INFS and "Infinity" not in text else v
            elif isinstance(v, str) and (x := _quoted_number(v)) is not None:
                row[key] = x  # a number written as a string: "0.0123" (SkyRL), "7.8%" (a table copied)
            else:
                dropped += 1
        if evals and row:
            row = self._eval_mean(step, row)
        self.builder.add_parsed(step, row, lineno, dropped=dropped, empty_reason="JSON line without metrics")

    def _eval_mean(self, step: object, row: dict[str, float]) -> dict[str, float]:
        """Eval records sharing a step (one per prompt, word or task) are one eval: each is written as
        the mean of the step's records so far, so the step's last write -- the one the builder keeps --
        is the mean of them all, not the last item's score."""
        if step != self._eval_at:
            self._eval_at, self._eval_sums = step, {}
        for k, v in row.items():
            total, n = self._eval_sums.get(k, (0.0, 0))
            self._eval_sums[k] = (total + v, n + 1)
        return {k: self._eval_sums[k][0] / self._eval_sums[k][1] for k in row}


NAN_INF = frozenset({"nan", "inf", "infinity"})


def is_metric_flag(key: str) -> bool:
    """A boolean that says whether the task was solved (`solved`, `is_correct`, `correct`, a correctness
    name), the answer cut (`truncated`) or the update skipped (`update_skipped`, values.is_skip_flag):
    read as 1/0 -- over the steps, the rate (an eval's records at one step: their mean,
    `JsonlParser._eval_mean`).  Other flags (`done`) are no metric."""
    leaf = key.rsplit("/", 1)[-1]
    return is_correctness_name(leaf) or aliases.canonical_key(leaf) in ("acc", "trunc") or is_skip_flag(leaf)


def _quoted_number(v: str) -> float | None:
    """A string holding one number, as values.parse_value reads a logged value (`"0.0123"`, `"7.8%"` ->
    0.078, `"nan"`), else None.  Flag words (`"true"`, `"yes"`) and names are no metric."""
    s = v.strip()
    low = s.lower()
    if not s or low in ("true", "false"):
        return None
    if not any(c.isdigit() for c in s) and low.strip("+-") not in NAN_INF:
        return None
    return parse_value(s)


RECORD_KINDS = ("type", "log_type", "record_type", "split", "mode", "phase", "kind")
EVAL_KINDS = frozenset({"eval", "evaluation", "val", "valid", "validation", "test"})


CONFIG_KINDS = frozenset(
    {"config", "configuration", "args", "hparams", "hyperparameters", "settings", "header", "meta"}
)


def _is_config_record(obj: dict[str, object]) -> bool:
    """A record a loop marked as its settings (`"type": "config"`), with no step of its own."""
    if any(k in obj for k in STEP_KEYS):
        return False
    return any(isinstance(v := obj.get(k), str) and v.strip().lower() in CONFIG_KINDS for k in RECORD_KINDS)


def _is_eval_record(flat: dict[str, object]) -> bool:
    """A row a loop marked as an evaluation (`"type": "eval"`, `"split": "val"`, ...)."""
    return any(isinstance(v := flat.get(k), str) and v.strip().lower() in EVAL_KINDS for k in RECORD_KINDS)


def _learn(raw: bytes, parser: LineParser) -> tuple[Layout, dict[str, float], float] | None:
    """A flat object of numbers with a step key: its layout, and the row JsonlParser makes of it."""
    if not raw.startswith(b"{") or b"\\" in raw or b"\r" in raw:
        return None
    try:
        obj = json.loads(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or len(obj) < 2:
        return None
    step_key = next((k for k in STEP_KEYS if k in obj), None)
    if step_key is None:
        return None
    row: dict[str, float] = {}
    keys, value_pos, step_pos, pos = [], [], -1, 0
    for key, v in obj.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or " /" in key or "/ " in key:
            return None  # (a spaced key is normalised by JsonlParser.parse)
        try:
            f = float(v)
        except OverflowError:
            return None
        if f - f != 0:
            return None
        pos += _SYNTAX.count(key.encode())
        if key == step_key:
            step_pos = pos
        elif key not in STEP_KEYS:
            keys.append(key)
            value_pos.append(pos)
            row[key] = f
        pos += 1
    return Layout(keys, step_pos, value_pos, pos), row, float(obj[step_key])


def json_numbers(a: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Which tokens JSON's number grammar allows, of those `fastnum` reads: no `+` or `.` first, no
    leading zero before a digit, a digit after every dot (`-?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?`)."""
    neg = a[starts] == 45
    lead = a[starts + neg]
    nxt = a[starts + neg + 1]
    ok: np.ndarray = ((lead - np.uint8(48)) < 10) & ~(
        (lead == 48) & ((nxt - np.uint8(48)) < 10) & (starts + neg + 1 < ends)
    )
    ok &= a[ends - 1] != 46
    dot_e = np.flatnonzero((a[:-1] == 46) & ((a[1:] | 32) == 101))  # "5.e3": rare, found at the byte level
    if dot_e.size:
        ok[np.unique(np.searchsorted(starts, dot_e, side="right") - 1)] = False
    return ok


_SYNTAX = Syntax(
    bytes.maketrans(b'{}":,[]\t\r', b" " * 9),
    bytes(c for c in range(256) if c not in b'0123456789.+-eE{}":,[] \t\r\n'),
    b"0123456789.+- \t",
    _learn,
    json_numbers,
    # JSON's numbers are checked token by token; a block-wide check cost more (~10% of
    # the read) than the C reader saved on these 17-digit reprs
    c_reader=False,
    rows_need=b"{",
)


def read_jsonl(path: Path, name: str) -> Run:
    """A JSONL file: flat rows of numbers in blocks (blocks.py), every other line by JsonlParser."""
    return read_blocks(path, JsonlParser(name), _SYNTAX)[0]


def write_jsonl(run: Run, out: TextIO) -> None:
    """Flat rows `{"step": N, "<canonical name>": value, …, "<extra key>": value}`: the vitals under
    their canonical names, the other keys the run kept (reward components, NaN counters, …) as they
    were logged, so nothing read is lost on the way out; NaN and inf as JSON's NaN/Infinity."""
    for step, row in rows_for_writer(run, {n: (n, None) for n in run.series}):
        out.write(json.dumps({"step": step, **row}) + "\n")


def _sniff(text: str) -> float:
    lines = [l for l in text.splitlines() if l.strip()][:50]
    if not lines:
        return 0.0
    good = 0
    for l in lines:
        try:
            good += isinstance(loads(l)[0], dict)
        except ValueError:
            pass
    if good == 0:
        return 0.0
    # malformed lines (and a last line cut by the sniff window) lower the score, not to zero
    return 0.5 + 0.35 * good / len(lines) if 2 * good >= len(lines) else 0.25 * good / len(lines)


FORMAT = Format(
    "jsonl",
    'JSON Lines, one object per step (`{"step": 12, "loss": …}`; prime-rl, torchtune, …)',
    _sniff,
    parser=JsonlParser,
    reader=read_jsonl,
    writer=write_jsonl,
)
