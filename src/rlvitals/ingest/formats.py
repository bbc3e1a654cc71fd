"""The registry: every reader module, in sniffing order of precedence (ties go to the earlier).

Each entry names a module that defines `FORMAT = Format(...)` (see base.py), or `module:NAME` for a
module holding a second format under another name.  Add a format: one module, one line here.
`describe_keys` lists the keys each metric is read from (`rlvitals formats --keys`).
"""

from __future__ import annotations

import textwrap
from importlib import import_module

from ..run import CANONICAL
from .aliases import EXACT, FOREIGN_NAMESPACES, PATTERNS
from .base import Format

MODULES: tuple[str, ...] = (
    # one line per reader module, e.g. "lesson", "verl_console", ...
    "lesson",
    "verl_console",
    "verl_jsonl",
    "jsonl",
    "longcsv",  # long CSV: one row per logged value (step, metric name, value)
    "csvfile",
    "tbexport",  # TensorBoard's downloaded curves (one tag per file, named by the file); a folder of them
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


def describe_keys() -> list[str]:
    """`rlvitals formats --keys`: every key of the table, per canonical metric, in preference order
    (generated from EXACT and PATTERNS, so it is never out of date)."""
    rows: dict[str, list[tuple[int, str]]] = {name: [] for name in CANONICAL}
    for key, alias in EXACT.items():
        rows[alias.canonical].append((alias.rank, key + (" (stand-in)" if alias.proxy else "")))
    for pat, alias in PATTERNS:
        shown = (
            pat.pattern.strip("^$")
            .replace("[^/]+", "<name>")
            .replace(".+", "<name>")
            .replace("\\d+", "<n>")
            .replace("\\", "")
        )
        if "(?" in shown or "*+" in shown:  # a lookahead: say it in words
            shown = "rewards/<a name holding acc or correct>[/mean]"
        rows[alias.canonical].append((alias.rank, shown + (" (stand-in)" if alias.proxy else "")))
    width = max(len(n) for n in CANONICAL)
    out = ["Keys read as each metric, the first one logged wins (src/rlvitals/ingest/aliases.py):"]
    for name in CANONICAL:
        keys = ", ".join(k for _, k in sorted(rows[name], key=lambda r: r[0]))
        out += textwrap.wrap(
            keys,
            100,
            initial_indent=f"  {name:{width}s}  ",
            subsequent_indent=" " * (width + 4),
            break_on_hyphens=False,
            break_long_words=False,
        )
    foreign = ", ".join(f"{n}/" for n in sorted(FOREIGN_NAMESPACES))
    notes = [
        "Any namespace in front of a key above reads as it, after the keys above "
        "(policy/entropy -> entropy, env/all/kl -> kl); never under " + foreign,
        "Reward terms (rewards/<fn>/mean, reward/<fn>, metrics/<x>_reward, reward_component.<x>, ...) are kept "
        "by name; correctness when named correct*, accuracy*, exact_match*, pass@*, check_answer*, check_numbers "
        "or *correctness* (under any namespace): the goal, ahead of the total reward (of several, the one that "
        "scored on the most steps)",
        "Eval metrics (eval/, eval_, val/, validation/, test/, val-core/) keep their own cadence; the "
        "accuracy-like one is val_acc, the goal when logged. Say another with --map goal=KEY",
    ]
    for text in notes:
        out += textwrap.wrap(text, 100, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)
    return out
