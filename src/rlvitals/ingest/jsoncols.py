"""A JSON object of per-step lists: the `history` a hand-rolled loop keeps and dumps at the end.

    {"step": [1, 2, …], "rewards_avg": [0.47, 0.60, …], "kl_avg": […], "dev_chrf": {"10": 36.2, "20": 37.0}}

The lists of numbers as long as the object's step list (a name of `jsonl.STEP_KEYS`, or `steps`,
`iterations`) make the table, entry i of each at that list's step i; without a step list, the lists
of the length most of them share, entry i at step i + 1, and a note says so.  A list of another
length cannot be placed on those steps (an eval every k steps? a loss per micro-batch?): it is set
aside and counted, never stretched.  An object mapping steps to numbers (`{"10": 36.2, …}`) is a
series at those steps (an eval on its own cadence), and so is a list of `[step, value]` pairs
(`{"reward": [[0, 0.1], [2, 0.25], …]}`: curves exported beside a figure, each on its own steps).
Nested objects are flattened with `/`; `null` is NaN.  An object whose values are objects holding
the same curves (`{"grpo": {"reward_curve": […]}, "dapo": {…}}`: an ablation's settings side by side)
holds one run per key: the file's runs (`Run.file_runs`, `--run K`), as a W&B panel export's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from ..errors import InputError
from ..i18n import Msg
from ..run import Run
from .assemble import link_runs
from .base import Format
from .builder import RunBuilder
from .jsonl import STEP_KEYS
from .logdicts import json_doc
from .values import as_float

__all__ = ["FORMAT", "read_json_columns"]

_STEP_LISTS = (*STEP_KEYS, "steps", "iterations", "iters")
_NUMBER = (int, float)


def _number(v: object) -> float | None:
    """A JSON number (or null, NaN) as a float; None for anything else (a string, a bool, a list)."""
    if v is None:
        return float("nan")
    if isinstance(v, _NUMBER) and not isinstance(v, bool):
        return as_float(v)
    return None


def _pair(x: object) -> bool:
    """`[step, value]`: a whole step number, then a number (or null)."""
    if not (isinstance(x, list) and len(x) == 2):
        return False
    step = _number(x[0])
    return step is not None and step == step and float(step).is_integer() and _number(x[1]) is not None


def _walk(
    obj: Mapping[str, object], prefix: str, lists: dict[str, list[object]], at: dict[str, dict[int, object]]
) -> None:
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, list):
            if v and all(_number(x) is not None for x in v[:64]):
                lists[key] = v
            elif v and all(_pair(x) for x in v):
                at[key] = {int(float(x[0])): x[1] for x in v}
        elif isinstance(v, dict) and v:
            if all(isinstance(s, str) and s.strip().isdecimal() for s in v):
                at[key] = {int(s): x for s, x in v.items()}
            else:
                _walk(v, key + "/", lists, at)


def _runs(doc: Mapping[str, object]) -> list[str]:
    """The names of the runs an object holds side by side (`{"grpo": {"reward_curve": […]}, "dapo":
    {"reward_curve": […]}}`: an ablation's results), or [] -- two or more of its values are objects
    holding the same curves, and every curve of the document sits in one of them."""
    curves: dict[str, frozenset[str]] = {}
    for k, v in doc.items():
        lists: dict[str, list[object]] = {}
        at: dict[str, dict[int, object]] = {}
        _walk({k: v}, "", lists, at)
        if lists or at:
            if k in lists or k in at:
                return []  # a curve of the document's own (`{"10": 0.4, …}` too), beside the objects
            curves[k] = frozenset(key.split("/", 1)[1] for key in (*lists, *at))
    return list(curves) if len(curves) >= 2 and len(set(curves.values())) == 1 else []


def read_json_columns(path: Path, name: str) -> Run:
    doc, deep, _, cut = json_doc(path)
    if not isinstance(doc, dict):
        raise InputError.of("ingest.err.json_shape", path=path)
    names = _runs(doc)
    if not names:
        return _columns(path, name, doc, deep, cut)
    runs = [_columns(path, f"{name}:{k}" if name else k, doc[k], deep, cut) for k in names]
    # (each run's rows, not its steps: no name is read as a vital before `read` finishes the runs)
    return link_runs(
        runs,
        Msg("ingest.note.json_runs", n=len(runs)),
        entry=lambda i, r: Msg("note.run_db", i=i + 1, id=names[i], steps=sum(g.rows for g in r.segments)),
    )


def _columns(path: Path, name: str, doc: Mapping[str, object], deep: int, cut: int | None) -> Run:
    lists: dict[str, list[object]] = {}
    at: dict[str, dict[int, object]] = {}
    _walk(doc, "", lists, at)
    # the steps' length: the step list's, else the length most lists share (the longest of a tie)
    step_key = next((k for k in _STEP_LISTS if len(lists.get(k, ())) >= 2), None)
    lengths = Counter(len(v) for v in lists.values())
    n = len(lists[step_key]) if step_key is not None else max(lengths, key=lambda k: (lengths[k], k), default=0)
    if n < 2 and len({s for by_step in at.values() for s in by_step}) < 2:
        raise InputError.of("ingest.err.json_shape", path=path)
    b = RunBuilder(name, "json-columns")
    steps: list[object] = lists.pop(step_key) if step_key is not None else list(range(1, n + 1))
    rows: dict[int | float, dict[str, float]] = {}
    bad = 0
    for key, values in lists.items():
        if len(values) != n:
            b.drop("list of another length than the steps", len(values))
            continue
        for step, v in zip(steps, values):
            x = _number(v)
            s = _number(step)
            if x is None or s is None or s != s:
                bad += 1
                continue
            rows.setdefault(int(s) if float(s).is_integer() else s, {})[key] = x
    for key, by_step in at.items():
        for at_step, v in by_step.items():
            x = _number(v)
            if x is None:
                bad += 1
                continue
            rows.setdefault(at_step, {})[key] = x
    if bad:
        b.drop("non-numeric values", bad)
    if deep:
        b.drop("nested too deep", deep)
    for i, step in enumerate(sorted(rows)):
        b.add_row(step, rows[step], i + 1)
    if step_key is None and lists:
        b.meta["step_inferred"] = True
        b.note(Msg("ingest.note.columns_positions", n=n))
    b.note(Msg("ingest.note.columns", n=len(lists) + len(at), steps=n))
    if cut is not None:
        b.note(Msg("ingest.note.json_cut_short", line=cut))
    return b.build()


# a list of numbers under a name: `"reward": [0.1` (or null, NaN, Infinity first), or of pairs `[[0, 0.1]`
_COLUMN = r'"[^"\n]{1,200}"\s*:\s*\[\s*(?:\[\s*)?(?:-?\d|null|NaN|-?Infinity)'
# ... as the object's first value; or anywhere in it (its first values may be the run's settings)
_COLUMNS_HEAD = re.compile(r"\A[\ufeff\s]*\{\s*" + _COLUMN)
_COLUMN_ANY = re.compile(_COLUMN)


def _sniff(text: str) -> float:
    """`{"reward": [0.1, …` -- an object whose first value is a list of numbers (below JSONL's 0.85:
    a JSONL record holding a per-sample list is JSONL's); an object whose settings come first
    (`{"beta": 0.2, "rewards_curve": [1.36, …`) less surely, below trl-state's lists of dicts."""
    if _COLUMNS_HEAD.match(text):
        return 0.6
    return 0.3 if text.lstrip("\ufeff \t\r\n").startswith("{") and _COLUMN_ANY.search(text) else 0.0


FORMAT = Format(
    "json-columns",
    'a JSON object of per-step lists (a loop\'s dumped history: `{"reward": [...], "kl": [...]}`) '
    "or of [step, value] pairs; several runs side by side, one object each",
    _sniff,
    reader=read_json_columns,
)
