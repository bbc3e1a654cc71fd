"""Logs written every few steps, each point its window's mean (TRL's logging_steps): rules count steps.

A run logged every 10th step keeps its finding: "enough data" is asked as points that cover the steps
a rule needs (`symptoms.covers`), and a one-step spike is read as the window mean it becomes
(`symptoms.excursions`: 1 + (ratio - 1) / g times the level) -- while a level that stays up is never
mistaken for averaged spikes.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from realdata import REAL_LOGS

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.context import Ctx
from rlvitals.diagnose.symptoms import covers, excursions, gap, per_point
from rlvitals.ingest import read
from rlvitals.run import Run, Series
from rlvitals.shapes import shapes_of
from rlvitals.simulate import simulate


def window_means(run: Run, every: int) -> Run:
    """`run` as a logger that writes every `every` steps the mean over the steps since its last log would."""
    last = max(int(s.steps[-1]) for s in run.series.values() if len(s))

    def thin(s: Series) -> Series:
        keys = np.minimum(((s.steps - 1) // every + 1) * every, last)
        uniq, idx = np.unique(keys, return_inverse=True)
        sums = np.zeros(uniq.size)
        np.add.at(sums, idx, s.values)
        return replace(s, steps=uniq, values=sums / np.bincount(idx))

    out = Run(name=run.name + f"-every{every}", format=run.format, series={k: thin(s) for k, s in run.series.items()})
    out.extras = {k: thin(s) for k, s in run.extras.items()}
    return out


def _ctx(run: Run) -> Ctx:
    return Ctx(run, shapes_of(run))


def test_points_covering_the_steps_are_enough():
    assert covers(24, 23, 24) and not covers(23, 22, 24)  # a point a step: as before
    assert covers(20, 190, 24)  # 20 points every 10 steps: 200 steps
    assert not covers(9, 160, 24)  # fewer than sparse_points: never
    assert not covers(12, 11, 24)  # a dense 12-point prefix stays too short


def test_a_window_mean_spike_counts_a_level_that_stays_up_does_not():
    steps = np.arange(10, 410, 10)
    calm = np.full(steps.size, 0.5)
    spiky = calm.copy()
    spiky[[5, 14, 22, 30]] = 0.5 * 5.0  # 5x in a window of 10: a ~41x step averaged in
    climb = calm.copy()
    climb[20:] = 0.5 * 5.0  # the same height, held: a climb, not spikes
    run = Run.from_arrays("r", steps, {"loss": spiky, "kl": climb, "gnorm": spiky}, format="simulated", source="test")
    ctx = _ctx(run)
    assert gap(ctx, "loss") == 10.0
    assert per_point(ctx, "loss", 30.0) == pytest.approx(3.9)
    assert int(excursions(ctx, "loss", spiky, 0.5, 30.0).sum()) == 4
    assert int(excursions(ctx, "kl", climb, 0.5, 30.0).sum()) == 0
    # the grad norm a trainer logs every N steps is the step's own (a sample, not a mean): not scaled
    assert int(excursions(ctx, "gnorm", spiky, 0.5, 30.0).sum()) == 0
    # a point a step: the ratio is the ratio
    dense = Run.from_arrays("d", np.arange(1, 41), {"loss": spiky}, format="simulated", source="test")
    assert int(excursions(_ctx(dense), "loss", spiky, 0.5, 30.0).sum()) == 0


def test_a_healthy_run_read_from_a_trl_console_log_stays_silent(tmp_path):
    # a TRL console log numbers its points every 10 steps; its grad norm is each logged step's own, so the
    # verl baseline's lone noisy-batch spikes (under 30x) must not be read as averaged 30x spikes
    from rlvitals.ingest import write_run

    dest = tmp_path / "run.log"
    write_run(read(str(REAL_LOGS["verl_healthy"])), "trl-console", dest)
    d = diagnose(read(str(dest), format="trl-console"))
    assert d.verdict == "learning" and d.worst_severity() in (None, "info")


def test_rookworld_blowup_logged_every_10_steps_keeps_its_finding():
    run = read(str(REAL_LOGS["rookworld_blowup"]))
    d = diagnose(window_means(run, 10))
    assert d.verdict == "dead" and d.top.id == "numeric_instability"
    assert d.top.evidence["loss_points_100x"] >= 3


@pytest.mark.parametrize("name", ["healthy", "lr_too_high", "kl_blowup"])
def test_a_thinned_run_reads_as_the_dense_one(name):
    run = simulate(name, seed=5, steps=400)
    dense, sparse = diagnose(run), diagnose(window_means(run, 10))
    assert sparse.verdict == dense.verdict
    top = lambda d: d.top.id if d.top is not None and d.top.severity != "info" else None  # noqa: E731
    assert top(sparse) == top(dense)


def test_a_kl_blowup_logged_every_10_steps_is_still_a_blowup():
    # the entropy drops within a few steps of the KL's jump: averaged into 10-step windows, the drop is
    # spread over the two windows it straddles and must still read "at once" (not a slide: a collapse)
    from simruns import simulate_rl

    run = simulate_rl("kl_blowup", seed=1001, steps=300)
    assert diagnose(run).top.id == "kl_blowup"
    d = diagnose(window_means(run, 10))
    assert d.verdict == "dead" and d.top.id == "kl_blowup"


def test_zero_reward_at_the_cap_logged_every_10_steps_is_truncation_starvation():
    # 50 steps logged every 10: five points, the reward exactly 0 at each and the length at the cap --
    # no noise to wait out (const_points over const_span), so the cause is named, not only "not learning"
    run = read(str(REAL_LOGS["trl_truncated"]))
    d = diagnose(window_means(run, 10))
    assert len(window_means(run, 10).series["reward"]) == 5
    assert d.verdict == "dead" and d.top.id == "truncation_starvation"
    assert d.top.evidence["len_pinned_at_max"] >= 0.7


def test_kl_spikes_averaged_into_one_or_two_windows_are_outlier_steps_not_a_blowup():
    # a healthy run with a few one-step KL spikes (x200 of its level), two of them four steps apart,
    # and a step up to a level it then holds (x5 at step 250, as when a format term is learned):
    # logged every 5 steps, the pair straddles two windows.  Averaged, each spike is a point or two
    # standing above the level either side -- outlier steps as in the dense log, not a surge that
    # the later step up would make look sustained
    kl = 0.01 + 0.01 * np.linspace(0, 1, 400) + np.random.default_rng(7).normal(0, 5e-4, 400)
    kl[250:] += 0.08
    for step in (111, 133, 137, 320):
        kl[step] = 3.0
    run = simulate("healthy", seed=5, steps=400)
    run.series["kl"] = replace(run.series["kl"], values=kl)
    dense = diagnose(run)
    assert dense.verdict == "learning" and "kl_blowup" not in [f.id for f in dense.findings]
    for every in (5, 10):
        d = diagnose(window_means(run, every))
        assert d.verdict == "learning", (every, d)
        assert "kl_blowup" not in [f.id for f in d.findings], (every, d)
        assert any(f.id == "outlier_step" for f in d.findings), (every, d)


def test_a_spike_in_a_short_sparse_log_is_judged_by_the_goal_its_points_cover():
    # 200 steps logged every 10: 20 points, fewer than min_points, but covering 200 steps.  A one-step
    # KL spike averaged into its window, with the goal climbing on after it, is one bad step that did
    # not hurt the goal (info), as it is in the dense log -- not "unstable" for want of points
    run = simulate("healthy", seed=5, steps=200)
    kl = run.series["kl"].values.copy()
    kl[34] = 3000 * float(np.median(kl))  # one step at ~22, far past kl_high
    run.series["kl"] = replace(run.series["kl"], values=kl)
    for r in (run, window_means(run, 10)):
        d = diagnose(r)
        assert d.verdict == "learning", d
        f = {x.id: x for x in d.findings}["outlier_step"]
        assert f.severity == "info" and f.evidence["goal_unhurt"], f


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_spike_in_a_spiky_kls_last_tenth_is_no_blow_up(seed):
    """Logged every 5 steps: the KL sits near 0.4 with seven isolated one-point spikes (x30-500, each
    gone at the next point) -- more than the handful kl_clean smooths -- one of them in the last
    tenth.  One logged point is no level: no kl_blowup "surged to" the tenth's mean it drags up."""
    s = np.arange(5, 1131, 5)
    r = np.random.default_rng(seed)
    n = s.size
    kl = 0.38 + np.abs(r.normal(0, 0.08, n))
    for i, h in zip([1, 3, 4, 23, 26, 41, 205], [12, 22, 65, 14, 197, 67, 179]):
        kl[i] = h
    acc = np.clip(0.74 + r.normal(0, 0.05, n), 0, 1)
    run = Run.from_arrays(
        "spiky-kl",
        s,
        dict(
            kl=kl,
            acc=acc,
            reward=acc + 0.2 + r.normal(0, 0.02, n),
            len=200 + r.normal(0, 10, n),
            gnorm=0.5 + np.abs(r.normal(0, 0.1, n)),
        ),
    )
    assert kl[-n // 10 :].max() > 100  # the spike is in the last tenth
    assert "kl_blowup" not in [f.id for f in diagnose(run).findings if f.severity != "info"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_excursions_of_two_and_three_steps_in_a_per_step_kl_are_no_blow_up(seed):
    """Logged every step: a heavy-tailed KL drifting 0.2 -> 0.6 (a point a few times its level now and
    then) with excursions x50-200 that last two or three steps, one of them in the last tenth, while
    the accuracy learns.  Read at every length, no excursion is a level the KL reached and held."""
    s = np.arange(1, 261)
    r = np.random.default_rng(seed)
    n = s.size
    kl = np.linspace(0.2, 0.6, n) * np.exp(r.normal(0, 0.6, n))
    for i, k, h in [(48, 1, 60.0), (150, 2, 45.0), (199, 1, 8.0), (240, 3, 90.0)]:
        kl[i : i + k] = h * np.linspace(0.4, 1.0, k)
    acc = np.clip(np.linspace(0.5, 0.66, n) + r.normal(0, 0.05, n), 0, 1)
    run = Run.from_arrays("kl-excursions", s, dict(kl=kl, acc=acc, reward=acc + 0.1 + r.normal(0, 0.02, n)))
    for upto in (120, 160, 200, 245, 260):
        d = diagnose(run.upto(upto))
        assert "kl_blowup" not in [f.id for f in d.findings if f.severity != "info"], (upto, d)


@pytest.mark.parametrize("name", sorted(REAL_LOGS))
def test_every_onset_is_a_step_the_log_holds(name):
    """ "since step N" names a logged step: on a log written every 10 steps a block centre (15, the
    mean of 10 and 20) is none."""
    run = read(REAL_LOGS[name])
    held = set(run.steps.tolist())
    for f in diagnose(run).findings:
        assert f.onset_step is None or f.onset_step in held, (f.id, f.onset_step)


def test_a_quiet_sparse_score_that_cannot_have_gained_a_material_amount_is_not_learning():
    # 14 window means over 130 steps, a score holding at 0.40 with a noise of 0.003: its fitted line
    # rules a material gain out, however few its points
    steps = np.arange(10, 150, 10)
    r = np.random.default_rng(5)
    quiet = 0.40 + r.normal(0, 0.003, steps.size)
    d = diagnose(Run.from_arrays("quiet", steps, {"reward": quiet}, format="simulated", source="test"))
    assert d.verdict == "dead" and d.top.id == "not_learning"
    assert d.top.evidence["goal_trend"] == "no_material_gain"
    # as many points as noisy as a small batch makes them: undecided, not "not learning"
    noisy = 0.40 + r.normal(0, 0.08, steps.size)
    d = diagnose(Run.from_arrays("noisy", steps, {"reward": noisy}, format="simulated", source="test"))
    assert d.verdict == "learning" and not any(f.id == "not_learning" for f in d.findings)


def test_nothing_moves_is_never_said_of_a_goal_up_a_material_amount():
    # 13 points every 10 steps: a noisy accuracy creeping up ten points beside an entropy that holds
    # still (a reasoning model near 0.3).  Whatever the noise says, a stall whose own evidence shows
    # the goal up a material amount would contradict its numbers
    steps = np.arange(10, 140, 10)
    checked = 0
    for seed in range(8):
        r = np.random.default_rng(seed)
        acc = np.clip(0.62 + 0.1 * np.arange(13) / 12 + r.normal(0, 0.1, 13), 0, 1)
        ent = 0.31 + r.normal(0, 0.012, 13)
        d = diagnose(Run.from_arrays("slow", steps, {"acc": acc, "entropy": ent}, format="simulated", source="test"))
        if d.run["goal"]["end"] - d.run["goal"]["start"] >= 0.05:
            checked += 1
            assert not any(f.id == "stalled" and f.severity != "info" for f in d.findings), seed
    assert checked >= 4  # most of the eight runs rose a material amount by their tenths


def _eval_beside_dense(seed: int, train_gain: float, eval_gain: float) -> Run:
    """101 steps of a small batch (a few prompts a step: a training accuracy with a noise near 0.11)
    and an eval of 20 problems every 10 steps, each score moving by its gain over the run."""
    r = np.random.default_rng(seed)
    steps = np.arange(101)
    p = 0.4 + train_gain * steps / 100
    acc = np.clip(p + r.normal(0, 0.11, steps.size), 0, 1)
    ev = np.arange(10, 101, 10)
    val = r.binomial(20, 0.3 + eval_gain * ev / 100) / 20.0
    return Run.from_arrays(
        "eval-beside-dense",
        steps,
        {"acc": acc, "reward": acc, "val_acc": Series("val_acc", ev, val, "eval/pass_at_1")},
        format="simulated",
        source="test",
    )


def test_a_noisy_eval_beside_training_scores_that_resolve_no_gain_is_not_learning():
    # the eval's ten points are too noisy to resolve a material gain on their own, the training scores
    # beside it resolve one and show none: after a hundred steps nothing learned is "not learning",
    # never "learning, not shown yet" -- even where the training score's tenths differ by chance
    for seed in range(8):
        d = diagnose(_eval_beside_dense(seed, 0.0, 0.0))
        assert d.verdict == "dead" and d.top.id in ("not_learning", "stalled"), (seed, d.run["goal"])


def test_a_noisy_eval_beside_training_scores_that_climb_is_learning():
    for seed in range(8):
        d = diagnose(_eval_beside_dense(seed, 0.3, 0.3))
        assert d.verdict == "learning", (seed, [(f.id, f.severity) for f in d.findings])
