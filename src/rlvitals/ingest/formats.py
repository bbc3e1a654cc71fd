"""The registry: every reader module, in sniffing order of precedence (ties go to the earlier).

Each entry names a module that defines `FORMAT = Format(...)` (see base.py), or `module:NAME` for a
module holding a second format under another name.  Add a format: one module, one line here.
"""

from __future__ import annotations

from importlib import import_module

from .base import Format

MODULES: tuple[str, ...] = (
    # one line per reader module, e.g. "lesson", "verl_console", ...
    "lesson",
    "verl_console",
    "verl_jsonl",
    "jsonl",
    "csvfile",
    "tb_format",
    "parquet",  # Parquet step tables, rlprobe's run directory (binary: by magic bytes; needs pyarrow)
    "sqlite_store",  # rlwatch's metrics.db (binary: chosen by its magic bytes, never by text sniffing)
    "wandb_store",  # W&B offline runs (`.wandb` record log; binary: by magic bytes or a run folder)
    "swanlab_store",  # SwanLab runs (`.swanlab`: W&B's record log with its own header; binary)
    "mlflow_store",  # MLflow: mlruns/ file store or mlflow.db (a folder or SQLite tables, never text sniffing)
    "notebook",
    "logdicts:STATE_FORMAT",  # trainer_state.json (any object holding log_history)
    "logdicts:ARRAY_FORMAT",  # the same log dicts as a bare JSON array
    "jsoncols",  # a JSON object of per-step lists (a loop's dumped history)
    "openrlhf",
    "roll",
    "slime",
    "torchtune",
    "primerl_console",
    "trl",
    "mdtable",  # Markdown pipe tables of a run's steps (a README, a report)
    "generic",  # the fallback for hand-rolled loops: keep it last
)


def load() -> dict[str, Format]:
    formats: dict[str, Format] = {}
    for entry in MODULES:
        mod, _, attr = entry.partition(":")
        fmt = getattr(import_module(f"{__package__}.{mod}"), attr or "FORMAT")
        formats[fmt.name] = fmt
    return formats
