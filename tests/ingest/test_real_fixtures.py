"""The six real logs (tests/fixtures/real, see its README): what each contains, pinned after careful reading.

"first → last" is the mean of the first and the last tenth of the logged steps, as in the README.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlvitals.ingest import read


def ends(series) -> tuple[float, float]:
    v = series.values
    n = max(1, v.size // 10)
    return float(np.nanmean(v[:n])), float(np.nanmean(v[-n:]))


@pytest.fixture(scope="module")
def runs(real_logs):
    return {k: read(p) for k, p in real_logs.items()}


def test_formats_and_steps(runs):
    got = {k: (r.format, r.n_steps) for k, r in runs.items()}
    assert got == {
        "verl_healthy": ("verl-console", 435),
        "verl_plateau": ("verl-console", 699),
        "trl_collapse": ("trl-console", 49),
        "rookworld_blowup": ("jsonl", 165),
        "primerl_hacking": ("csv", 1000),
        "trl_truncated": ("trl-console", 50),
    }
    for r in runs.values():
        assert "reward" in r.series


def test_verl_healthy(runs):
    r = runs["verl_healthy"]
    assert r.series["reward"].source == "critic/score/mean"
    assert ends(r.series["reward"]) == pytest.approx((0.2388, 0.7130), abs=1e-3)
    # entropy is logged as actor/entropy_loss in this (old) verl; it falls while accuracy rises
    assert r.series["entropy"].source == "actor/entropy_loss"
    assert r.series["entropy"].values[[0, -1]].tolist() == [0.526, 0.066]
    assert ends(r.series["entropy"]) == pytest.approx((0.444, 0.056), abs=1e-3)
    assert r.series["kl"].source == "critic/kl"
    # validation on its own cadence (every 10 steps), printed dicts kept in meta
    val = r.series["val_acc"]
    assert val.steps[:3].tolist() == [9, 19, 29] and len(val) == 43
    assert val.values[0] == 0.013 and val.values.max() == 0.579
    assert r.meta["initial_validation"] == {"test_score/openai/gsm8k": 0.0007621951219512195}
    assert r.meta["final_validation"] == {"test_score/openai/gsm8k": 0.5685975609756098}
    # early grad-norm spikes of a healthy run
    assert r.series["gnorm"].values.max() == 65.958 and r.extras["critic/grad_norm"].values.max() == 950.052
    assert len(r.segments) == 1 and r.skipped == {"not a metric line": 1357}


def test_verl_plateau(runs):
    r = runs["verl_plateau"]
    assert r.series["reward"].steps[[0, -1]].tolist() == [1, 699]
    assert ends(r.series["reward"]) == pytest.approx((-0.0042, 0.2329), abs=1e-3)
    assert ends(r.series["entropy"]) == pytest.approx((0.135, 0.265), abs=1e-3)
    # exactly 0 at every step: kept as a constant series, not dropped as absent
    clip = r.series["clip_frac"]
    assert len(clip) == 699 and clip.is_constant and clip.values[0] == 0.0
    assert r.extras["actor/ppo_kl"].is_constant and len(r.extras["actor/ppo_kl"]) == 699
    assert (r.series["len"].values.min(), r.series["len"].values.max()) == (16.875, 20.0)


def test_rookworld_five_runs(runs):
    """Five runs concatenated (the step counter restarts at 1): the last is read, every one is kept."""
    r = runs["rookworld_blowup"]
    assert r.meta["run_index"] == 5 and r.meta["run_count"] == 5
    assert [(s.first_step, s.last_step, s.rows) for s in r.segments] == [(1, 165, 165)]
    assert [[(s.first_step, s.last_step, s.rows) for s in x.segments] for x in r.file_runs] == [
        [(1, 3, 3)],
        [(1, 5, 5)],
        [(1, 642, 642)],
        [(1, 595, 595)],
        [(1, 165, 165)],
    ]
    assert sum(x.segments[0].rows for x in r.file_runs) == 1410  # every line of the file is a row
    assert r.series["reward"].source == "mean_reward" and r.series["kl"].source == "kl_div"
    # the loss explodes in the 3rd and 4th runs (to 4.9e7 and 1.3e8); the last run spikes to 133
    peaks = [float(np.nanmax(x.series["loss"].values)) for x in r.file_runs]
    assert peaks[2] == pytest.approx(4.8887e7, rel=1e-3) and peaks[3] == pytest.approx(1.3275e8, rel=1e-3)
    assert peaks[4] == pytest.approx(133.26, abs=0.01)
    assert r.series["kl"].values.min() < 0  # the broken estimator in the last run too
    assert max(float(np.nanmax(x.series["kl"].values)) for x in r.file_runs) == pytest.approx(40.738, abs=1e-3)
    assert any("5 runs" in n for n in r.notes)


def test_primerl_hacking(runs):
    r = runs["primerl_hacking"]
    assert r.series["reward"].source == "reward/mean"
    assert ends(r.series["reward"]) == pytest.approx((0.184, 0.339), abs=1e-3)
    acc = r.series["acc"]
    assert acc.source == "metrics/exact_match_reward" and len(acc) == 1000 and acc.is_constant and acc.values[0] == 0
    assert ends(r.series["len"]) == pytest.approx((178.0, 18.08), abs=0.1)
    assert "_step" not in r.extras and "_runtime" in r.unrecognized


def test_trl_logs(runs):
    c = runs["trl_collapse"]
    assert ends(c.series["entropy"])[0] > 10 * ends(c.series["entropy"])[1]
    t = runs["trl_truncated"]
    assert t.series["reward"].is_constant and t.series["reward"].values[0] == 0
    assert t.series["len"].values.max() == 256
