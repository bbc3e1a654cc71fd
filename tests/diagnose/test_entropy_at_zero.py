"""An entropy at 0 from the first logged step: the collapse came before the log began.

A resumed run or an excerpt of a long one can start with the policy already deterministic.  No
share of its start can show that -- it kept all of it -- but its level can: below entropy_floor
(nats a token) it is at 0 whatever it began at, never "far from 0", and with the goal not
improving it is the lesson's quiz answer, a collapse.  An entropy logged as exactly 0.0 was not
measured (no sequence active) and decides nothing; a goal still improving at that level is a
converged policy's business.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.predicates import pred
from rlvitals.render.words import finding_summary
from rlvitals.run import Run

N = 40
S = np.arange(501, 501 + N)


def _run(seed: int, *, entropy: str = "low", rising: bool = False) -> Run:
    r = np.random.default_rng(seed)
    reward = 0.2 + (0.5 * (S - S[0]) / N if rising else 0.0) + r.normal(0, 0.05, N)
    if entropy == "low":
        e = 0.006 + np.abs(r.normal(0, 0.001, N))
    elif entropy == "zeros":
        e = np.zeros(N)
    else:
        e = 0.45 + r.normal(0, 0.02, N)
    return Run.from_arrays("late", S, dict(reward=np.clip(reward, 0, 1), entropy=e, kl=0.7 + r.normal(0, 0.02, N)))


@pytest.mark.parametrize("seed", range(5))
def test_at_zero_from_the_first_step_with_a_still_goal_is_a_collapse(seed):
    d = diagnose(_run(seed))
    assert d.verdict == "dead", [(f.id, f.severity) for f in d.findings]
    top = d.findings[0]
    assert top.id == "entropy_collapse" and top.evidence["reading"] == "at_zero"
    assert top.evidence["entropy_end"] < top.evidence["entropy_floor"]
    assert "before this log began" in finding_summary(top, "en")


@pytest.mark.parametrize("seed", range(3))
def test_an_entropy_at_zero_is_never_called_far_from_zero(seed):
    from rlvitals.diagnose.context import Ctx
    from rlvitals.shapes import shapes_of

    run = _run(seed)
    assert not pred(Ctx(run, dict(shapes_of(run))), "entropy_healthy").holds
    for f in diagnose(run).findings:
        assert all(ro.reason != "entropy_healthy" for ro in f.ruled_out), f.id


def test_exact_zeros_were_not_measured_and_decide_nothing():
    d = diagnose(_run(1, entropy="zeros"))
    assert not any(f.id == "entropy_collapse" for f in d.findings)


def test_a_goal_still_improving_at_that_level_is_not_a_collapse():
    d = diagnose(_run(2, rising=True))
    assert d.verdict == "learning", [(f.id, f.severity) for f in d.findings]


def test_the_same_run_at_a_healthy_level_reads_no_collapse():
    d = diagnose(_run(3, entropy="healthy"))
    assert not any(f.id == "entropy_collapse" for f in d.findings)
