"""The RL-loop engine: determinism, the truth contract, each scenario's mechanism in the raw numbers, knobs.

These tests read the logged numbers only; what rlvitals.diagnose concludes about the runs is
scored separately (benchmarks), never asserted here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
import pytest
import simruns

from rlvitals.cli import main
from rlvitals.diagnose.model import FINDING_IDS, SEVERITIES, VERDICTS
from rlvitals.errors import RlvitalsError
from rlvitals.ingest import WRITABLE, read
from rlvitals.run import Run
from rlvitals.samples import read_samples
from rlvitals.simulate import write_simulated
from rlvitals.simulate.rlloop import SCENARIOS, simulate_rl, simulate_rl_samples
from rlvitals.simulate.rlloop.knobs import Knobs
from rlvitals.simulate.rlloop.loop import train

STEPS = 300


class LazyRuns(Mapping[str, Run]):
    """Each scenario's run at seed 0, made on first use (~0.7 s of CPU each to simulate): shared by
    the module's tests, and by the xdist workers through simruns (one simulates, the others load)."""

    def __init__(self) -> None:
        self._made: dict[str, Run] = {}

    def __getitem__(self, name: str) -> Run:
        if name not in SCENARIOS:
            raise KeyError(name)
        if name not in self._made:
            self._made[name] = simruns.simulate_rl(name, seed=0, steps=STEPS)
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(SCENARIOS)

    def __len__(self) -> int:
        return len(SCENARIOS)


@pytest.fixture(scope="module")
def runs() -> Mapping[str, Run]:
    return LazyRuns()


def v(run: Run, k: str) -> np.ndarray:
    return run.series[k].values


def at(run: Run) -> int:
    """0-based index of the true onset."""
    return int(run.meta["truth"]["onset_step"]) - 1


def mean(x: np.ndarray, a: int, b: int) -> float:
    """Mean of x[a:b]; a negative `a` counts from the end (the last -a values)."""
    a = x.size + a if a < 0 else a
    return float(np.nanmean(x[max(0, a) : b]))


# -- contract ------------------------------------------------------------------------------------


def test_same_seed_same_run_other_seed_other_run():
    a = simulate_rl("sync_failure", seed=3, steps=60)
    b = simulate_rl("sync_failure", seed=3, steps=60)
    c = simulate_rl("sync_failure", seed=4, steps=60)
    for k in a.series:
        np.testing.assert_array_equal(a.series[k].values, b.series[k].values)
    assert a.meta["truth"] == b.meta["truth"]
    assert not np.array_equal(v(a, "reward"), v(c, "reward"))


def test_truth_speaks_the_diagnosis_vocabulary(runs):
    for name, run in runs.items():
        truth = run.meta["truth"]
        assert truth["scenario"] == name and truth["engine"] == "rl"
        assert truth["verdict"] in VERDICTS
        if truth["finding"] is None:
            assert truth["verdict"] == "learning" and truth["onset_step"] is None
        else:
            assert FINDING_IDS[truth["finding"]] == truth["verdict"]
            assert truth["severity"] in SEVERITIES
            assert 1 <= truth["onset_step"] <= STEPS, name


def test_every_vital_logged_every_step_val_acc_on_its_own_cadence(runs):
    run = runs["healthy"]
    for k in (
        "reward",
        "acc",
        "entropy",
        "kl",
        "adv_std",
        "clip_frac",
        "ratio_mean",
        "len",
        "gnorm",
        "trunc",
        "lr",
        "loss",
    ):
        assert len(run.series[k]) == STEPS and np.isfinite(v(run, k)).all(), k
    val = run.series["val_acc"]
    assert 10 < len(val) < STEPS and val.steps[0] == 1
    assert run.component_kinds == {"verifier": "correctness", "format": "format"}
    assert runs["length_hacking"].component_kinds["length"] == "length"
    # the reward is the sum of its logged terms
    comps = runs["length_hacking"].components
    total = sum(c.values for c in comps.values())
    np.testing.assert_allclose(total, v(runs["length_hacking"], "reward"))


def test_writes_every_format_and_reads_back(tmp_path, runs):
    run = runs["numeric_instability"]
    for fmt in WRITABLE:
        path = tmp_path / f"run.{fmt}"
        write_simulated(run, str(path), fmt=fmt)
        back = read(str(path))
        assert "reward" in back.series, fmt
        coarse = fmt == "primerl-console"  # printed as prime-rl prints it: 4 decimals
        np.testing.assert_allclose(
            back.series["reward"].values,
            v(run, "reward"),
            rtol=0 if coarse else 1e-4,
            atol=0.5e-4 + 1e-9 if coarse else 1e-6,
        )


def test_rollout_samples_are_the_runs_own_answers(tmp_path, runs):
    run = runs["entropy_collapse"]
    log, dump = tmp_path / "ec.log", tmp_path / "ec.jsonl"
    write_simulated(run, str(log), fmt="lesson", samples_path=str(dump))
    samples = read_samples(str(dump))
    assert samples.steps[0].step == 1 and samples.steps[-1].step == 291
    easy = read_samples_from(simulate_rl_samples("data_too_easy", seed=0, steps=STEPS), tmp_path)
    # a collapsed policy writes the same words again and again; easy data leaves the answers varied
    assert samples.late_diversity() < easy.late_diversity() - 0.1
    assert samples.early_diversity() > samples.late_diversity()


def read_samples_from(recs: list[dict], tmp_path) -> object:
    import json

    path = tmp_path / "recs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return read_samples(str(path))


def test_recording_rollouts_does_not_change_the_run():
    kn = Knobs(steps=30)
    a = train(kn, np.random.default_rng(7))
    b = train(kn, np.random.default_rng(7), record=(5, 2))
    np.testing.assert_array_equal(a.cols["reward"], b.cols["reward"])
    assert b.rollouts is not None and len(b.rollouts) == 6 * 2 * 8


def test_upto_keeps_the_components(runs):
    cut = runs["healthy"].upto(50)
    assert set(cut.components) == {"verifier", "format"} and len(cut.components["format"]) == 50


# -- each scenario shows its cause in the raw numbers ----------------------------------------------


def test_healthy_learns_with_entropy_far_from_zero_and_ratio_at_one(runs):
    run = runs["healthy"]
    e = v(run, "entropy")
    assert mean(e, -10, STEPS) > 0.5 * mean(e, 0, 5) and mean(e, -10, STEPS) > 1.0
    assert np.all(np.abs(v(run, "ratio_mean") - 1) < 0.01)
    assert mean(v(run, "acc"), -20, STEPS) > mean(v(run, "acc"), 0, 20) + 0.15
    assert mean(v(run, "reward"), -20, STEPS) > mean(v(run, "reward"), 0, 20) + 0.2
    assert v(run, "trunc").max() < 0.05 and v(run, "clip_frac").max() < 0.2
    assert v(run, "kl")[0] < 1e-3 < v(run, "kl")[-1]


def test_batch_noise_is_a_tiny_batch_with_noisier_steps(runs):
    small, big = runs["batch_noise"], runs["healthy"]
    assert set(small.extras["batch_size"].values) == {4.0}

    def jitter(r: Run) -> float:
        return float(np.std(np.diff(v(r, "reward"))))

    assert jitter(small) > 1.5 * jitter(big)


def test_lr_too_high_overshoots_the_trust_region(runs):
    run = runs["lr_too_high"]
    i = at(run)
    assert v(run, "lr")[i] > 10 * v(run, "lr")[i - 1]
    clip = v(run, "clip_frac")
    assert mean(clip, i + 5, STEPS) > 0.2 and mean(clip, i + 5, STEPS) > 2.5 * mean(clip, i - 30, i)
    assert mean(np.abs(v(run, "ratio_mean") - 1), i + 5, STEPS) > 5 * mean(np.abs(v(run, "ratio_mean") - 1), i - 30, i)


def test_entropy_collapse_sharpens_until_groups_are_identical(runs):
    run = runs["entropy_collapse"]
    e = v(run, "entropy")
    assert float(np.median(e[-40:])) < 0.15 * mean(e, 0, 5)  # entropy heads to 0
    assert float(np.median(v(run, "adv_std")[-40:])) < 0.3 < mean(v(run, "adv_std"), 0, 20)
    i = at(run)
    assert i < 0.4 * STEPS and mean(e, i - 3, i + 4) < 0.6 * mean(e, 0, 5)  # onset well before the end
    assert mean(e, i - 3, i + 4) > 2 * float(np.median(e[-40:]))  # ... and before it has run its course
    assert mean(v(run, "clip_frac"), -40, STEPS) < 0.2 * mean(v(run, "clip_frac"), 0, 40)  # nothing left to update
    r = v(run, "reward")
    assert abs(mean(r, -40, STEPS) - mean(r, i + 40, i + 80)) < 0.05  # the reward stalls after the onset
    # KL saturates at the distance to the reference's own mode: it does not blow up
    kl = v(run, "kl")
    assert float(np.max(kl)) < 2.0 and mean(kl, -40, STEPS) < 1.5 * mean(kl, i + 40, i + 80)


def test_entropy_collapse_leaves_groups_without_spread():
    kn = Knobs(steps=200, **SCENARIOS["entropy_collapse"].start)  # the scenario's own knobs
    for seed in (1000, 1001):
        tr = train(kn, np.random.default_rng(seed))
        e, zero = tr.cols["entropy"], tr.cols["frac_reward_zero_std"]
        assert e[-20:].mean() < 0.15 * e[:5].mean()  # entropy heads to 0
        assert zero[-20:].mean() > 0.9 and zero[-20:].mean() > zero[:10].mean() + 0.25  # groups turn identical
        assert tr.cols["kl"].max() < 1.5  # sharpened, not blown up


def test_sync_failure_drifts_the_ratio_while_reward_stops(runs):
    run, healthy = runs["sync_failure"], runs["healthy"]
    i = at(run)
    ratio = v(run, "ratio_mean")
    assert np.all(np.abs(ratio[:i] - 1) < 2e-3)
    drift = 1 - mean(ratio, -10, STEPS)
    assert drift > 2e-3 and drift > 20 * float(np.abs(v(healthy, "ratio_mean") - 1).max())
    blocks = [mean(ratio, a, a + 10) for a in range(i, STEPS - 9, 10)]
    assert np.mean(np.diff(blocks) < 0) >= 0.75  # it drifts one way
    r = v(run, "reward")
    assert abs(mean(r, -20, STEPS) - mean(r, i, i + 20)) < 0.1
    assert mean(v(run, "entropy"), -10, STEPS) > 0.8 * mean(v(run, "entropy"), 0, 5)


def test_data_too_easy_sinks_adv_std_with_entropy_normal(runs):
    run = runs["data_too_easy"]
    assert "format" not in run.components or not run.components["format"].values.any()
    assert mean(v(run, "acc"), 0, STEPS) > 0.85
    assert mean(v(run, "adv_std"), 0, STEPS) < 0.55 < 0.7 < mean(v(runs["healthy"], "adv_std"), 0, STEPS)
    assert np.mean(run.extras["frac_reward_zero_std"].values) > 0.6  # most groups all right (or all wrong)
    assert mean(v(run, "entropy"), -10, STEPS) > 0.9 * mean(v(run, "entropy"), 0, 5)


def test_data_too_hard_gives_nothing_to_learn_from(runs):
    run = runs["data_too_hard"]
    assert mean(v(run, "reward"), 0, STEPS) < 0.05 and mean(v(run, "acc"), 0, STEPS) < 0.05
    assert mean(v(run, "adv_std"), 0, 50) < 0.5
    assert mean(v(run, "entropy"), -10, STEPS) > 0.9 * mean(v(run, "entropy"), 0, 5)


def test_reward_hacking_raises_the_reward_not_the_accuracy(runs):
    run = runs["reward_hacking"]
    assert mean(v(run, "reward"), -20, STEPS) > mean(v(run, "reward"), 0, 10) + 0.5
    assert mean(v(run, "acc"), -20, STEPS) < mean(v(run, "acc"), 0, 10)
    val = run.series["val_acc"].values
    assert val[-3:].mean() < val[:2].mean()
    verifier = run.components["verifier"].values
    assert mean(verifier, -20, STEPS) > mean(v(run, "acc"), -20, STEPS) + 0.4  # the verifier pays for wrong answers


def test_length_hacking_grows_length_and_truncation_not_accuracy(runs):
    run = runs["length_hacking"]
    i = at(run)
    ln = v(run, "len")
    assert mean(ln, -5, STEPS) > 1.8 * mean(ln, i - 5, i)
    assert mean(v(run, "trunc"), -5, STEPS) > mean(v(run, "trunc"), i - 20, i) + 0.01
    assert mean(v(run, "acc"), -10, STEPS) < mean(v(run, "acc"), i - 10, i)
    assert mean(run.components["length"].values, -5, STEPS) > 0.4


def test_kl_blowup_surges_kl_and_kills_the_reward(runs):
    run = runs["kl_blowup"]
    i = at(run)
    kl = v(run, "kl")
    assert kl[i : i + 10].max() > 5 * mean(kl, i - 10, i)
    assert mean(v(run, "reward"), -20, STEPS) < mean(v(run, "reward"), i - 10, i) - 0.2


def test_stalled_never_moves_the_weights(runs):
    run = runs["stalled"]
    assert np.all(v(run, "kl") == 0) and np.all(v(run, "clip_frac") == 0)
    assert np.all(v(run, "ratio_mean") == 1.0)
    assert np.all(v(run, "gnorm") > 0)
    r = v(run, "reward")
    assert abs(mean(r, -50, STEPS) - mean(r, 0, 50)) < 0.05


def test_numeric_instability_overflows_to_inf_then_nan(runs):
    run = runs["numeric_instability"]
    i = at(run)
    assert np.isinf(v(run, "gnorm")[i]) or np.isnan(v(run, "gnorm")[i])
    assert np.all(np.isfinite(v(run, "entropy")[:i]))
    assert np.all(np.isnan(v(run, "entropy")[i + 1 :]))
    assert np.all(v(run, "trunc")[i + 1 :] == 1.0) and np.all(v(run, "reward")[i + 1 :] == 0.0)


def test_truncation_starvation_cuts_almost_every_answer(runs):
    run = runs["truncation_starvation"]
    i = at(run)
    assert mean(v(run, "trunc"), i + 2, i + 30) > 0.8
    assert mean(v(run, "reward"), i + 2, i + 30) < 0.05
    assert mean(v(run, "adv_std"), i + 2, i + 30) < 0.3


def test_entropy_explosion_flattens_the_policy_and_loses_the_reward(runs):
    run = runs["entropy_explosion"]
    i = at(run)
    e = v(run, "entropy")
    assert mean(e, -10, STEPS) > 1.3 * mean(e, i - 10, i)
    assert mean(v(run, "acc"), -10, STEPS) < mean(v(run, "acc"), i - 10, i) - 0.1


def test_plateau_learns_then_levels_off(runs):
    run = runs["plateau"]
    acc = v(run, "acc")
    rise = mean(acc, -30, STEPS) - mean(acc, 0, 10)
    late = mean(acc, -30, STEPS) - mean(acc, STEPS - 80, STEPS - 50)
    assert rise > 0.08 and late < 0.35 * rise


# -- knobs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("knobs", "words"),
    [
        ({"temprature": 0.5}, "unknown knob"),
        ({"lr": -1}, "out of range"),
        ({"temperature": "hot"}, "a number"),
        ({"frozen": "maybe"}, "1 or 0"),
        ({"ratio_level": "batch"}, "sequence"),
        ({"batch": 0}, "integer >= 1"),
        ({"onset": 500}, "after the last step"),
    ],
)
def test_a_bad_knob_is_one_line(knobs, words):
    with pytest.raises(RlvitalsError) as e:
        simulate_rl("healthy", steps=40, **knobs)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_bad_scenario_seed_or_steps_is_one_line():
    for call in (
        lambda: simulate_rl("nope"),
        lambda: simulate_rl("healthy", seed=-1),
        lambda: simulate_rl("healthy", steps=5),
        lambda: simulate_rl("healthy", **{"steps": 50, "lr": "x"}),
    ):
        with pytest.raises(RlvitalsError):
            call()


def test_onset_knob_moves_the_cause():
    run = simulate_rl("sync_failure", seed=1, steps=80, onset=30)
    assert run.meta["truth"]["onset_step"] == 30
    ratio = v(run, "ratio_mean")
    assert np.all(np.abs(ratio[:29] - 1) < 2e-3) and ratio[-1] < ratio[29]


def test_onset_cannot_move_a_cause_fixed_for_the_run():
    with pytest.raises(RlvitalsError, match="holds for the whole run"):
        simulate_rl("data_too_hard", steps=40, onset=20)
    run = simulate_rl("reward_hacking", seed=0, steps=120, onset=30)  # its knobs can move
    assert run.meta["truth"]["onset_step"] == 30 and run.meta["truth"]["finding"] == "reward_hacking"
    assert mean(v(run, "reward"), 20, 30) < 1.0 < mean(v(run, "reward"), -10, 120)
    early = simulate_rl("entropy_collapse", seed=0, steps=30, onset=25)  # moved, but too late to collapse
    assert early.meta["truth"]["finding"] is None and v(early, "lr")[23] < v(early, "lr")[25]


def test_turning_a_knob_changes_what_the_loop_does():
    base = simulate_rl("healthy", seed=2, steps=60)
    frozen = simulate_rl("healthy", seed=2, steps=60, frozen=1)
    assert np.all(v(frozen, "kl") == 0) and not np.all(v(base, "kl") == 0)
    assert frozen.meta["knobs"] == {"frozen": True} and any("knobs changed" in n for n in frozen.notes)


def test_a_sync_lag_offsets_the_ratio_without_drift():
    run = simulate_rl("healthy", seed=0, steps=120, sync_lag=8)
    gap = 1 - v(run, "ratio_mean")[20:]
    assert gap.mean() > 5e-4  # stale by 8 steps: below 1 ...
    assert abs(gap[:50].mean() - gap[-50:].mean()) < 0.5 * gap.mean()  # ... by a steady amount


def test_a_failure_that_never_began_is_not_claimed():
    run = simulate_rl("entropy_collapse", seed=0, steps=20)  # collapses only after ~25 steps
    truth = run.meta["truth"]
    assert truth["finding"] is None and truth["verdict"] == "learning" and "note" in truth
    assert mean(v(run, "entropy"), -5, 20) > 0.5 * mean(v(run, "entropy"), 0, 5)


def test_validation_cadence_does_not_change_training():
    a = simulate_rl("healthy", seed=5, steps=40)
    b = simulate_rl("healthy", seed=5, steps=40, val_every=3)
    np.testing.assert_array_equal(v(a, "reward"), v(b, "reward"))
    assert len(b.series["val_acc"]) > len(a.series["val_acc"])


def test_token_level_ratio_runs_and_stays_at_one_on_policy():
    run = simulate_rl("healthy", seed=0, steps=40, ratio_level="token", eps_low=0.2, eps_high=0.28)
    assert np.all(np.abs(v(run, "ratio_mean") - 1) < 0.01)


def test_cli_lists_and_rejects_knobs_without_the_engine(capsys):
    assert main(["simulate", "--engine", "rl", "--list", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in SCENARIOS) and "temperature" in out
    assert main(["simulate", "healthy", "--knob", "lr=0.1"]) == 2
    assert main(["simulate", "--engine", "rl", "healthy", "--knob", "lr"]) == 2
