"""Answers that grow past a truth creeping a few points: the creep is beyond its noise, not a gain.

Over hundreds of steps at a few hundred samples a step, a truth creeping 0.44 -> 0.47 is "beyond its
noise" (several standard errors) and still nothing the doubling answers paid for.  length_hacking's
on-the-way test judged "the truth did not gain" by its z (at most one standard error), so the alarm
came at one prefix, left at the next as the creep's z grew with the points, and came back once the
whole-run test had enough: the verdict flickered.  The gain is judged in the truth's own range.
"""

from __future__ import annotations

import numpy as np
import pytest
from simruns import simulate_rl

from rlvitals.diagnose import diagnose
from rlvitals.run import Run

N = 500
S = np.arange(1, N + 1)
BEND = 250


def _run(truth_gain: float, seed: int = 0) -> Run:
    r = np.random.default_rng(seed)
    after = np.clip((S - BEND) / (N - BEND), 0, 1)
    acc = 0.2 + 0.24 * np.minimum(S / 150.0, 1.0) + truth_gain * after + r.normal(0, 0.006, N)
    length = 200 * np.exp(np.log(2.2) * after) + r.normal(0, 2.0, N)
    return Run.from_arrays(
        "creep",
        S,
        dict(
            reward=acc + 0.3 * (length - 200) / 240 + r.normal(0, 0.006, N),
            acc=acc,
            entropy=1.6 - 0.2 * S / N + r.normal(0, 0.01, N),
            kl=0.002 + 0.04 * S / N + r.normal(0, 0.001, N),
            len=length,
        ),
    )


def test_a_truth_creeping_three_points_while_the_answers_double_is_length_hacking_at_every_later_prefix():
    run = _run(truth_gain=0.03)
    seq = [diagnose(run.upto(c)).verdict for c in (330, 360, 390, 420, 450, 480, 500)]
    assert seq == ["cheating"] * len(seq), seq
    assert diagnose(run).findings[0].id == "length_hacking"


def test_a_truth_that_gains_materially_with_the_answers_is_not():
    # the same answers, with the accuracy gaining 0.25 since the bend: by each prefix below it has
    # gained a material amount (at least 0.08) -- the lesson's pair C1, length and accuracy 同向
    run = _run(truth_gain=0.25)
    for c in (330, 390, 450, 500):
        d = diagnose(run.upto(c))
        assert d.verdict == "learning", (c, [(f.id, f.severity) for f in d.findings])


@pytest.mark.parametrize("seed", [1000, 1001, 1002, 1003, 1004])
def test_answers_growing_with_a_climbing_truth_before_a_cap_are_not_alerted_as_length_hacking(seed):
    # the RL loop's truncation runs: the answers lengthen while the accuracy climbs (pair C1, 同向),
    # then the cap starts cutting them.  A few points after the length's bend the accuracy has not
    # yet gained a material amount but climbs beyond its noise: it has its fair chance (min_points
    # points since the bend) before "the truth did not gain" is read in its range.  watch alerts a
    # finding seen at two checks (alerts.py); a single sighting before the onset is not an alert
    run = simulate_rl("truncation_starvation", seed=seed, steps=300)
    onset = run.meta["truth"]["onset_step"]
    seen = [
        step
        for step in range(10, onset, 2)
        if any(f.id == "length_hacking" and f.severity != "info" for f in diagnose(run.upto(step)).findings)
    ]
    assert len(seen) <= 1, seen
