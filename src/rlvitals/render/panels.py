"""Which panels a run gets, in which order: shared by the figure (`plot`) and the HTML report.

Only what was logged is drawn (the vitals that are missing are named once, in a line, instead of
as empty boxes); reward sits first and the goal (acc, with val_acc on it) beside it, then the
reward's components (the story of a hacked reward: a format term up while correctness stays flat)
and reward_std, then the lesson's other vitals, with grad norm beside clip_frac and truncation
beside len.  lr and loss are drawn when `quiet` is False (the report) or when a finding rests on
them (the figure).
"""

from __future__ import annotations

import re

from ..run import VITALS, Run, Series

__all__ = ["COLORS", "COMPONENTS", "ORDER", "REWARD_STD", "missing_vitals", "panel_names", "reward_std"]

COMPONENTS = "components"
REWARD_STD = "reward_std"
# one colour per panel, the same in the figure and the HTML report (red is kept for reference lines)
COLORS = {
    "reward": "#1f77b4",
    "acc": "#ff7f0e",
    "entropy": "#2ca02c",
    "kl": "#9467bd",
    "adv_std": "#8c564b",
    "clip_frac": "#e377c2",
    "ratio_mean": "#17becf",
    "len": "#7f7f7f",
    "gnorm": "#bcbd22",
    "trunc": "#253494",
    "loss": "#404040",
    "lr": "#6a6a6a",
    "val_acc": "#2f4f4f",
    REWARD_STD: "#6b8ebf",
}
# the order panels are laid out in, left to right, row after row
ORDER: tuple[str, ...] = (
    "reward",
    "acc",
    COMPONENTS,
    REWARD_STD,
    "entropy",
    "kl",
    "adv_std",
    "clip_frac",
    "gnorm",
    "ratio_mean",
    "len",
    "trunc",
    "lr",
    "loss",
)
_STD_KEY = re.compile(r"(^|[/_.\s])(rewards?|score)[/_.\s]?std$", re.IGNORECASE)


def reward_std(run: Run) -> Series | None:
    """The within-batch spread of the reward when the log has it (`reward_std`, `rewards/std`,
    `critic/score/std`, ...), else None.  Kept as an extra by ingest: it is drawn, never a vital."""
    for key, s in run.extras.items():
        if _STD_KEY.search(key.strip()) and "adv" not in key.lower() and len(s):
            return s
    return None


def _has(run: Run, name: str) -> bool:
    s = run.series.get(name)
    return s is not None and len(s) > 0


def panel_names(run: Run, more: list[str] | tuple[str, ...] = (), *, quiet: bool = False) -> list[str]:
    """The panels of `run` in layout order.  `more`: metrics findings rest on (always drawn when
    logged); `quiet`: leave out lr and loss unless in `more`."""
    out: list[str] = []
    for name in ORDER:
        if name == "acc":
            ok = _has(run, "acc") or _has(run, "val_acc")
        elif name == COMPONENTS:
            ok = any(len(s) for s in run.components.values())
        elif name == REWARD_STD:
            ok = reward_std(run) is not None
        elif name in ("lr", "loss") and quiet:
            ok = name in more and _has(run, name)
        else:
            ok = _has(run, name)
        if ok:
            out.append(name)
    return out


def missing_vitals(run: Run) -> list[str]:
    """The lesson's vitals this log does not have (each a tool missing for ruling things out)."""
    return [m for m in VITALS if not _has(run, m) and not (m == "acc" and _has(run, "val_acc"))]
