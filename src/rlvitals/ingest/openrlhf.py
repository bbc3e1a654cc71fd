"""OpenRLHF console: one `Global step N: {…}` line per global step (since 2026-01).

    INFO 08-13 19:25:45 ppo_trainer.py:547] ✨ Global step 7: {'policy_loss': 0.013, 'reward': 0.48, …}

The sync trainer prints `✨`, the async one does not; lines may carry a Ray `(PPOTrainer pid=…)`
prefix and the logging prefix.  The printed N is used as is (it is the step *after* the increment,
the same number W&B and TensorBoard get).  The dict is parsed by `pydict.parse_dict`.
"""

from __future__ import annotations

import re
from typing import TextIO

from ..run import Run
from .base import Format, LineParser
from .pydict import KeyMap, format_dict, marked_dict, numeric, rows_for_writer

__all__ = ["FORMAT", "OpenRLHFParser", "write"]

_LINE = re.compile(r"Global step ([^\s:]+):\s*\{")  # step checked by the builder
_SNIFF = re.compile(r"Global step \d+:\s*\{")


class OpenRLHFParser(LineParser):
    format_name = "openrlhf"

    def parse(self, line: str, lineno: int) -> None:
        if "Global step" not in line:
            return
        hit = marked_dict(line, _LINE, self.builder.skip)
        if hit is None:
            return
        m, parsed = hit
        row, dropped = numeric(parsed)
        self.builder.add_parsed(m.group(1), row, lineno, dropped=dropped, empty_reason="dict without metrics")


# What OpenRLHF logs for each canonical metric; it logs no adv_std, ratio or training accuracy.
KEYS: KeyMap = {
    "reward": ("reward", None),
    "entropy": ("entropy_loss", None),
    "kl": ("kl", None),
    "clip_frac": ("ppo_clip_ratio", None),
    "len": ("response_length", None),
    "gnorm": ("actor_grad_norm", None),
    "trunc": ("rollout/truncated_rate", None),
    "lr": ("actor_lr", None),
    "loss": ("policy_loss", None),
    "val_acc": ("eval_data_pass1", None),
}


def write(run: Run, out: TextIO) -> None:
    """Lines as the sync trainer logs them (metrics OpenRLHF does not log are left out)."""
    for step, row in rows_for_writer(run, KEYS):
        out.write(f"INFO 08-13 19:25:45 ppo_trainer.py:547] ✨ Global step {step}: {format_dict(row)}\n")


def _sniff(text: str) -> float:
    hits = len(_SNIFF.findall(text))
    return 0.0 if hits == 0 else min(0.95, 0.7 + 0.05 * hits)


FORMAT = Format("openrlhf", "OpenRLHF console: `Global step N: {…}`", _sniff, parser=OpenRLHFParser, writer=write)
