"""The first name a growing run gets is the right one: a consequence never outranks its cause.

Streamed step by step (as `watch` sees a run), the diagnosis of each prefix must not name a
look-alike before it names the failure:

- an entropy collapse drags the KL up as the policy sharpens -- before the entropy has lost half
  its level, the KL (0.3-0.6) is already at a level a blow-up reaches.  A policy that only sharpened
  is no further from the reference than the entropy it lost (KL(pi||ref) <= H(ref) - H(pi) for
  pi = ref^b/Z, b >= 1), so a KL within kl_sharpen of the entropy lost, with an entropy that slid
  rather than dropped at once, is not a blow-up (timing.sharpening_ratio);
- a length term added to the reward lifts the reward at once and the answers grow after it, while
  the accuracy stays: the reward parting from the truth is paid through length, and the specific
  exploit (length_hacking) is named, not the generic one (length_hacking.paid_in_length), also when
  the log carries no reward components (the lesson format);
- an entropy bonus switched on mid-run makes the updates jump (clip fraction past 20%) in the same
  steps as the entropy takes off: while the entropy leaves its line upward, a clip fraction that
  jumped just now is not yet the learning rate's (lr_too_high waits for the entropy to say whose
  the big steps are).
"""

from __future__ import annotations

import io

import pytest
from simruns import simulate_rl

from rlvitals.diagnose import diagnose, kl_blowup, verdict
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.predicates import pred
from rlvitals.diagnose.thresholds import get
from rlvitals.diagnose.timing import sharpening_ratio
from rlvitals.ingest import read_text, write_run
from rlvitals.shapes import shapes_of

WARN = ("warning", "critical")


def _ctx(run) -> Ctx:
    return Ctx(run, dict(shapes_of(run)), None)


def _names(run, first: int, last: int) -> list[tuple[int, list[str]]]:
    """(step, the warning-or-critical findings' ids) of every prefix from `first` to `last`."""
    out = []
    for step in range(first, last + 1):
        d = diagnose(run.upto(step))
        out.append((step, [f.id for f in d.findings if f.severity in WARN]))
    return out


def _first_named(names: list[tuple[int, list[str]]]) -> tuple[int, str] | None:
    return next(((s, ids[0]) for s, ids in names if ids), None)


def _lesson(run):
    """The run as `watch` streams it in the bench: written in the lesson's format and read back
    (no reward components, no extras)."""
    buf = io.StringIO()
    write_run(run, "lesson", buf)
    back = read_text(buf.getvalue(), "lesson")
    back.meta.update(run.meta)
    return back


@pytest.mark.parametrize("seed", [1000, 1001, 1002])
def test_collapse_is_named_before_the_kl_it_drags(seed):
    run = simulate_rl("entropy_collapse", seed=seed, steps=200)
    onset = run.meta["truth"]["onset_step"]
    names = _names(run, 10, onset + 10)
    first = _first_named(names)
    assert first is not None and first[1] == "entropy_collapse", first
    # no prefix names the KL it drags along (before or after the collapse is named)
    assert not [s for s, ids in names if "kl_blowup" in ids], names


@pytest.mark.parametrize("seed", [1000, 1002])
def test_a_sharpening_kl_stays_within_the_entropy_lost(seed):
    collapse = simulate_rl("entropy_collapse", seed=seed, steps=200)
    blowup = simulate_rl("kl_blowup", seed=seed, steps=200)
    mid = collapse.meta["truth"]["onset_step"]
    r_collapse = sharpening_ratio(_ctx(collapse.upto(mid)))
    r_blowup = sharpening_ratio(_ctx(blowup))
    assert r_collapse is not None and r_collapse <= get("kl_sharpen"), r_collapse
    # the blow-up's KL jumps before the entropy follows: it runs ahead of the entropy lost
    assert r_blowup is not None and r_blowup > get("kl_sharpen"), r_blowup
    assert [f.id for f in diagnose(blowup).findings if f.severity in WARN][:1] == ["kl_blowup"]


def test_the_kl_a_collapse_drags_is_dropped_by_the_relation_table_not_by_its_detector(monkeypatch):
    run = simulate_rl("entropy_collapse", seed=1000, steps=200)
    ctx = _ctx(run)
    f = kl_blowup.check(ctx)
    # the detector reports its own evidence (the KL did surge) and decides nothing for the collapse
    assert f is not None and f.severity in WARN, f
    assert pred(ctx, "kl_sharpening").holds and "kl_sharpening" in verdict.DEFERS["kl_blowup"]
    assert "kl_blowup" not in {x.id for x in diagnose(run).findings}
    # resolve drops it while the predicate holds: alone, without the relation, it would stand
    assert "kl_blowup" not in {x.id for x in verdict.resolve([f], ctx)}
    monkeypatch.setattr(verdict, "DEFERS", {})
    assert "kl_blowup" in {x.id for x in verdict.resolve([f], _ctx(run))}


@pytest.mark.parametrize("seed", [1000, 1001, 1002])
def test_length_paid_reward_is_named_length_hacking_first(seed):
    run = _lesson(simulate_rl("length_hacking", seed=seed, steps=200))
    onset = run.meta["truth"]["onset_step"]
    names = _names(run, onset - 10, onset + 30)
    hacks = [(s, ids[0]) for s, ids in names if ids and ids[0] in ("length_hacking", "reward_hacking")]
    assert hacks and hacks[0][1] == "length_hacking", hacks


def test_answers_running_into_the_cap_with_the_reward_rising_are_length_hacking():
    """Seed 1000: a few steps after the length term is switched on, the first answers reach the cap
    (a truncation rate of a few tenths of a percent).  That is the lesson's pair with
    truncation_starvation, and the reward decides it: since it parted from the truth it rose with
    the length (a cut answer's reward collapses instead), so length_hacking speaks within a few
    steps and keeps speaking, instead of standing back until the cap has had its say."""
    run = _lesson(simulate_rl("length_hacking", seed=1000, steps=200))
    onset = run.meta["truth"]["onset_step"]
    named = {s: [f.id for f in diagnose(run.upto(s)).findings if f.severity in WARN] for s in range(onset, onset + 16)}
    first = next((s for s, ids in named.items() if ids[:1] == ["length_hacking"]), None)
    assert first is not None and first - onset <= 10, named
    assert all(ids[:1] == ["length_hacking"] for s, ids in named.items() if s >= first), named


@pytest.mark.parametrize("seed", [1000, 1001])
def test_reward_hacking_with_the_truth_gaining_is_still_reward_hacking(seed):
    """The hacked verifier pays for answer markers; the answers grow too, but the training accuracy
    still gains over the stretch: the growth is not what the reward paid for."""
    run = _lesson(simulate_rl("reward_hacking", seed=seed, steps=200))
    onset = run.meta["truth"]["onset_step"]
    first = _first_named(_names(run, 10, onset + 10))
    assert first is not None and first[1] == "reward_hacking", first


def test_bonus_driven_steps_are_not_called_a_learning_rate_first():
    """RL seed 1002 at full precision (what `Monitor` sees): clip_frac jumps 0.07 -> 0.23 at step 98
    as the entropy bonus starts; the entropy leaves its line two steps later.  Before, lr_too_high
    was named at step 101, one step before entropy_explosion, and Monitor's first alert was it."""
    run = simulate_rl("entropy_explosion", seed=1002, steps=200)
    onset = run.meta["truth"]["onset_step"]
    first = _first_named(_names(run, onset - 5, onset + 10))
    assert first is not None and first[1] == "entropy_explosion", first


@pytest.mark.parametrize("seed", [1000, 1001])
def test_a_learning_rate_raised_mid_run_is_still_named(seed):
    run = simulate_rl("lr_too_high", seed=seed, steps=200)
    onset = run.meta["truth"]["onset_step"]
    first = _first_named(_names(run, onset - 5, onset + 12))
    assert first is not None and first[1] == "lr_too_high", first
