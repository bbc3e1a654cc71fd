"""Write the bundled example log: the lesson's healthy 200-step run, printed as the lesson prints it.

    python -m rlvitals.simulate.example            # rewrites src/rlvitals/data/example-healthy.log

`ingest.write_run(run, "lesson", ...)` keeps six significant digits for exact round trips; the
example is for people, so it uses the lesson's own precision (`reward=0.412 acc=21.1% ...
ratio=1.0000 len=78 gnorm=0.81 trunc=0.5%`) and carries the noise a real stdout has (a tqdm bar,
checkpoint saves, a validation line), which the reader must skip and count.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TextIO

from ..run import Run

__all__ = ["EXAMPLE", "LESSON_FIELDS", "format_lesson_line", "write_example", "write_lesson_pretty"]

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "example-healthy.log"
# (canonical name, the lesson's key, format, shown as percent)
LESSON_FIELDS: tuple[tuple[str, str, str, bool], ...] = (
    ("reward", "reward", "{:.3f}", False),
    ("acc", "acc", "{:.1f}", True),
    ("entropy", "entropy", "{:.3f}", False),
    ("kl", "kl", "{:.4f}", False),
    ("adv_std", "adv_std", "{:.3f}", False),
    ("clip_frac", "clip", "{:.3f}", False),
    ("ratio_mean", "ratio", "{:.4f}", False),
    ("len", "len", "{:.0f}", False),
    ("gnorm", "gnorm", "{:.2f}", False),
    ("trunc", "trunc", "{:.1f}", True),
)


def format_lesson_line(step: int, values: dict[str, float]) -> str:
    """`[  12] reward=0.412 acc=21.1% ...` for the metrics present (nan/inf printed as such)."""
    parts = [f"[{step:4d}]"]
    for name, key, fmt, pct in LESSON_FIELDS:
        if name not in values:
            continue
        v = values[name]
        if not math.isfinite(v):
            parts.append(f"{key}={v}")
        else:
            parts.append(f"{key}={fmt.format(v * 100 if pct else v)}{'%' if pct else ''}")
    return " ".join(parts)


def write_lesson_pretty(run: Run, out: TextIO, *, noise: bool = True) -> None:
    """The run at the lesson's precision, one line per step, with a real stdout's noise lines."""
    steps = run.steps
    cols = {n: dict(zip(s.steps.tolist(), s.values.tolist())) for n, s in run.series.items()}
    total = int(steps[-1]) if steps.size else 0
    if noise:
        out.write(f"INFO: loaded 7473 prompts (gsm8k/train), group size 8, {total} steps\n")
    for step in steps.tolist():
        out.write(format_lesson_line(step, {n: c[step] for n, c in cols.items() if step in c}) + "\n")
        if noise and step % 25 == 0:
            done = int(20 * step / total)
            out.write(
                f"Training: {100 * step // total:3d}%|{'█' * done}{' ' * (20 - done)}| {step}/{total} "
                f"[{step * 3 // 60:02d}:{step * 3 % 60:02d}<{(total - step) * 3 // 60:02d}:"
                f"{(total - step) * 3 % 60:02d},  3.02s/it]\n"
            )
        if noise and step % 100 == 0:
            out.write(f"saving checkpoint to checkpoints/global_step_{step} ...\n")


def write_example(path: Path = EXAMPLE) -> Path:
    """Regenerate the bundled example from simulate("healthy", seed=None) (the lesson's numbers)."""
    from . import simulate

    run = simulate("healthy", seed=None, steps=200)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        write_lesson_pretty(run, fh)
    return path


if __name__ == "__main__":
    print(f"→ {write_example(Path(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLE)}")
