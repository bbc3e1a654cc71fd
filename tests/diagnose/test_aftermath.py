"""After the run broke: what follows is the break's aftermath, and the break is dated where it happened.

- A critical finding of a dead run (a blow-up, a collapse, starved or stalled updates) owns what
  begins after it: a later warning of another kind (the cut run's answers, its jumping steps, its
  flat accuracy) is kept as an info note naming the break, with no action of its own, and `watch`
  does not alert it.  A NaN is news whenever it comes.
- A NaN poisons every metric from its own step on: what begins with it (answers of garbage cut at
  the cap, groups all alike) is its aftermath, not truncation_starvation or data_too_easy.
- A reward gamed first and a KL dragged past kl_high after it: the earliest failure owns the run
  (cheating), the KL's rise is what chasing the gamed reward cost.
- A KL that climbed slowly for a hundred steps and then jumped is dated at the jump
  (kl_jump_share), not where the slow climb made a fifth of its log rise; a length cap cut mid-run
  is dated at the cut, not where the answers had begun to grow.
"""

from __future__ import annotations

import diag_curves as dc
import numpy as np
import pytest
from simruns import simulate_rl

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.model import Finding
from rlvitals.diagnose.thresholds import get
from rlvitals.diagnose.verdict import _aftermath
from rlvitals.render.words import finding_summary
from rlvitals.shapes import shapes_of
from rlvitals.simulate import simulate


def _ctx(run) -> Ctx:
    return Ctx(run, dict(shapes_of(run)), None)


def _f(fid: str, severity: str, onset: int) -> Finding:
    return Finding(fid, severity, onset, {"x": 1.0})


def test_a_later_warning_after_a_dead_critical_becomes_its_aftermath():
    ctx = _ctx(simulate_rl("healthy", seed=1000, steps=200))  # only its span (199 steps) matters here
    gap = get("together") * 199
    found = [
        _f("kl_blowup", "critical", 80),
        _f("lr_too_high", "warning", 120),
        _f("data_too_easy", "critical", 150),
        _f("numeric_instability", "critical", 130),
        _f("length_hacking", "warning", int(80 + gap)),
        _f("plateau", "info", 170),
    ]
    out = {f.id: f for f in _aftermath(found, ctx)}
    assert out["kl_blowup"].severity == "critical"
    for fid in ("lr_too_high", "data_too_easy"):
        assert out[fid].severity == "info" and out[fid].action is None
        assert out[fid].evidence["aftermath_of"] == "kl_blowup" and out[fid].evidence["aftermath_since_step"] == 80
        assert out[fid].evidence["x"] == 1.0  # its own numbers stay
    assert out["numeric_instability"].severity == "critical"  # a NaN is news whenever it comes
    assert out["length_hacking"].severity == "warning"  # began together with the break: not after it
    assert "aftermath_of" not in out["plateau"].evidence


def test_a_warning_that_began_first_is_not_demoted():
    """lr_too_high before the KL blow-up is its likely cause (the first simulator's runs): it stays."""
    ctx = _ctx(simulate_rl("healthy", seed=1000, steps=200))
    out = {f.id: f for f in _aftermath([_f("kl_blowup", "critical", 85), _f("lr_too_high", "warning", 72)], ctx)}
    assert out["lr_too_high"].severity == "warning"


def test_a_cheating_critical_owns_nothing():
    ctx = _ctx(simulate_rl("healthy", seed=1000, steps=200))
    out = {f.id: f for f in _aftermath([_f("reward_hacking", "critical", 40), _f("kl_blowup", "warning", 120)], ctx)}
    assert out["kl_blowup"].severity == "warning"


@pytest.mark.parametrize("seed", [1001, 1003])
def test_steps_jumping_after_starvation_are_its_aftermath(seed):
    d = diagnose(simulate_rl("truncation_starvation", seed=seed, steps=200))
    assert d.verdict == "dead" and d.findings[0].id == "truncation_starvation"
    later = [f for f in d.findings if f.id == "lr_too_high"]
    assert later and later[0].severity == "info" and later[0].evidence["aftermath_of"] == "truncation_starvation"
    en, zh = finding_summary(later[0], "en"), finding_summary(later[0], "zh")
    step = later[0].evidence["aftermath_since_step"]
    assert f"step {step}" in en and "not a cause of its own" in en
    assert f"第 {step} 步" in zh and "后果" in zh


@pytest.mark.parametrize("engine", ["rl", "sim"])
def test_answers_cut_with_a_nan_are_the_nans(engine):
    run = (
        simulate_rl("numeric_instability", seed=1000, steps=200)
        if engine == "rl"
        else simulate("numeric_instability", seed=0, steps=200)
    )
    ids = [(f.id, f.severity) for f in diagnose(run).findings]
    assert ids[0] == ("numeric_instability", "critical")
    assert not [i for i in ids[1:] if i[1] != "info"], ids


def test_what_begins_with_the_nan_is_its_aftermath():
    """RL seed 1000: the overflow at step 111; ten steps on, the diagnosis read data_too_easy at
    critical from step 112 (every answer the same garbage: no spread in a group), and watch alerted
    it.  Nothing else is critical after the NaN now; a data_too_easy the diagnosis dates one step
    before the NaN still warns at one prefix (step 118: a blip watch does not alert), none from ten
    steps on."""
    run = simulate_rl("numeric_instability", seed=1000, steps=200)
    onset = run.meta["truth"]["onset_step"]
    for step in range(onset + 1, onset + 25):
        d = diagnose(run.upto(step))
        rest = [(f.id, f.severity) for f in d.findings[1:]]
        assert d.findings[0].id == "numeric_instability", step
        assert not [r for r in rest if r[1] == "critical"], (step, rest)
        if step >= onset + 10:
            assert all(r[1] == "info" for r in rest), (step, rest)


@pytest.mark.parametrize("seed", [1000, 1001, 1002, 1003])
def test_a_kl_that_jumped_is_dated_at_the_jump(seed):
    run = simulate_rl("kl_blowup", seed=seed, steps=200)
    onset = run.meta["truth"]["onset_step"]
    f = diagnose(run).findings[0]
    assert f.id == "kl_blowup" and abs(f.onset_step - onset) <= 2, (f.onset_step, onset)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_kl_that_ramped_keeps_its_fifth_of_the_rise(seed):
    """The first simulator's blow-ups ramp over tens of steps (no one window carries half the log
    rise): they are still dated where a fifth of the rise was made, within a few steps of the truth."""
    run = simulate("kl_blowup", seed=seed, steps=200)
    onset = run.meta["truth"]["onset_step"]
    f = next(f for f in diagnose(run).findings if f.id == "kl_blowup")
    assert abs(f.onset_step - onset) <= 6, (f.onset_step, onset)


@pytest.mark.parametrize("seed", [1000, 1001, 1002])
def test_a_cap_cut_mid_run_is_dated_at_the_cut(seed):
    """The answers had grown healthily from step ~20; the cap came down to them at the onset (the
    length fell where the truncation rate rose): the report says since the cut, not since the growth."""
    run = simulate_rl("truncation_starvation", seed=seed, steps=200)
    onset = run.meta["truth"]["onset_step"]
    f = diagnose(run).findings[0]
    assert f.id == "truncation_starvation" and abs(f.onset_step - onset) <= 2, (f.onset_step, onset)


@pytest.mark.parametrize("engine,seed", [("rl", 1000), ("rl", 1001), ("rl", 1004), ("sim", 0), ("sim", 3)])
def test_a_ratio_drift_is_dated_where_it_left_one(engine, seed):
    """RL-loop weight-sync failures drift slowly, then faster: a two-line fit put their knee 35-42
    steps after the ratio had left 1 for good."""
    run = (
        simulate_rl("sync_failure", seed=seed, steps=200)
        if engine == "rl"
        else simulate("sync_failure", seed=seed, steps=200)
    )
    onset = run.meta["truth"]["onset_step"]
    f = next(f for f in diagnose(run).findings if f.id == "sync_failure")
    assert 0 <= f.onset_step - onset <= 3, (f.onset_step, onset)


@pytest.mark.parametrize("seed", [1000, 1002, 1004])
def test_a_ratio_that_left_one_with_the_kl_jump_is_the_jumps(seed):
    """The RL-loop blow-up (lr x250, no KL penalty, no clipping) moves the policy so far in one update
    that the importance ratio leaves 1 in the same steps: before, watch alerted sync_failure 1-3 steps
    after the blow-up (a critical in seed 1000)."""
    run = simulate_rl("kl_blowup", seed=seed, steps=200)
    onset = run.meta["truth"]["onset_step"]
    for step in range(onset + 2, onset + 12):
        ids = [f.id for f in diagnose(run.upto(step)).findings if f.severity != "info"]
        assert "sync_failure" not in ids, (step, ids)


def test_after_a_nan_even_the_same_step_is_its_aftermath():
    ctx = _ctx(simulate_rl("healthy", seed=1000, steps=200))
    found = [
        _f("numeric_instability", "critical", 111),
        _f("truncation_starvation", "critical", 111),
        _f("lr_too_high", "warning", 109),
    ]
    out = {f.id: f for f in _aftermath(found, ctx)}
    assert out["truncation_starvation"].severity == "info"
    assert out["truncation_starvation"].evidence["aftermath_of"] == "numeric_instability"
    assert out["lr_too_high"].severity == "warning"  # began before the NaN: not its aftermath


def test_a_goal_that_died_first_owns_the_run_when_the_log_cannot_name_why():
    # no entropy and no truncation rate logged: the answers shrink to the cap and the goal dies at
    # step 100; seventy steps later the clip fraction and the grad norm climb as the broken run
    # thrashes.  The earliest failure is the goal's collapse: dead, the late jitter its aftermath
    import numpy as np
    from diag_curves import N, S, healthy, jitter

    acc = np.where(S < 100, np.linspace(0.21, 0.52, N), 0.0) + np.abs(jitter(0.004, 3)) * (S >= 100)
    reward = np.where(S < 100, np.linspace(0.45, 0.82, N), 0.0) + np.abs(jitter(0.004, 4)) * (S >= 100)
    clip = np.where(S < 170, 0.04, 0.04 + (S - 170) * 0.008) + np.abs(jitter(0.003, 5))
    gnorm = np.where(S < 170, 0.6, 0.6 + (S - 170) * 0.02) + jitter(0.08, 6) * (1 + (S >= 170) * 3)
    length = np.where(S < 100, np.linspace(84, 149, N), 24.0) + jitter(1.0, 8)
    run = healthy(3, acc=acc, reward=reward, entropy=None, clip_frac=clip, gnorm=gnorm, len=length)
    d = diagnose(run)
    assert d.verdict == "dead", [(f.id, f.severity) for f in d.findings]
    top = d.findings[0]
    assert top.id == "not_learning" and 85 <= top.onset_step <= 100
    assert "trunc" in top.missing and "entropy" in top.missing  # the metrics that would name the cause
    late = {f.id: f for f in d.findings}["lr_too_high"]
    assert late.severity == "info" and late.evidence["aftermath_of"] == "not_learning"
    # the same jitter in a run whose goal holds is still the update's problem
    held = healthy(3, entropy=None, clip_frac=clip, gnorm=gnorm)
    assert diagnose(held).verdict == "unstable"


def test_a_reward_gamed_before_the_kl_left_owns_the_run():
    # the reward parts from a falling accuracy from step 20; the KL leaves its level at step 80 and
    # climbs to 0.5 (past kl_high: critical on its own).  The earliest failure owns the run.
    n = 400
    rng = np.random.default_rng(0)
    s = np.arange(n)

    def ramp(a: int, tau: float) -> np.ndarray:
        return np.clip((s - a) / tau, 0, 1)

    cols = {
        "reward": 0.5 + ramp(20, 60) + rng.normal(0, 0.03, n),
        "acc": 0.3 - 0.25 * ramp(30, 120) + rng.normal(0, 0.02, n),
        "kl": 0.01 + 0.02 * ramp(0, 40) + 0.5 * (1 - np.exp(-np.clip(s - 80, 0, None) / 30)) + rng.normal(0, 0.003, n),
        "entropy": 1.8 + rng.normal(0, 0.01, n),
        "completions/mean_length": 150 + rng.normal(0, 3, n),
        "grad_norm": 0.4 + rng.normal(0, 0.02, n),
    }
    d = diagnose(dc.jsonl_run(s, cols))
    assert (d.verdict, d.top.id) == ("cheating", "reward_hacking"), d
    assert d.top.onset_step < 80
    # the KL's climb stays in the report, as a note naming the hack it follows, in both languages
    f = {x.id: x for x in d.findings}["kl_blowup"]
    assert f.severity == "info" and f.action is None and f.evidence["consequence_of"] == "reward_hacking"
    assert finding_summary(f, "en").startswith("A consequence of reward hacking (since step")
    assert "后果" in finding_summary(f, "zh")


def test_nothing_is_the_aftermath_of_a_break_it_shares_the_first_logged_point_with():
    """A finding already there at the log's first point follows nothing the log shows: with the
    break dated at that point too, the order is not in the log, so it keeps its own severity."""
    ctx = _ctx(simulate_rl("healthy", seed=1000, steps=200))
    first = ctx.first_step()
    found = [_f("numeric_instability", "critical", first), _f("truncation_starvation", "critical", first)]
    out = {f.id: f for f in _aftermath(found, ctx)}
    assert out["truncation_starvation"].severity == "critical"
    assert "aftermath_of" not in out["truncation_starvation"].evidence


def test_answers_cut_from_the_first_point_are_dated_there_and_named_beside_a_blow_up():
    """Answers cut at the cap from the first logged point (97% then 100%) while the loss and the grad
    norm explode in the first steps: the cut is as old as the log (not dated where the length last
    bent), and both failures are named -- neither can be called the other's aftermath."""
    from diag_curves import S, healthy, jitter

    boom = np.where(S <= 4, 1e4, 1.0)
    trunc = np.where(S == 1, 0.97, 1.0)
    length = np.where(S == 1, 124.9, 128.0)
    reward = np.where(S == 1, 0.02, 0.0) + np.abs(jitter(0.0005, 3)) * (S % 7 == 0)
    run = healthy(
        5,
        reward=reward,
        acc=None,
        kl=np.where(S <= 4, 1e3, 0.04) + np.abs(jitter(0.002, 4)),
        gnorm=boom * (0.8 + np.abs(jitter(0.05, 5))),
        loss=boom * 0.01 + jitter(0.001, 6),
        trunc=trunc,
        len=length,
        entropy=None,
    )
    d = diagnose(run)
    warned = {f.id: f for f in d.findings if f.severity != "info"}
    assert d.verdict == "dead" and d.findings[0].id == "numeric_instability", [(f.id, f.severity) for f in d.findings]
    assert "truncation_starvation" in warned, [(f.id, f.severity, f.onset_step) for f in d.findings]
    assert warned["truncation_starvation"].onset_step == int(S[0])


@pytest.mark.parametrize("seed", [4, 11])
def test_a_cut_the_score_climbed_under_is_not_dated_at_the_first_point(seed):
    """Logged every 10 steps: answers at the cap from the first point while the reward climbed
    0.3 -> 0.9 under the cut, then the entropy ran away and the reward died.  The cut starved nothing
    at the start: truncation_starvation is not dated at the first step (from where it would own the
    run, and the blow-up would read as its aftermath)."""
    from rlvitals.run import Run

    s = np.arange(10, 201, 10)
    r = np.random.default_rng(seed)

    def noise(sd: float) -> np.ndarray:
        return r.normal(0, sd, s.size)

    run = Run.from_arrays(
        "cut-from-the-start",
        s,
        dict(
            reward=np.where(s < 150, np.minimum(0.3 + 0.006 * s, 0.9), 0.02) + noise(0.1),
            trunc=np.clip(np.where(s < 160, 0.98, 0.55) + noise(0.02), 0, 1),
            len=np.where(s < 160, 511.0, 400.0) + noise(3),
            entropy=np.where(s < 140, 0.3, 0.3 + 0.025 * (s - 140)) + np.abs(noise(0.03)),
            gnorm=0.5 + np.abs(noise(0.1)),
        ),
    )
    f = next(f for f in diagnose(run).findings if f.id == "truncation_starvation")
    assert f.onset_step != int(s[0]), (f.onset_step, f.severity)


def _half_cut(zero_std: float):
    from rlvitals.run import Run

    s = np.arange(5, 101, 5)
    r = np.random.default_rng(3)
    n = s.size
    return Run.from_arrays(
        "half-cut",
        s,
        dict(
            reward=np.full(n, -2.0),
            trunc=np.clip(0.52 + r.normal(0, 0.08, n), 0, 1),
            len=101 + r.normal(0, 1.5, n),
            kl=0.003 + np.abs(r.normal(0, 0.0005, n)),
            gnorm=0.001 + np.abs(r.normal(0, 0.0003, n)),
            adv_std=np.full(n, np.sqrt(1 - zero_std)),  # what frac_reward_zero_std stands in for
        ),
    )


def test_finished_answers_that_scored_the_floor_say_the_cap_is_not_the_cause():
    """Half the answers cut at the cap, the reward flat at its floor, every group uniform
    (frac_reward_zero_std 1: adv_std 0): the half that finished scored the floor too, so the cap is
    not what keeps the reward down -- truncation_starvation stands back (and is ruled out by adv_std)."""
    from rlvitals.diagnose.predicates import pred

    run = _half_cut(1.0)
    assert pred(_ctx(run), "finished_scored_alike").holds
    d = diagnose(run)
    assert d.verdict == "dead" and "truncation_starvation" not in [f.id for f in d.findings], [
        (f.id, f.severity) for f in d.findings
    ]
    assert any(r.lookalike == "truncation_starvation" and r.metric == "adv_std" for r in d.findings[0].ruled_out)


def test_groups_with_spread_leave_the_cap_its_case():
    from rlvitals.diagnose.predicates import pred

    assert not pred(_ctx(_half_cut(0.75)), "finished_scored_alike").holds  # a quarter of the groups differ


def test_a_chains_owner_that_another_finding_explains_leaves_its_loser_standing():
    # the reward gamed first, a KL blow-up after it (a chain: the KL is the gaming's cost), but the
    # truth scored nothing from the first step: data_too_hard explains the gaming and drops it.  The
    # KL must not be left as "a consequence of reward hacking" in a report that no longer shows it.
    from rlvitals.diagnose.verdict import resolve

    ctx = _ctx(simulate_rl("healthy", seed=1000, steps=200))
    found = [_f("data_too_hard", "critical", 0), _f("reward_hacking", "critical", 4), _f("kl_blowup", "critical", 120)]
    out = resolve(found, ctx)
    ids = {f.id for f in out}
    assert "reward_hacking" not in ids and "kl_blowup" in ids
    for f in out:
        for key in ("consequence_of", "aftermath_of"):
            assert f.evidence.get(key) in (None, *ids), (f.id, f.evidence)
