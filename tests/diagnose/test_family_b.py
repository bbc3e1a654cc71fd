"""reward_hacking, length_hacking, truncation_starvation, data_too_easy/hard, stalled, plateau and
not_learning on runs built from their mechanisms (the lesson's confusable pairs), including the
peers' own scenario files."""

from __future__ import annotations

from pathlib import Path

import diag_curves as dc
import numpy as np
from diag_curves import N, S

from rlvitals.diagnose import diagnose
from rlvitals.run import Run, Series

PEERS = Path(__file__).resolve().parents[1] / "fixtures" / "peers"


def ids(d):
    return [f.id for f in d.findings]


def test_plateau_on_a_smooth_approach_is_dated_where_the_gains_ran_out():
    # a smooth exponential approach (tau 35 steps: 90% of the rise by step ~80), the goal an eval
    # accuracy logged every 10 steps: the two-line knee of such a curve sits late, where the slope
    # is exactly 0; the gains ran out near the 90% settling point
    r = np.random.default_rng(3)
    acc = 0.2 + 0.16 * (1 - np.exp(-(S - 1) / 35.0)) + r.normal(0, 0.012, N)
    run = dc.healthy(0, acc=acc, reward=acc + 0.3)
    ev = S[::10]
    run.series["val_acc"] = Series(
        "val_acc", ev, 0.2 + 0.16 * (1 - np.exp(-(ev - 1) / 35.0)) + r.normal(0, 0.01, ev.size)
    )
    d = diagnose(run)
    p = next(f for f in d.findings if f.id == "plateau")
    assert p.severity == "info" and d.verdict == "learning"
    assert 50 <= p.onset_step <= 110


def _cap_cut(recover_to: float):
    """The cap is cut at step 90: every answer is cut (trunc 1.0), the reward drops to 0, then the policy
    learns shorter answers (trunc back to 0.3) and the reward climbs back to `recover_to`."""
    r = np.random.default_rng(5)
    after = np.clip((S - 90) / (N - 90), 0, 1)
    trunc = np.where(S < 90, 0.002, 1.0 - 0.7 * after) + r.normal(0, 0.01, N)
    reward = np.where(S < 90, 0.4 + 0.25 * S / 90, recover_to * after) + r.normal(0, 0.02, N)
    acc = np.where(S < 90, 0.15 + 0.2 * S / 90, 0.01) + r.normal(0, 0.005, N)
    length = np.where(S < 90, 85 + 0.4 * S, 24 - 8 * after) + r.normal(0, 1.0, N)
    return dc.healthy(
        0,
        trunc=np.clip(trunc, 0, 1),
        reward=reward,
        acc=acc,
        len=length,
        adv_std=np.where(S < 90, 0.8, 0.02 + 0.7 * after),
    )


def test_truncation_that_struck_and_eased_is_still_starvation():
    # the truncation rate ends at 0.3 (below trunc_starve) but it peaked at 1.0, and the reward
    # it took with it (0.65 before the cut) is only back to 0.2: the run is dead from the cut
    d = diagnose(_cap_cut(0.2))
    assert d.verdict == "dead" and d.top.id == "truncation_starvation", ids(d)
    ev = d.top.evidence
    assert ev["trunc_peak"] > 0.9 and ev["reward_before_cut"] > 0.55 and ev["reward_end"] < 0.3
    assert abs(d.top.onset_step - 90) <= 6


def test_truncation_that_struck_but_the_reward_came_back_is_not_starvation():
    d = diagnose(_cap_cut(0.75))
    assert "truncation_starvation" not in [f.id for f in d.findings if f.severity == "critical"]


def _cut_from_the_start(learns: bool):
    """Every answer is cut from step one (trunc ~0.97, lengths at the cap); the reward climbs 0.2 ->
    0.85 under that cut and its last tenth falls to 0.3 (`learns`), or it stays at 0.2 throughout."""
    r = np.random.default_rng(11)
    rise = dc.ramp(0.2, 0.85 if learns else 0.2, 1, 100)
    reward = np.where((S > 180) & learns, 0.3, rise) + r.normal(0, 0.04, N)
    return dc.healthy(
        0,
        trunc=np.clip(0.97 + r.normal(0, 0.02, N), 0, 1),
        reward=reward,
        acc=None,
        len=np.minimum(512.0, 505 + r.normal(0, 4.0, N)),
    )


def test_a_cut_the_reward_learned_through_does_not_starve_it():
    # the reward rose 0.2 -> 0.85 while the cap cut every answer: whatever it loses later, the cap
    # was cutting just as much while it gained, so the cap is not named for the fall
    d = diagnose(_cut_from_the_start(learns=True))
    assert "truncation_starvation" not in ids(d), ids(d)
    # the same cut with a reward that never left 0.2 starves it
    d = diagnose(_cut_from_the_start(learns=False))
    assert d.verdict == "dead" and d.top.id == "truncation_starvation", ids(d)


def test_answers_running_into_the_cap_are_not_called_length_hacking_before_the_reward_decides():
    # the lesson's pair: length growing toward the cap with truncation rising is length hacking when
    # the reward rises with it and truncation starvation when the reward collapses; in the first
    # steps after the length bent the reward has not said which, so neither is named length_hacking
    from rlvitals.simulate import simulate

    for seed in (0, 1):
        run = simulate("truncation_starvation", seed=seed, steps=200)
        onset = run.meta["truth"]["onset_step"]
        named = None
        for step in range(onset, onset + 30):
            warned = [f.id for f in diagnose(run.upto(step)).findings if f.severity != "info"]
            assert "length_hacking" not in warned, (seed, step, warned)
            if "truncation_starvation" in warned:
                named = step
                break
        assert named is not None and named - onset <= 15


def test_length_hacking_with_truncation_still_flat_is_named_on_the_way_up():
    from rlvitals.simulate import simulate

    run = simulate("length_hacking", seed=0, steps=200)
    onset = run.meta["truth"]["onset_step"]
    first = next(
        s
        for s in range(onset, 200, 2)
        if any(f.id == "length_hacking" and f.severity != "info" for f in diagnose(run.upto(s)).findings)
    )
    assert first - onset <= 20


def test_a_reward_that_is_the_verifier_creeping_from_zero_is_still_all_wrong():
    # prompts far too hard: acc (and the reward, which is the verifier's score) creep 0.0003 -> 0.002,
    # adv_std ~0.1: the reward's "climb" is the accuracy's, and 0.2 points of accuracy is no gain
    r = np.random.default_rng(11)
    acc = np.clip(0.0003 + 0.002 * S / N + r.normal(0, 0.0004, N), 0, None)
    d = diagnose(
        dc.healthy(
            0,
            acc=acc,
            reward=acc.copy(),
            adv_std=0.03 + 0.1 * S / N + r.normal(0, 0.02, N),
            len=np.full(N, 90.0) + r.normal(0, 2, N),
        )
    )
    assert d.verdict == "dead" and d.top.id == "data_too_hard", ids(d)


def test_a_format_term_lifting_the_reward_over_an_all_wrong_accuracy_is_not_called_too_hard():
    # the same accuracy, but the reward climbs 0.1 -> 0.4 through something else: not "nothing learned"
    r = np.random.default_rng(11)
    acc = np.clip(0.0003 + 0.002 * S / N + r.normal(0, 0.0004, N), 0, None)
    d = diagnose(
        dc.healthy(
            0,
            acc=acc,
            reward=0.1 + 0.3 * S / N + r.normal(0, 0.02, N),
            adv_std=0.03 + 0.1 * S / N + r.normal(0, 0.02, N),
        )
    )
    assert "data_too_hard" not in ids(d)


def test_a_short_noisy_goal_drifting_down_by_chance_is_not_not_learning():
    # 49 points of a very noisy accuracy (4 prompts a step) with a slight chance drift down: undecided
    n = 49
    s = np.arange(1, n + 1)
    r = np.random.default_rng(2)
    acc = np.clip(0.22 - 0.0005 * s + r.normal(0, 0.12, n), 0, 1)
    run = Run.from_arrays(
        "noisy",
        s,
        dict(
            acc=acc,
            reward=acc + 0.25,
            entropy=1.85 + r.normal(0, 0.03, n),
            kl=0.001 * s,
            adv_std=0.85 + r.normal(0, 0.15, n),
        ),
    )
    assert "not_learning" not in ids(diagnose(run))


def test_an_accuracy_at_its_ceiling_is_not_not_learning():
    n = 60
    s = np.arange(1, n + 1)
    r = np.random.default_rng(4)
    acc = np.clip(0.95 - 0.0003 * s + r.normal(0, 0.02, n), 0, 1)
    run = Run.from_arrays(
        "easy",
        s,
        dict(
            acc=acc,
            reward=acc.copy(),
            entropy=1.85 + r.normal(0, 0.01, n),
            kl=0.001 * s,
            adv_std=0.45 + r.normal(0, 0.05, n),
        ),
    )
    d = diagnose(run)
    assert "not_learning" not in ids(d) and d.verdict == "learning"


def test_reward_std_death_read_from_the_zero_spread_group_share():
    # rlprobe's reward_std_death: its adv_std is batch-normalised (~1 throughout) while the share of
    # groups with zero reward spread climbs 0.05 -> 0.9: the lesson's mechanism, measured directly
    from rlvitals.ingest import read

    d = diagnose(read(str(PEERS / "rlprobe" / "reward_std_death" / "steps.jsonl")))
    f = next(f for f in d.findings if f.id == "data_too_easy")
    assert f.severity == "warning" and f.evidence["zero_std_groups_end"] > 0.85
    assert f.evidence["adv_std_from"] == "zero_variance_group_frac" and 250 <= f.onset_step <= 420
    # the healthy file logs the same share, flat at 0.05: nothing warns
    h = diagnose(read(str(PEERS / "rlprobe" / "healthy" / "steps.jsonl")))
    assert h.verdict == "learning" and all(x.severity == "info" for x in h.findings)


def test_rlprobe_length_paid_by_an_unlogged_term_is_length_hacking():
    # rlprobe's reward_hack_length: a length term that is not among the logged components; the reward
    # beyond correctness + format climbs 0 -> 0.24 in step with the length (x3.3) while the
    # correctness term only keeps (and slows) its course: the extra length bought nothing
    from rlvitals.ingest import read

    d = diagnose(read(str(PEERS / "rlprobe" / "reward_hack_length" / "steps.jsonl")))
    assert d.verdict == "cheating" and d.top.id == "length_hacking", ids(d)
    ev = d.top.evidence
    assert ev["reward_unexplained_end"] > 0.15 and abs(ev["reward_unexplained_start"]) < 0.01
    assert ev["acc_rate_after_per100"] < ev["acc_rate_before_per100"] and 200 <= d.top.onset_step <= 300


def test_frozen_weights_with_a_sparse_eval_and_a_chance_dip_are_stalled():
    # the optimizer never applies its updates: entropy still to 0.1%, kl and clip exactly 0, ratio
    # exactly 1; acc dips 3 points in its last tenth by chance and a sparse eval (every 10 steps,
    # 16 points) is too short to judge: the dense scores and the still policy decide -- dead, stalled
    r = np.random.default_rng(8)
    n = 150
    s = np.arange(1, n + 1)
    acc = np.clip(0.28 + r.normal(0, 0.03, n) - np.where(s > 135, 0.03, 0.0), 0, 1)
    run = Run.from_arrays(
        "frozen",
        s,
        dict(
            acc=acc,
            reward=acc + 0.25,
            entropy=1.83 + r.normal(0, 0.002, n),
            kl=np.zeros(n),
            clip_frac=np.zeros(n),
            ratio_mean=np.ones(n),
            adv_std=0.89 + r.normal(0, 0.015, n),
            gnorm=0.01 + r.normal(0, 2e-4, n),
        ),
    )
    ev = s[::10]
    run.series["val_acc"] = Series("val_acc", ev, 0.29 + r.normal(0, 0.01, ev.size))
    d = diagnose(run)
    assert d.verdict == "dead" and d.top.id == "stalled", ids(d)


def test_a_logged_length_term_switched_on_is_length_hacking_not_reward_hacking():
    # the RL loop adds a length term mid-run: the reward jumps through the logged `length` component
    # before the answers have grown; the correctness term keeps its pace -- the first warning names
    # length_hacking (the term that pays), never reward_hacking
    from simruns import simulate_rl

    for seed in (1001, 1004):
        run = simulate_rl("length_hacking", seed=seed, steps=200)
        onset = run.meta["truth"]["onset_step"]
        first = None
        for step in range(onset, onset + 20):
            warned = [f.id for f in diagnose(run.upto(step)).findings if f.severity != "info"]
            if warned:
                first = warned[0]
                break
        assert first == "length_hacking", (seed, step, warned)


def test_a_partly_logged_reward_whose_other_terms_are_learned_all_along_is_no_hidden_length_term(tmp_path):
    # a TRL trainer_state logs one reward function (accuracy) while the total also carries a format
    # score learned from step one; a healthy long-reasoning run's answers grow x2 with the accuracy.
    # The unexplained part rose before the length bent as much as after: no hidden length term
    from rlvitals.ingest import read, write_run
    from rlvitals.simulate import simulate

    dest = tmp_path / "run.trl-state"
    write_run(simulate("healthy_long", seed=101, steps=200), "trl-state", dest)
    d = diagnose(read(str(dest), format="trl-state"))
    assert d.verdict == "learning" and all(f.severity == "info" for f in d.findings), ids(d)


def test_truncation_that_follows_a_kl_jump_is_the_blow_ups_not_starvation():
    # a KL blow-up: the KL jumps x6 in a step, entropy to 0, answers turn to long garbage that the cap
    # cuts (trunc 0 -> 0.5) and the reward dies; the truncation is the blow-up's consequence.  A cap cut
    # whose KL only climbs later, while the policy relearns, stays truncation_starvation.
    from simruns import simulate_rl

    d = diagnose(simulate_rl("kl_blowup", seed=2003, steps=600))
    assert d.top.id == "kl_blowup" and "truncation_starvation" not in ids(d), ids(d)
    assert "length_hacking" not in ids(d)  # a broken policy's answers run long: kl_blowup owns that too
    d = diagnose(simulate_rl("truncation_starvation", seed=1000, steps=600))
    assert d.top.id == "truncation_starvation", ids(d)


def test_a_logged_length_bonus_over_the_whole_run_is_length_hacking_not_reward_hacking():
    # 150 steps of the RL loop with a length term switched on: the reward rises through the logged
    # length term while the correctness term gains little -- length_hacking owns it (a length
    # *penalty* paying for shorter answers, as in the prime-rl real log, is not: tested there)
    from simruns import simulate_rl

    d = diagnose(simulate_rl("length_hacking", seed=2001, steps=150))
    assert d.verdict == "cheating" and d.top.id == "length_hacking", ids(d)


def test_a_length_bend_with_too_short_a_course_before_it_is_not_length_hacking():
    # 31 healthy steps of the RL loop (before its KL blow-up): the length bent at step 16 and grew
    # x1.14 with a noisy accuracy; 16 points before the bend cannot show an acceleration
    from simruns import simulate_rl

    run = simulate_rl("kl_blowup", seed=1004, steps=200)
    assert "length_hacking" not in ids(diagnose(run.upto(31)))


def _grew_then_slowed(seed: int) -> Run:
    """Answers x3 over the first 90 steps, then a slow creep; the accuracy flat near 0.74, with a dip
    around where the growth slowed and a climb back to its level; the cap hit a little more often."""
    r = np.random.default_rng(seed)
    s = np.arange(1, 241)
    log_len = np.where(s < 90, np.log(180) + np.log(3) * (s - 1) / 89, np.log(540) + 0.0008 * (s - 90))
    acc = np.clip(0.74 - 0.12 * np.exp(-(((s - 80) / 20.0) ** 2)) + r.normal(0, 0.03, s.size), 0, 1)
    trunc = np.clip(0.008 + 0.06 * np.minimum(s / 120, 1) + r.normal(0, 0.01, s.size), 0, 1)
    cols = {
        "len": np.exp(log_len) * (1 + r.normal(0, 0.05, s.size)),
        "acc": acc,
        "trunc": trunc,
        "reward": acc + 0.1 + 0.1 * np.minimum(np.exp(log_len) / 540, 1) + r.normal(0, 0.02, s.size),
    }
    return Run.from_arrays("longer", s, cols)


def test_answers_that_grew_then_slowed_are_judged_from_where_the_growth_began():
    # the length's bend is where its growth slowed, and the accuracy climbing back out of its dip
    # after it is no gain the longer answers bought: judged from where the growth began, the answers
    # tripled beside a flat truth at every prefix, and the finding is dated there, not at the slowing
    for seed in range(4):
        run = _grew_then_slowed(seed)
        for upto in (150, 180, 210, 240):
            d = diagnose(run.upto(upto))
            f = {x.id: x for x in d.findings}.get("length_hacking")
            assert d.verdict == "cheating" and d.top.id == "length_hacking", (seed, upto, ids(d))
            assert f is not None and f.onset_step is not None and f.onset_step < 60, (seed, upto, f)


def _starved(affine: tuple[float, float]) -> Run:
    """The reward climbs to 0.9, then the answers run into the cap: every group comes back all wrong
    (adv_std to 0, trunc to 1, the reward to 0) -- logged as a * reward + b."""
    r = np.random.default_rng(5)
    s = np.arange(1, 201)
    cut = 1 / (1 + np.exp(-(s - 120) / 5.0))
    score = np.clip(0.3 + 0.6 * np.minimum(s / 80.0, 1.0), 0, 1) * (1 - cut) + r.normal(0, 0.02, s.size)
    a, b = affine
    return Run.from_arrays(
        "starved",
        s,
        dict(
            reward=a * np.clip(score, 0, 1) + b,
            adv_std=np.maximum(0.0, 0.95 * (1 - cut)) + np.abs(r.normal(0, 0.01, s.size)),
            trunc=np.clip(0.02 + 0.96 * cut + r.normal(0, 0.01, s.size), 0, 1),
            len=300 + 212 * cut + r.normal(0, 4, s.size),
            entropy=0.4 + r.normal(0, 0.01, s.size),
        ),
    )


def test_groups_uniform_as_the_goal_gives_back_its_gain_are_not_all_right():
    # read as a rate, a reward of 0.5 is "mostly right"; logged as 0.5 + 0.2 x score it is every
    # answer wrong: the goal gave back its gain, so the uniform groups are not an easy set's
    for affine in ((1.0, 0.0), (0.2, 0.5)):
        d = diagnose(_starved(affine))
        assert d.verdict == "dead", (affine, ids(d))
        assert "data_too_easy" not in ids(d), (affine, ids(d))


def test_a_goal_that_gave_its_gain_back_is_not_learning_beside_an_undecided_heavy_tailed_score():
    # the accuracy climbs 0.3 -> 0.7 and gives most of it back; the other score logged beside it is
    # a heavy-tailed number with a slight upward lean that never rose for real (the loop's own
    # objective, say): a goal that fell back is shown, and only a score that climbs asks more
    for seed in range(8):
        r = np.random.default_rng(seed)
        t = np.arange(120)
        acc = np.clip(np.where(t < 50, 0.3 + 0.4 * t / 50, 0.7 - 0.35 * (t - 50) / 70) + r.normal(0, 0.05, 120), 0, 1)
        other = 0.1 * t / 120 + r.standard_t(2, 120) * 0.08
        d = diagnose(Run.from_arrays("fb", t, {"acc": acc, "reward": other}, format="simulated", source="test"))
        assert d.verdict == "dead" and d.top.id == "not_learning", seed
        assert d.top.evidence["goal_trend"] == "fell_back" and d.top.evidence["goal_peak"] > 0.6
