"""Where W&B runs are and what their config says: the `.wandb` files a path names (a file, a run
folder, a `wandb/` folder of runs, oldest first), and the context a practitioner reads off a run's
config before its curves (lr, batch size, group size, the response length cap).
"""

from __future__ import annotations

import math
from pathlib import Path

__all__ = ["MAGIC", "context", "is_wandb", "wandb_files"]

MAGIC = b":W&B\xe1\xbe"  # the record log's header: ":W&B", magic 0xBEE1 (version byte follows)


# What a practitioner reads off the config before the curves: the names each framework uses.
_CONTEXT = {
    "lr": ("lr", "learning_rate", "actor_rollout_ref.actor.optim.lr", "actor.optim.lr", "optim.lr"),
    "batch_size": (
        "batch_size",
        "train_batch_size",
        "data.train_batch_size",
        "rollout_batch_size",
        "per_device_train_batch_size",
        "groups_per_batch",
    ),
    "group_size": (
        "group_size",
        "num_generations",
        "n_samples_per_prompt",
        "rollout.n",
        "actor_rollout_ref.rollout.n",
        "n_rollouts",
        "num_samples",
    ),
    "max_response_length": (
        "max_response_length",
        "max_completion_length",
        "max_new_tokens",
        "max_tokens",
        "data.max_response_length",
        "generate_max_len",
        "response_length",
    ),
}


def _flatten_config(
    cfg: dict[str, object], prefix: str = "", out: dict[str, object] | None = None, depth: int = 0
) -> dict[str, object]:
    out = {} if out is None else out
    for k, v in cfg.items():
        if isinstance(v, dict) and depth < 8:
            _flatten_config(v, f"{prefix}{k}.", out, depth + 1)
        else:
            out[f"{prefix}{k}"] = v
    return out


def context(config: dict[str, object]) -> dict[str, float]:
    """lr, batch size, group size and the response length cap from a run's config, when set."""
    flat = _flatten_config(config)
    lower = {k.lower(): v for k, v in flat.items()}
    out: dict[str, float] = {}
    for name, keys in _CONTEXT.items():
        for k in keys:
            v = lower.get(k)
            if v is None:  # a nested spelling: any key ending in .name
                v = next((x for kk, x in lower.items() if kk.endswith("." + k)), None)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                out[name] = float(v)
                break
    return out


# ---------------------------------------------------------------- finding runs

_RUN_DIRS = ("offline-run-*", "run-*")


def is_wandb(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(6) == MAGIC
    except OSError:
        return False


def _run_file(d: Path) -> Path | None:
    files = sorted(f for f in d.glob("run-*.wandb") if f.is_file())
    return files[-1] if files else None


def wandb_files(path: Path) -> list[Path]:
    """The `.wandb` files a path names: the file itself, a run folder's, or every run's in a
    `wandb/` folder (or in a folder holding `wandb/`), oldest first.  Empty when there is none."""
    path = Path(path)
    if path.is_file():
        return [path] if is_wandb(path) else []
    if not path.is_dir():
        return []
    own = _run_file(path)
    if own is not None:
        return [own]
    for base in (path, path / "wandb"):
        if not base.is_dir():
            continue
        dirs = {d.resolve(): d for pat in _RUN_DIRS for d in base.glob(pat) if d.is_dir() and not d.is_symlink()}
        # offline-run-YYYYMMDD_HHMMSS-id / run-YYYYMMDD_HHMMSS-id: by the time in the name
        found = [
            (d.name.split("-", 2)[-1] if d.name.startswith("offline-") else d.name[4:], f)
            for d in dirs.values()
            if (f := _run_file(d)) is not None
        ]
        if found:
            return [f for _, f in sorted(found)]
    return []
