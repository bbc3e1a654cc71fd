"""Short or sparse logs: "no finding" is never reported as health unless the goal improved.

A run logged every 10 steps (TRL's default) has a few dozen points; below `min_points` no trend can
be called flat, so most rules stay silent.  Then the report must say that learning is not shown yet
(not "healthy, nothing to change"), and a goal logged at the very same value at every point (a
reward of exactly 0) is not learning however few points there are.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from realdata import REAL_LOGS

from rlvitals.diagnose import diagnose
from rlvitals.ingest import read
from rlvitals.render.markdown import render_markdown
from rlvitals.render.terminal import render_text
from rlvitals.run import Run
from rlvitals.simulate import simulate


def thinned(run: Run, every: int) -> Run:
    """`run` as a logger that writes every `every`-th step would have kept it."""
    out = {}
    for name, s in run.series.items():
        keep = (s.steps % every) == 0
        out[name] = (s.steps[keep], s.values[keep])
    steps = sorted({int(x) for st, _ in out.values() for x in st})
    cols = {k: dict(zip(st.tolist(), v.tolist(), strict=True)) for k, (st, v) in out.items()}
    arrays = {k: np.array([c.get(x, np.nan) for x in steps]) for k, c in cols.items()}
    return Run.from_arrays(run.name + "-thin", np.array(steps), arrays, format="simulated", source="test")


def test_zero_reward_at_every_logged_step_is_dead_however_few_points():
    full = read(str(REAL_LOGS["trl_zero_reward"])) if "trl_zero_reward" in REAL_LOGS else None
    steps = np.arange(10, 60, 10)
    # no length logged: nothing says why, so "not learning -- cause undetermined" with the candidates
    run = Run.from_arrays("zeros", steps, {"reward": np.zeros(5), "kl": np.zeros(5)}, format="simulated", source="test")
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.id == "not_learning"
    ev = d.top.evidence
    assert ev["goal_trend"] == "constant" and ev["goal_points"] == 5 and ev["goal_span_steps"] == 40
    assert ev["candidates"] != "—"  # the causes it could be are named
    # the length at its maximum at every point too: the answers are cut, the cause is named
    capped = Run.from_arrays(
        "zeros-capped",
        steps,
        {"reward": np.zeros(5), "len": np.full(5, 256.0), "kl": np.zeros(5)},
        format="simulated",
        source="test",
    )
    d = diagnose(capped)
    assert d.verdict == "dead" and d.top.id == "truncation_starvation"
    if full is not None:
        assert diagnose(full).verdict == "dead"


def test_constant_goal_needs_a_span_of_steps():
    # the first three steps of a run all scoring 0 say nothing yet
    run = Run.from_arrays("early", np.arange(1, 6), {"reward": np.zeros(5)}, format="simulated", source="test")
    d = diagnose(run)
    assert not any(f.id == "not_learning" for f in d.findings)


def test_constant_accuracy_at_the_ceiling_is_not_not_learning():
    steps = np.arange(10, 110, 10)
    run = Run.from_arrays("easy", steps, {"acc": np.ones(10), "reward": np.ones(10)}, format="simulated", source="test")
    assert not any(f.id == "not_learning" for f in diagnose(run).findings)


def test_a_score_pinned_at_its_ceiling_from_the_first_step_is_stalled_not_solved():
    # every sample of every step scored the maximum: each group's advantage is 0, no step moves the
    # weights -- the run started where it is and learns nothing (the lesson's adv_std < 0.2, "stop")
    steps = np.arange(0, 45)
    run = Run.from_arrays("pinned", steps, {"reward": np.ones(45)}, format="simulated", source="test")
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.id == "stalled"
    assert d.top.severity == "critical" and "goal_unhurt" not in d.top.evidence
    # a noisy reward near the same ceiling is a run resumed at its plateau: the ceiling excuses it
    noisy = np.clip(1.0 - np.abs(np.random.default_rng(2).normal(0, 0.02, 45)), 0, 1)
    run = Run.from_arrays("resumed", steps, {"reward": noisy}, format="simulated", source="test")
    assert diagnose(run).verdict != "dead"


def test_short_prefix_with_no_rise_is_not_called_healthy():
    d = diagnose(simulate("healthy", seed=3, steps=200).upto(12))
    assert d.verdict == "learning" and not any(f.severity != "info" for f in d.findings)
    assert d.run["goal"]["improved"] is False and d.run["goal"]["points"] == 12
    for lang, healthy in (("en", "healthy run"), ("zh", "健康的训练")):
        text = render_text(d, lang)
        assert healthy not in text
        assert ("not shown yet" in text) if lang == "en" else ("还看不出在学" in text)
        assert healthy not in render_markdown(d, lang)
    assert "not shown yet" in str(d)


def test_a_sparse_log_that_covers_enough_steps_is_not_told_to_wait_for_points():
    # ten window means over 100 steps cover the steps a judgement asks for: a noisy flat reward there
    # is undecided by its noise, so the report does not ask for min_points points; twelve points of a
    # dense log still do
    r = np.random.default_rng(4)
    steps = np.arange(10, 101, 10)
    run = Run.from_arrays("sparse", steps, {"reward": 0.25 + r.normal(0, 0.12, 10)}, format="simulated", source="t")
    d = diagnose(run)
    assert d.verdict == "learning" and d.run["goal"]["enough"] and not d.run["goal"]["improved"]
    assert "not shown yet" in str(d) and "points are needed" not in str(d)
    short = diagnose(simulate("healthy", seed=3, steps=200).upto(12))
    assert not short.run["goal"]["enough"] and "24 points are needed" in str(short)


def test_a_healthy_run_whose_goal_improved_still_reads_healthy():
    d = diagnose(simulate("healthy", seed=3, steps=200))
    assert d.run["goal"]["improved"] is True
    assert "healthy run" in render_text(d, "en") and "not shown yet" not in render_text(d, "en")


def test_thinned_healthy_run_stays_silent_and_honest():
    for seed in range(5):
        d = diagnose(thinned(simulate("healthy", seed=seed, steps=300), 10))
        assert not any(f.severity != "info" for f in d.findings)
        # 30 points: enough to see a 0.3 -> 0.6 rise, so the run is called learning for a reason
        assert d.run["goal"]["improved"] is True, seed


def test_goal_summary_is_json_safe():
    d = diagnose(simulate("stalled", seed=0, steps=60))
    json.dumps(d.run["goal"])
    assert set(d.run["goal"]) == {"metric", "start", "end", "points", "span", "improved", "min_points", "enough"}


@pytest.mark.parametrize("seed", [1, 2])
def test_a_short_run_whose_reward_climbs_steadily_is_no_stall(seed):
    """32 updates of a small GRPO run: the entropy holds (the policy looks still), the reward climbs
    0.2 -> 0.4 steadily (the shape says rising) but within 2.5 standard errors of its fitted change.
    "Nothing moves" would contradict the reward's own curve: it is not a stall (at most, not shown yet)."""
    from rlvitals.diagnose.context import Ctx
    from rlvitals.diagnose.symptoms import trend
    from rlvitals.diagnose.thresholds import get
    from rlvitals.shapes import shapes_of

    s = np.arange(1, 33)
    r = np.random.default_rng(seed)
    run = Run.from_arrays(
        "short-climb",
        s,
        dict(
            reward=np.clip(0.2 + 0.006 * (s - 1) + r.normal(0, 0.13, s.size), 0, 1),
            entropy=0.28 + r.normal(0, 0.04, s.size),
            len=100 + r.normal(0, 10, s.size),
            gnorm=np.abs(0.8 + r.normal(0, 0.3, s.size)),
        ),
    )
    ctx = Ctx(run, dict(shapes_of(run)), None)
    t = trend(ctx, "reward")
    assert ctx.word("reward") == "rising" and t is not None and t.fit_move < get("stall_drift_z") * t.fit_se
    d = diagnose(run)
    assert d.verdict == "learning" and "stalled" not in [f.id for f in d.findings], [
        (f.id, f.severity) for f in d.findings
    ]


def _still_policy_jumpy_grad_norm() -> Run:
    """Two completions a step at a tiny learning rate: entropy and KL still, the reward and the grad
    norm jumping from step to step (the measurement's noise), the clip fraction not applicable."""
    s = np.arange(1, 161)
    r = np.random.default_rng(1)
    n = s.size
    return Run.from_arrays(
        "still-policy",
        s,
        dict(
            reward=-0.55 + r.normal(0, 0.8, n),
            entropy=0.61 + r.normal(0, 0.01, n),
            kl=1.0 + r.normal(0, 0.05, n),
            len=62 + r.normal(0, 3, n),
            gnorm=np.abs(1.3 + r.normal(0, 0.75, n)),
            clip_frac=np.zeros(n),
            lr=np.linspace(3e-7, 2e-7, n),
        ),
    )


def test_a_still_policy_is_not_overshooting():
    """stalled says the policy does not move; "the updates are too big" beside it contradicts it: a
    jumpy grad norm with entropy and KL still is the measurement's (registry: stalled explains
    lr_too_high)."""
    from rlvitals.diagnose import lr_too_high
    from rlvitals.diagnose.context import Ctx
    from rlvitals.shapes import shapes_of

    run = _still_policy_jumpy_grad_norm()
    alone = lr_too_high.check(Ctx(run, dict(shapes_of(run)), None))
    assert alone is not None and alone.severity != "info"  # the detector sees jitter on its own
    d = diagnose(run)
    assert d.verdict == "dead" and d.findings[0].id == "stalled"
    assert not [f for f in d.findings if f.id == "lr_too_high" and f.severity != "info"]


@pytest.mark.parametrize("seed", [11, 13, 16])
def test_an_accuracy_in_its_own_units_has_no_rate_ceiling(seed):
    """An "acc" read from a correctness term that pays -6..4 (a game's score) ends near 1.1: that is
    no accuracy at its ceiling (0.9 of a rate), so a goal that did not improve in 100 points while
    the policy moved is not learning -- not "learning" by a rate's ceiling it never had."""
    s = np.arange(1, 101)
    r = np.random.default_rng(seed)
    acc = r.choice([-6.0, -3.0, -1.0, 0.0, 1.0, 2.0, 4.0], size=s.size, p=[0.12, 0.14, 0.16, 0.1, 0.08, 0.25, 0.15])
    run = Run.from_arrays(
        "score-as-acc",
        s,
        dict(
            acc=acc,
            reward=acc + 0.5 + r.normal(0, 0.3, s.size),
            kl=np.linspace(0.001, 0.05, s.size) + np.abs(r.normal(0, 0.002, s.size)),
            len=300 + r.normal(0, 20, s.size),
        ),
    )
    assert acc.max() > 1 and acc.min() < 0
    d = diagnose(run)
    assert d.verdict == "dead", [(f.id, f.severity) for f in d.findings]


def test_a_kl_logged_as_exactly_0_says_nothing_about_the_policy():
    """A loop with no reference model logs its KL as 0.0 at every step: not computed, not "the policy
    is still".  Beside a noisy reward that shows no trend it must not make the run "stalled" (which
    would read the 0s as weights that never moved), and the vitals call it not applicable."""
    s = np.arange(1, 43)
    r = np.random.default_rng(3)
    run = Run.from_arrays(
        "no-ref",
        s,
        dict(
            reward=0.05 + r.normal(0, 0.012, s.size),
            kl=np.zeros(s.size),
            clip_frac=np.abs(0.0006 + r.normal(0, 0.0002, s.size)),
            len=350 + r.normal(0, 20, s.size),
            gnorm=np.abs(4.0 + r.normal(0, 0.8, s.size)),
        ),
    )
    d = diagnose(run)
    assert "stalled" not in [f.id for f in d.findings], [(f.id, f.severity) for f in d.findings]
    assert "kl" in d.run["not_applicable"]


def _noisy_reward_entropy_halving(evals: list[float]) -> Run:
    """One task per step: the reward is all noise; the entropy halves over the last stretch (to a
    level a reasoning model keeps); an eval every 15-20 steps, fewer points than a trend needs."""
    s = np.arange(1, 101)
    r = np.random.default_rng(7)
    ent = np.where(s < 62, 0.30, 0.30 - 0.18 * (s - 62) / 38) + r.normal(0, 0.04, s.size)
    val = np.full(s.size, np.nan)
    val[[9, 29, 49, 69, 84, 99]] = evals
    return Run.from_arrays(
        "few-evals", s, dict(reward=2.0 + r.normal(0, 2.0, s.size), entropy=ent, val_acc=val), source="test"
    )


def test_a_few_evals_that_rose_across_the_entropys_fall_say_it_learned():
    """The eval, six points, rose 0.13 and kept it while the entropy halved: the narrowing is
    convergence, and the noisy training reward's flat stretch does not make the run 'not learning'."""
    d = diagnose(_noisy_reward_entropy_halving([0.72, 0.71, 0.72, 0.75, 0.88, 0.89]))
    assert not [f.id for f in d.findings if f.severity != "info"], d.findings
    assert d.verdict == "learning"


def test_a_few_flat_evals_do_not_excuse_the_entropys_fall():
    """The same run with the eval flat at every point: the evals say nothing was gained, so the fall
    (or the goal that did not move) is still reported."""
    d = diagnose(_noisy_reward_entropy_halving([0.72, 0.71, 0.73, 0.72, 0.71, 0.72]))
    assert d.verdict == "dead" and d.top.id in ("entropy_collapse", "not_learning"), d.findings


def test_a_noisy_training_reward_is_not_not_learning_while_a_few_evals_climb():
    """One task a step: the training reward is all noise and shows no gain over 100 steps, while the
    eval, logged five times, climbs 0.15: the eval is the better witness, and until it has points
    enough for a trend of its own the run is not called 'not learning'."""
    s = np.arange(1, 101)
    r = np.random.default_rng(3)
    val = np.full(s.size, np.nan)
    val[[19, 39, 59, 79, 99]] = [0.40, 0.43, 0.47, 0.52, 0.55]
    reward = 2.0 + r.normal(0, 2.0, s.size)
    ent = 0.30 - 0.0006 * s + r.normal(0, 0.02, s.size)  # the policy moves (no stall), slowly
    run = Run.from_arrays("noisy-train", s, dict(reward=reward, entropy=ent, val_acc=val), source="test")
    d = diagnose(run)
    assert "not_learning" not in [f.id for f in d.findings]
    # the report names the eval it has, instead of asking for one
    text = " ".join(render_text(d, lang="en").split())
    assert "went 0.4 → 0.55 over 5 points, too few for a trend of its own" in text, text
    assert "if you can log one" not in text
    assert "点数还不够看出趋势" in render_text(d, lang="zh")
    val[[19, 39, 59, 79, 99]] = [0.40, 0.41, 0.40, 0.39, 0.41]  # the evals flat too: not learning
    run = Run.from_arrays("noisy-both", s, dict(reward=reward, entropy=ent, val_acc=val), source="test")
    assert diagnose(run).top.id == "not_learning"


def test_a_few_evals_that_climb_say_the_weights_move():
    """A training reward that holds still for 120 steps (a score that saturated early), nothing else
    logged, and an eval logged five times climbing 0.15: something moves, so not "stalled"; with the
    evals flat too, nothing moves."""
    s = np.arange(1, 121)
    r = np.random.default_rng(3)
    reward = 0.5 + r.normal(0, 0.02, s.size)
    val = np.full(s.size, np.nan)
    val[[19, 44, 69, 94, 119]] = [0.40, 0.43, 0.47, 0.52, 0.55]
    d = diagnose(Run.from_arrays("evals-climb", s, dict(reward=reward, val_acc=val), source="test"))
    assert "stalled" not in [f.id for f in d.findings]
    val[[19, 44, 69, 94, 119]] = [0.40, 0.41, 0.40, 0.39, 0.41]
    d = diagnose(Run.from_arrays("evals-flat", s, dict(reward=reward, val_acc=val), source="test"))
    assert d.top.id == "stalled" and d.verdict == "dead"


def _rise_then(tail: np.ndarray, seed: int = 5) -> Run:
    """A short run (under min_points) whose accuracy climbs to about 0.5 over a dozen steps, then `tail`."""
    rng = np.random.default_rng(seed)
    climb = np.clip(np.linspace(0.05, 0.5, 12) + rng.normal(0, 0.04, 12), 0, 1)
    acc = np.concatenate((climb, tail))
    n = acc.size
    entropy = np.linspace(0.7, 0.3, n) + rng.normal(0, 0.02, n)
    return Run.from_arrays(
        "short", np.arange(n), {"acc": acc, "reward": acc, "entropy": entropy}, format="simulated", source="test"
    )


def test_a_short_run_whose_goal_rose_then_scored_nothing_is_dead():
    # seven steps at exactly 0 after a climb to ~0.5: all right became all wrong, whatever the length
    d = diagnose(_rise_then(np.zeros(7)))
    assert d.verdict == "dead" and d.top.id == "not_learning"
    assert d.top.evidence["goal_trend"] == "wiped_out" and d.top.onset_step == 12
    assert d.top.evidence["goal_peak"] > 0.35
    text = render_text(d, lang="en")
    assert "then scored nothing" in text and "did not improve" not in text


def test_a_short_run_still_scoring_or_barely_down_is_not_judged_by_its_length():
    # the same climb, then a dip that is not all-wrong, or only three points at 0: undecided, not dead
    assert diagnose(_rise_then(np.array([0.3, 0.2, 0.15, 0.3, 0.12, 0.2, 0.25]))).verdict == "learning"
    assert diagnose(_rise_then(np.array([0.4, 0.45, 0.5, 0.4, 0.0, 0.0, 0.0]))).verdict == "learning"


def test_a_low_score_with_one_lucky_step_then_zeros_is_not_wiped_out():
    # a score of a few samples a step, low all along: one lucky step is no level it held
    acc = np.array([0.05, 0.1, 0.075, 0.125, 0.05, 0.1, 0.075, 0.1, 0.35, 0.075, 0.1, 0.05, 0.125, 0, 0, 0, 0])
    run = Run.from_arrays("lucky", np.arange(acc.size), {"acc": acc}, format="simulated", source="test")
    d = diagnose(run)
    assert all(f.evidence.get("goal_trend") != "wiped_out" for f in d.findings), d.top


def test_a_noisy_low_score_dipping_under_near_zero_has_not_scored_nothing():
    # small batches near 0.1 after a lucky first step: the last points sit under near_zero but keep a
    # fair share of the level before them -- a noisy low score, not one that died
    acc = np.array([0.45, 0.1, 0.25, 0.15, 0.14, 0.1, 0.3, 0.02, 0.06, 0.09, 0.06])
    run = Run.from_arrays("low", np.arange(acc.size), {"acc": acc}, format="simulated", source="test")
    d = diagnose(run)
    assert all(f.evidence.get("goal_trend") != "wiped_out" for f in d.findings), d.top
