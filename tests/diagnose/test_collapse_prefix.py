"""A collapse's KL is its consequence even when it reached its level fast (the lesson's KL/entropy pair).

In the RL-loop simulator's entropy_collapse (low temperature, clipped ratio, correctness-only reward)
the entropy slides down from the first steps and the KL rises with it to 0.4-0.8 within 20-30 steps:
in a 30-60-step prefix that reads as a KL "jump" (kl_jump >= kl_abrupt).  The entropy began to fall
with the KL's rise and slid down (not at once), so the KL follows the narrowing
(timing.entropy_led_kl) and the prefix names entropy_collapse, not kl_blowup.  A real blow-up
(the KL creeping for tens of steps, then jumping while the entropy drops at once; or the entropy
rising with it; or the entropy declining slowly long before the KL takes off, as in the peers' files)
is still kl_blowup.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from simruns import simulate_rl

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.predicates import pred
from rlvitals.diagnose.timing import entropy_led_kl
from rlvitals.ingest import read
from rlvitals.shapes import shapes_of
from rlvitals.simulate import simulate

WARN = ("warning", "critical")


def _first(run) -> str | None:
    found = [f.id for f in diagnose(run).findings if f.severity in WARN]
    return found[0] if found else None


def _ctx(run) -> Ctx:
    return Ctx(run, dict(shapes_of(run)), None)


@pytest.mark.parametrize(("seed", "after"), [(2003, 10), (2004, 15), (2005, 10)])
def test_collapse_prefix_names_entropy_collapse(seed, after):
    run = simulate_rl("entropy_collapse", seed=seed, steps=200)
    part = run.upto(run.meta["truth"]["onset_step"] + after)
    ctx = _ctx(part)
    assert entropy_led_kl(ctx) and pred(ctx, "kl_follows_entropy").holds
    assert _first(part) == "entropy_collapse"
    assert "kl_blowup" not in [f.id for f in diagnose(part).findings]


@pytest.mark.parametrize("seed", [2000, 2001])
def test_rl_kl_blowup_still_named(seed):
    run = simulate_rl("kl_blowup", seed=seed, steps=200)
    assert not entropy_led_kl(_ctx(run))  # the KL crept up for tens of steps before the entropy dropped at once
    assert _first(run) == "kl_blowup"


@pytest.mark.parametrize("seed", [2000, 2001])
def test_sim_kl_blowup_still_named(seed):
    run = simulate("kl_blowup", seed=seed, steps=200)
    ctx = _ctx(run)
    assert not entropy_led_kl(ctx) and not pred(ctx, "kl_follows_entropy").holds  # the entropy rose with the KL
    assert _first(run) == "kl_blowup"


def test_peer_blowup_after_a_slow_entropy_decline_is_not_led_by_it():
    """rldoctor's kl_blowup: entropy 0.81 -> 0.44 from early on, the KL taking off ~17 steps after it began."""
    run = read(Path(__file__).parents[1] / "fixtures" / "peers" / "rldoctor" / "kl_blowup.jsonl")
    assert not entropy_led_kl(_ctx(run))
    assert _first(run) == "kl_blowup"
