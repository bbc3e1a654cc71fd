"""Every scenario: the contract (series, truth, determinism) and the mechanism it claims."""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.diagnose.model import FINDING_IDS
from rlvitals.errors import RlvitalsError
from rlvitals.run import Run
from rlvitals.simulate import SCENARIOS, simulate

NAMES = [
    "healthy",
    "healthy_long",
    "healthy_grad_spike",
    "healthy_reasoning",
    "batch_noise",
    "lr_too_high",
    "entropy_collapse",
    "sync_failure",
    "data_too_easy",
    "data_too_hard",
    "reward_hacking",
    "length_hacking",
    "kl_blowup",
    "stalled",
    "numeric_instability",
    "truncation_starvation",
    "entropy_explosion",
    "plateau",
]
SERIES = ("reward", "acc", "entropy", "kl", "adv_std", "clip_frac", "ratio_mean", "len", "gnorm", "trunc")
SEEDS = range(6)


def v(run: Run, k: str) -> np.ndarray:
    return run.series[k].values


def onset_index(run: Run) -> int:
    return int(run.meta["truth"]["onset_step"]) - 1


def head(x, i, k=10):
    """Mean level just before index i."""
    return float(np.nanmean(x[max(0, i - k) : i + 1]))


def tail(x, k=10):
    return float(np.nanmean(x[-k:]))


def test_the_catalog_is_the_agreed_list_and_speaks_the_diagnosis_vocabulary():
    assert list(SCENARIOS) == NAMES
    for name, sc in SCENARIOS.items():
        assert sc.name == name and sc.summary and sc.summary_zh
        if sc.finding is None:
            assert sc.verdict == "learning" and sc.severity is None and sc.onset == "none"
        else:
            assert FINDING_IDS[sc.finding] == sc.verdict and sc.severity in ("info", "warning", "critical")


def test_unknown_names_and_bad_arguments_are_one_sentence_errors():
    with pytest.raises(RlvitalsError, match="valid scenarios are: healthy, healthy_long"):
        simulate("entropy-collapse")
    with pytest.raises(RlvitalsError, match="at least"):
        simulate("healthy", steps=5)
    with pytest.raises(RlvitalsError, match="seed"):
        simulate("healthy", seed=-1)


@pytest.mark.parametrize("name", NAMES)
def test_contract_series_truth_determinism(name):
    a = simulate(name, seed=3, steps=150)
    b = simulate(name, seed=3, steps=150)
    c = simulate(name, seed=4, steps=150)
    sc = SCENARIOS[name]
    assert isinstance(a, Run) and a.n_steps == 150 and a.steps[0] == 1 and a.steps[-1] == 150
    for k in SERIES:
        assert k in a.series, k
        np.testing.assert_array_equal(v(a, k), v(b, k))  # NaN-aware equality
        if name != "numeric_instability":
            assert np.all(np.isfinite(v(a, k))), k
    assert not all(np.array_equal(v(a, k), v(c, k)) for k in ("reward", "entropy", "kl"))
    truth = a.meta["truth"]
    assert set(truth) == {"scenario", "finding", "verdict", "severity", "onset_step"}
    assert (truth["scenario"], truth["finding"], truth["verdict"], truth["severity"]) == (
        name,
        sc.finding,
        sc.verdict,
        sc.severity,
    )
    if sc.onset == "none":
        assert truth["onset_step"] is None
    else:
        assert 1 <= truth["onset_step"] <= 150
    for k in ("acc", "clip_frac", "trunc"):  # rates are fractions
        x = v(a, k)[np.isfinite(v(a, k))]
        assert np.all((x >= 0) & (x <= 1)), k


@pytest.mark.parametrize("name", [n for n, s in SCENARIOS.items() if s.onset == "mid"])
def test_mid_run_onsets_vary_with_the_seed_within_30_to_60_percent(name):
    onsets = [simulate(name, seed=s).meta["truth"]["onset_step"] for s in range(8)]
    assert all(55 <= o <= 125 for o in onsets), onsets
    assert len(set(onsets)) >= 4


def test_only_numeric_instability_goes_nan_and_only_after_its_onset():
    for s in SEEDS:
        run = simulate("numeric_instability", seed=s)
        i = onset_index(run)
        g = v(run, "gnorm")
        assert np.all(np.isfinite(g[: i + 1]))
        assert np.isinf(g).any() and np.isnan(g).any()
        first_bad = int(np.flatnonzero(~np.isfinite(g))[0])
        assert g[first_bad - 1] > 10 * g[:i].mean()  # it explodes before it overflows
        assert tail(v(run, "reward")) < 0.02 and tail(v(run, "trunc")) > 0.8


@pytest.mark.parametrize("seed", SEEDS)
def test_healthy_reward_and_acc_rise_together_and_ratio_stays_at_one(seed):
    for name in ("healthy", "healthy_long", "healthy_grad_spike", "healthy_reasoning"):
        run = simulate(name, seed=seed)
        r, a = v(run, "reward"), v(run, "acc")
        assert tail(r, 20) - r[:20].mean() > 0.2 and tail(a, 20) - a[:20].mean() > 0.2, name
        assert np.corrcoef(r, a)[0, 1] > 0.8, name
        assert np.max(np.abs(v(run, "ratio_mean") - 1)) < 1e-3, name
        assert tail(v(run, "adv_std"), 20) > 0.5, name
        assert tail(v(run, "trunc"), 20) < 0.05, name


def test_healthy_variants_have_their_own_signature():
    for s in SEEDS:
        long = simulate("healthy_long", seed=s)
        assert tail(v(long, "len")) > 2 * v(long, "len")[:10].mean()
        spike = simulate("healthy_grad_spike", seed=s)
        g = v(spike, "gnorm")
        assert (g > 5 * np.median(g)).sum() >= 2
        rsn = simulate("healthy_reasoning", seed=s)
        e = v(rsn, "entropy")
        assert 0.35 < e[:5].mean() < 0.55 and 0.1 < tail(e) < 0.2
        assert tail(v(rsn, "acc")) > v(rsn, "acc")[:10].mean() + 0.2


@pytest.mark.parametrize("seed", SEEDS)
def test_failure_mechanisms(seed):
    run = simulate("entropy_collapse", seed=seed)
    e, i = v(run, "entropy"), onset_index(run)
    assert tail(e, 3) < 0.05 * e[:5].mean()
    assert tail(v(run, "adv_std")) < 0.4
    assert 0.2 < tail(v(run, "acc"), 30) < 0.75  # stuck mid
    assert abs(tail(v(run, "reward"), 30) - head(v(run, "reward"), i + 20)) < 0.1

    run = simulate("sync_failure", seed=seed)
    i = onset_index(run)
    dev = np.abs(v(run, "ratio_mean") - 1)
    assert np.all(np.diff(dev[i:]) > -2e-4) and dev[-1] > 0.15 and dev[:i].max() < 1e-3
    assert tail(v(run, "entropy")) > 0.85 * head(v(run, "entropy"), i)
    assert tail(v(run, "adv_std")) > 0.6
    assert abs(tail(v(run, "reward"), 30) - head(v(run, "reward"), i, 20)) < 0.1

    run = simulate("lr_too_high", seed=seed)
    late = slice(int(0.85 * 200), 200)
    assert np.median(v(run, "clip_frac")[late]) > 0.2
    assert 4 < np.median(v(run, "gnorm")[late]) < 10
    assert np.median(v(run, "clip_frac")[: onset_index(run)]) < 0.06

    run = simulate("batch_noise", seed=seed)
    calm = simulate("healthy", seed=seed)
    assert np.diff(v(run, "reward")).std() > 1.5 * np.diff(v(calm, "reward")).std()
    assert v(run, "clip_frac").max() < 0.03 and np.median(v(run, "gnorm")) < 1.2
    assert run.meta["effective_batch"] <= 8 < calm.meta["effective_batch"]

    run = simulate("data_too_easy", seed=seed)
    assert tail(v(run, "adv_std")) < 0.5 and tail(v(run, "acc")) > 0.5
    assert tail(v(run, "entropy")) > 0.65 * v(run, "entropy")[:5].mean()
    assert np.mean(v(run, "adv_std")[onset_index(run) : onset_index(run) + 10]) < 0.6

    run = simulate("data_too_hard", seed=seed)
    assert v(run, "reward").mean() < 0.02 and v(run, "adv_std").mean() < 0.15
    assert tail(v(run, "entropy")) > 0.9 * v(run, "entropy")[:5].mean()


@pytest.mark.parametrize("seed", SEEDS)
def test_cheating_and_dead_mechanisms(seed):
    run = simulate("reward_hacking", seed=seed)
    i = onset_index(run)
    assert tail(v(run, "reward")) - head(v(run, "reward"), i) > 0.15
    assert tail(v(run, "acc")) < head(v(run, "acc"), i) + 0.03

    run = simulate("length_hacking", seed=seed)
    i = onset_index(run)
    assert tail(v(run, "len")) > 3 * head(v(run, "len"), i)
    assert tail(v(run, "trunc")) > head(v(run, "trunc"), i) + 0.02
    assert abs(tail(v(run, "acc")) - head(v(run, "acc"), i)) < 0.12

    run = simulate("kl_blowup", seed=seed)
    i = onset_index(run)
    assert tail(v(run, "kl")) > 20 * head(v(run, "kl"), i)
    assert tail(v(run, "entropy")) > head(v(run, "entropy"), i)
    assert tail(v(run, "reward")) < head(v(run, "reward"), i) - 0.1

    run = simulate("stalled", seed=seed)
    assert v(run, "kl").max() < 1e-4 and np.all(v(run, "clip_frac") == 0)
    assert abs(tail(v(run, "reward"), 30) - v(run, "reward")[:30].mean()) < 0.06
    assert np.ptp(v(run, "entropy")) < 0.1

    run = simulate("truncation_starvation", seed=seed)
    assert tail(v(run, "trunc")) > 0.9 and tail(v(run, "reward")) < 0.05 and tail(v(run, "adv_std")) < 0.35

    run = simulate("entropy_explosion", seed=seed)
    i = onset_index(run)
    assert tail(v(run, "entropy")) > 1.8 * head(v(run, "entropy"), i)
    assert tail(v(run, "reward")) < head(v(run, "reward"), i) - 0.2

    run = simulate("plateau", seed=seed)
    i = onset_index(run)
    a = v(run, "acc")
    assert head(a, i) - a[:10].mean() > 0.08
    assert abs(tail(a, 30) - a[i : i + 30].mean()) < 0.06


def test_adv_std_comes_from_the_same_dice_as_the_zero_std_groups():
    for name in NAMES:
        run = simulate(name, seed=1)
        a = v(run, "adv_std")
        s = np.sqrt(1 - run.extras["frac_reward_zero_std"].values)
        ok = np.isfinite(a)
        assert np.abs(a[ok] - s[ok]).mean() < 0.08 and np.abs(a[ok] - s[ok]).max() < 0.2, name
        if np.std(s[ok]) > 0.1:
            assert np.corrcoef(a[ok], s[ok])[0, 1] > 0.9, name


def test_the_listing_speaks_the_language_asked_for(capsys):
    """`rlvitals simulate --list --lang zh` is Chinese: header, summaries, truth (ids stay ids)."""
    import re

    from rlvitals.cli import main
    from rlvitals.simulate import SCENARIOS as DICE
    from rlvitals.simulate.rlloop import SCENARIOS as RL

    for engine, table in (("dice", DICE), ("rl", RL)):
        assert main(["simulate", "--engine", engine, "--list", "--lang", "zh"]) == 0
        zh = capsys.readouterr().out
        assert all(sc.summary_zh in zh and sc.summary not in zh for sc in table.values())
        assert "真值" in zh and "truth" not in zh and "废了" in zh and " / dead" not in zh
        assert main(["simulate", "--engine", engine, "--list", "--lang", "en"]) == 0
        en = capsys.readouterr().out
        assert all(sc.summary in en for sc in table.values())
        assert not re.search(r"[\u4e00-\u9fff]", en)
