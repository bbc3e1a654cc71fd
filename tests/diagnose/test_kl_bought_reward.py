"""A reward pinned at its ceiling does not excuse the KL that bought it.

A reward model's score climbs to 0.99 in twenty steps while the KL to the reference surges x200
and stays there: the reward at its ceiling is what over-optimisation looks like, so it cannot say
"the task is solved, the KL did no harm" -- nor can an eval of the same reward on held-out prompts
(`eval_reward`), which a policy that learned to please the reward model pleases as well.  The KL
keeps its warning; the verdict is the reward's ("learning", glossed: only a truth can say the gain
is real -- tests/diagnose/test_kl_rose_through.py).  Only a truth (an eval accuracy) at its ceiling
clears the move.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.run import Run, Series

N = 80
S = np.arange(1, N + 1)


def _run(seed: int, eval_key: str | None) -> Run:
    r = np.random.default_rng(seed)
    reward = np.clip(0.62 + 0.37 * (1 - np.exp(-S / 6.0)) + r.normal(0, 0.01, N), 0, 1)
    kl = np.where(S < 12, 0.004, 1.0) * np.exp(r.normal(0, 0.08, N))
    run = Run.from_arrays("rm", S, dict(reward=reward, kl=kl, len=40 + r.normal(0, 1.5, N)))
    if eval_key is not None:
        ev = S[::2]
        val = np.clip(0.56 + 0.43 * (1 - np.exp(-ev / 8.0)), 0, 1)
        run.series["val_acc"] = Series("val_acc", ev, val, eval_key)
    return run


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("eval_key", [None, "eval_reward"])
def test_a_reward_at_its_ceiling_does_not_excuse_the_kl(seed, eval_key):
    d = diagnose(_run(seed, eval_key))
    kl = [f for f in d.findings if f.id == "kl_blowup"]
    assert kl and kl[0].severity != "info", [(f.id, f.severity) for f in d.findings]
    assert d.findings[0].id == "kl_blowup"
    assert d.gloss_key() == "ui.verdict_gloss.learning_bought"


@pytest.mark.parametrize("seed", range(3))
def test_an_eval_accuracy_at_its_ceiling_does(seed):
    d = diagnose(_run(seed, "eval_accuracy"))
    assert not any(f.id == "kl_blowup" and f.severity != "info" for f in d.findings), [
        (f.id, f.severity) for f in d.findings
    ]
