"""A run whose training score sits at its ceiling from its first points is not "learning, not shown
yet": it has nothing left to learn on its data (solved, or resumed at its plateau).

The verdict stays learning (the issue's "a run that starts at its plateau and stays there is not
dead"), but the report says why there is no rise -- the score is at its ceiling -- and what would
teach it more (evaluate it, harder data), instead of "judge it again after more steps".  A flat
score in the middle of its range is not at a ceiling and is not excused that way.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.render.terminal import render_text
from rlvitals.run import Run

N = 120
S = np.arange(1, N + 1)


def _run(seed: int, level: float) -> Run:
    r = np.random.default_rng(seed)
    acc = np.clip(level + r.normal(0, 0.02, N), 0, 1)
    return Run.from_arrays(
        "flat",
        S,
        dict(
            reward=acc + r.normal(0, 0.01, N),
            acc=acc,
            entropy=0.4 + r.normal(0, 0.01, N),
            kl=0.02 + np.abs(r.normal(0, 0.002, N)),
            len=300 + r.normal(0, 5, N),
        ),
    )


@pytest.mark.parametrize("seed", range(3))
def test_a_score_at_its_ceiling_from_the_start_is_solved_not_unproven(seed):
    d = diagnose(_run(seed, 0.95))
    assert d.verdict == "learning", [(f.id, f.severity) for f in d.findings]
    assert d.run["goal"]["solved"] == "acc" and not d.run["goal"]["improved"]
    assert d.gloss_key() == "ui.verdict_gloss.learning_solved"
    en = " ".join(render_text(d, "en", width=400).split())
    assert "sits at its ceiling" in en and "judge it again" not in en
    assert "天花板" in render_text(d, "zh", width=400)
    assert "sits at its ceiling" in str(d)


@pytest.mark.parametrize("seed", range(3))
def test_a_flat_score_in_the_middle_of_its_range_is_not_at_a_ceiling(seed):
    d = diagnose(_run(seed, 0.5))
    assert "solved" not in (d.run["goal"] or {})
    assert d.gloss_key() != "ui.verdict_gloss.learning_solved"
