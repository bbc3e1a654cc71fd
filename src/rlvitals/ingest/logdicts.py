"""JSON documents of HF-style log dicts: `trainer_state.json` (any object holding a `log_history`
list, format trl-state; else its `history` / `records` list, else its longest list of dicts) and a
bare array of the same dicts (`log_history` dumped alone, json-array).

    [{"loss": 0.0007, "reward": 0.0875, "completions/mean_length": 511.6, …, "epoch": 0.005, "step": 5}, …]

Each dict is one logged row at its `step` (in an array also `global_step`, `iteration`, …, else its
position, and a note says so).  Nested dicts are flattened with `/`; `None` is NaN (TRL's "every
value was NaN"); the end-of-training summary is skipped and counted; eval dicts (`eval_…`) land at
their step like any other key.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from ..errors import InputError
from ..i18n import Msg
from ..run import Run
from . import safejson
from .base import Format
from .builder import RunBuilder
from .jsonl import STEP_KEYS, flatten
from .pydict import rows_for_writer
from .trl import KEYS, pinned_length_note, split_eval
from .trl_rows import SUMMARY_KEYS
from .values import OUT_OF_RANGE, as_float

__all__ = ["ARRAY_FORMAT", "STATE_FORMAT", "json_doc", "log_dicts_run", "read_log_dicts", "write_state"]

_INFS = (math.inf, -math.inf)


def json_doc(path: Path) -> tuple[object, int, bool, int | None]:
    """(the document, values nested too deep, whether it spells an infinity, the line it was cut
    short at -- None when whole).  Values nested deeper than values.MAX_DEPTH come back as
    safejson.DEEP (counted where they are met), never as a RecursionError.  A document that stops
    mid-way (copied while it was being written, a disk that filled) is read up to its last complete
    value (`_cut_short`); any other broken JSON is an error of one line."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        doc, deep = safejson.loads(text)
    except json.JSONDecodeError as e:
        # cut short: the decoder ran out of text (at its end, or inside a string never closed)
        ended = not text[e.pos :].strip() or e.msg.startswith("Unterminated string")
        cut = _cut_short(text) if ended else None
        if cut is None:
            raise InputError.of("ingest.err.json", path=path, error=f"{e.msg} at line {e.lineno}") from None
        return (*cut, "Infinity" in text, e.lineno)
    except ValueError as e:  # safejson.TooDeep
        raise InputError.of("ingest.err.json", path=path, error=str(e)) from None
    return doc, deep, "Infinity" in text, None


CUT_TRIES = 8  # closing brackets tried after as many of the last values before giving up


def _cut_short(text: str) -> tuple[object, int] | None:
    """The document cut short, read up to its last complete object: the text up to one of its last
    closing braces with the brackets still open closed after it, or None."""
    end = len(text)
    for _ in range(CUT_TRIES):
        at = text.rfind("}", 0, end)
        if at < 0:
            return None
        head = text[: at + 1]
        close = safejson.closers(head)
        if close:
            try:
                return safejson.loads(head + close)
            except ValueError:
                pass
        end = at
    return None


def _entry_step(entry: Mapping[str, object], keys: tuple[str, ...]) -> int | float | None:
    """The entry's step as logged (the builder checks its range), None when it has none."""
    for k in keys:
        v = entry.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
    return None


def log_dicts_run(
    history: list[object],
    name: str,
    format: str,
    *,
    step_keys: tuple[str, ...] = ("step",),
    row_order: bool = False,
    spelled_inf: bool = True,
) -> RunBuilder:
    """A builder filled from a list of HF-style log dicts (`{"loss": …, "reward": …, "step": 10}`).

    Nested dicts are flattened with `/`; `None` is NaN (TRL's "every value was NaN"); the
    end-of-training summary is skipped and counted.  A dict without a step key is skipped, unless
    `row_order` (a bare array): then its position is the step, and a note says so.  Without
    `spelled_inf` (the document never writes `Infinity`) an infinite float is a number beyond
    float64 (`1e400`) and is dropped as out of range."""
    b = RunBuilder(name, format)
    what = "log entry" if row_order else "log_history entry"
    inferred = 0
    for i, entry in enumerate(history):
        if not isinstance(entry, dict):
            b.skip(f"{what} that is not a dict")
            continue
        if any(k in entry for k in SUMMARY_KEYS):
            b.skip("end-of-training summary")
            continue
        step = _entry_step(entry, step_keys)
        if step is None:
            if not row_order or any(k in entry for k in step_keys):
                b.skip(f"{what} without step")
                continue
            step, inferred = i + 1, inferred + 1
        row: dict[str, float] = {}
        bad = 0
        for k, v in flatten(entry).items():
            if k in step_keys or k == "epoch":
                continue
            if v is None:
                row[k] = float("nan")
            elif isinstance(v, float):
                row[k] = OUT_OF_RANGE if v in _INFS and not spelled_inf else v
            elif isinstance(v, int) and not isinstance(v, bool):
                row[k] = as_float(v)
            elif v == safejson.DEEP:
                continue  # counted once for the document (read_log_dicts)
            else:
                bad += 1
        if row:
            if bad:
                b.drop("non-numeric values", bad)
            b.add_row(step, row, i + 1)
        else:
            b.skip(f"{what} without metrics")
    b.meta["step_inferred"] = bool(inferred)
    if inferred:
        b.note(Msg("ingest.note.positions", n=inferred))
    return b


def read_log_dicts(path: Path, name: str) -> Run:
    """A JSON document of log dicts: an object holding a `log_history` list (trainer_state.json,
    format trl-state; also a `history` / `records` list, rl-doctor's `{"config", "history"}`, whose
    `config` is kept in meta) or a bare array of them (log_history dumped alone, format json-array)."""
    doc, deep, spelled_inf, cut = json_doc(path)
    if isinstance(doc, list):
        if not any(isinstance(e, dict) for e in doc):
            raise InputError.of("ingest.err.json_shape", path=path)
        b = log_dicts_run(doc, name, "json-array", step_keys=STEP_KEYS, row_order=True, spelled_inf=spelled_inf)
        return _built(b, deep, cut)
    key = next((k for k in HISTORY_KEYS if isinstance(doc, dict) and isinstance(doc.get(k), list)), None)
    where = ""  # the section holding the rows, when they are not at the top
    if key is None and isinstance(doc, dict):
        key = _longest_dict_list(doc)  # `{"steps": [{...}, ...], "sample_batch": {...}}`: a loop's own name
        section = _section(doc) if key is None else None
        if section is not None:  # a report keeping its rows in a section: `{"training": {"updates": [...]}}`
            where, inner, key = section
            doc = {**inner, "config": doc.get("config", inner.get("config"))}
    if key is None:
        raise InputError.of("ingest.err.json_shape", path=path)
    assert isinstance(doc, dict)
    history = doc[key]
    evals = _eval_lists(doc, key) if key != "log_history" else []
    if evals:
        history = _with_evals(history, [e for k in evals for e in doc[k]])
    b = log_dicts_run(
        history, name, "trl-state", step_keys=("step",) if key == "log_history" else STEP_KEYS, spelled_inf=spelled_inf
    )
    if key != "log_history":
        b.note(Msg("ingest.note.dicts_from", key=where + key))
        if isinstance(doc.get("config"), dict):
            b.meta["config"] = doc["config"]
        for other in evals:
            b.note(Msg("ingest.note.evals_from", key=other))
    for k in ("logging_steps", "global_step", "max_steps", "eval_steps"):
        if isinstance(doc.get(k), int):
            b.meta[k] = doc[k]
    return _built(b, deep, cut)


def _built(b: RunBuilder, deep: int, cut: int | None) -> Run:
    """The run, with what the document itself cost: values nested too deep, a cut before its end."""
    if deep:
        b.drop("nested too deep", deep)
    if cut is not None:
        b.note(Msg("ingest.note.json_cut_short", line=cut))
    return pinned_length_note(b.build())


def _dicts(v: object) -> bool:
    """A non-empty list whose first entries are mostly dicts: log rows."""
    return isinstance(v, list) and bool(v) and sum(isinstance(e, dict) for e in v[:16]) > len(v[:16]) // 2


def _longest_dict_list(doc: Mapping[str, object]) -> str | None:
    """The key of the document's longest list of dicts (two or more), where a loop that dumps its
    rows under a name of its own (`steps`, `metrics`, `train_log`) keeps them; None when it has none."""
    best, size = None, 1
    for k, v in doc.items():
        if isinstance(v, list) and len(v) > size and _dicts(v):
            best, size = k, len(v)
    return best


def _section(doc: Mapping[str, object], depth: int = 2) -> tuple[str, Mapping[str, object], str] | None:
    """The object nested up to `depth` levels below the top whose list of log dicts is the longest:
    (its path with a trailing `/`, the object, the list's key); None when no section holds one."""
    best: tuple[str, Mapping[str, object], str] | None = None
    size = 1
    stack: list[tuple[str, Mapping[str, object], int]] = [
        (f"{k}/", v, 1) for k, v in doc.items() if isinstance(v, dict)
    ]
    while stack:
        path, obj, level = stack.pop()
        for k, v in obj.items():
            if isinstance(v, dict) and level < depth:
                stack.append((f"{path}{k}/", v, level + 1))
            elif isinstance(v, list) and len(v) > size and _dicts(v):
                best, size = (path, obj, k), len(v)
    return best


# a list named as evaluations: `validations`, `eval_log`, `test_history`, `evals`
_EVAL_LIST = re.compile(
    r"(?i)^(?:val|valid|validation|eval|evaluation|test|dev)s?(?:[_-]?(?:log|logs|history|records|results|metrics))?$"
)


def _eval_lists(doc: Mapping[str, object], train: str) -> list[str]:
    """The document's other lists of log dicts named as evaluations (`validations` beside `updates`):
    their rows are the run's evals, read at their steps beside the train rows."""
    return [k for k, v in doc.items() if k != train and _EVAL_LIST.match(k) and _dicts(v)]


def _with_evals(history: list[object], evals: list[object]) -> list[object]:
    """The train rows with each eval dict (its keys under `eval/`) placed before the first train row of
    a later step, so the steps keep their order and no eval reads as a restart of the counter."""
    known = [
        (t, i) for i, e in enumerate(history) if isinstance(e, dict) and (t := _entry_step(e, STEP_KEYS)) is not None
    ]
    ordered = all(a[0] <= b[0] for a, b in zip(known, known[1:]))
    keys = [t for t, _ in known]
    out: list[tuple[int, int, object]] = [(i, 1, e) for i, e in enumerate(history)]
    for j, ev in enumerate(evals):
        s = _entry_step(ev, STEP_KEYS) if isinstance(ev, dict) else None
        if s is None or not isinstance(ev, dict):
            out.append((len(history), 2 + j, ev))  # counted as the entry without a step it is
            continue
        # the first train row of a later step (by bisection when the steps only go forward)
        k = bisect.bisect_right(keys, s) if ordered else next((k for k, t in enumerate(keys) if t > s), len(keys))
        at = known[k][1] if k < len(known) else len(history)
        rest = {k: v for k, v in ev.items() if k not in STEP_KEYS}
        out.append((at, 0, {"step": s, "eval": rest}))
    return [e for _, _, e in sorted(out, key=lambda x: (x[0], x[1]))]


def write_state(run: Run, out: TextIO) -> None:
    history = []
    for step, row in rows_for_writer(run, KEYS):
        train, ev = split_eval(row)
        for part in (train, ev):
            if part:
                history.append({**part, "step": step})
    last = history[-1]["step"] if history else 0
    json.dump({"global_step": last, "log_history": history}, out, indent=2)
    out.write("\n")


# the list of log dicts inside a JSON object: HF `log_history`; rl-doctor's `{"config", "history"}`
HISTORY_KEYS = ("log_history", "history", "records")
_HISTORY_LIST = re.compile(r'"(?:history|records)"\s*:\s*\[\s*\{')


# any list of dicts whose first key is a step (`"updates": [{"step": 1, …`): a loop's rows under its own name
_STEP_ROWS = re.compile(r'"[^"\n]{1,64}"\s*:\s*\[\s*\{\s*"(?:' + "|".join(re.escape(k) for k in STEP_KEYS) + r')"\s*:')


_DICT_LIST = re.compile(r'"[^"\n]{1,64}"\s*:\s*\[\s*\{')
_NUMBER_LIST = re.compile(r"\[\s*-?\d")


def _sniff_state(text: str) -> float:
    if not text.lstrip("\ufeff \t\r\n").startswith("{"):
        return 0.0
    if '"log_history"' in text or _HISTORY_LIST.search(text):
        return 0.95
    if _STEP_ROWS.search(text):
        return 0.4
    # a list of objects anywhere (a report's `updates`, under a section of its own): less surely; a
    # head that also holds lists of numbers may be per-step lists after settings -- json-columns'
    # first (it falls back here when it finds no steps: read's SHAPE_FALL_BACK)
    if not _DICT_LIST.search(text):
        return 0.0
    return 0.25 if _NUMBER_LIST.search(text) else 0.35


_ARRAY_OF_DICTS = re.compile(r'\A[\ufeff\s]*\[\s*\{\s*"')


def _sniff_array(text: str) -> float:
    """`[ {"loss": …` — a JSON array whose first element is an object."""
    return 0.9 if _ARRAY_OF_DICTS.match(text) else 0.0


STATE_FORMAT = Format(
    "trl-state",
    "any JSON object holding a `log_history` list (HF trainer_state.json; "
    "also a `history` / `records` list of log dicts, rl-doctor's JSON, else its longest list of dicts)",
    _sniff_state,
    reader=read_log_dicts,
    writer=write_state,
)
ARRAY_FORMAT = Format(
    "json-array",
    "a bare JSON array of log dicts (TRL `log_history` dumped alone; `step` key, else the position)",
    _sniff_array,
    reader=read_log_dicts,
)
