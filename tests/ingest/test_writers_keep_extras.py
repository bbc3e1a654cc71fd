"""The generic writers (jsonl, csv) keep what the run read besides its vitals.

Found on held-out runs (benchmarks/bench_worlds.py, a peer's file written in each format and read
back): the jsonl and csv writers wrote only the canonical vitals, so rlprobe's `nan_count` and every
`rewards/<fn>/mean` component vanished on the way out, and the diagnosis that reads them changed.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from rlvitals.ingest import read_text, write_run
from rlvitals.run import Run, Series


def _run() -> Run:
    steps = np.arange(1, 21)
    run = Run.from_arrays(
        "r", steps, {"reward": np.linspace(0.1, 0.9, 20), "kl": np.full(20, 0.01), "adv_std": np.linspace(0.9, 0.5, 20)}
    )
    run.extras["nan_count"] = Series("nan_count", steps, (steps % 7 == 0).astype(float), "nan_count")
    run.extras["rewards/format_reward/mean"] = Series(
        "rewards/format_reward/mean", steps, np.linspace(0.0, 0.4, 20), "rewards/format_reward/mean"
    )
    run.extras["frac_reward_zero_std"] = Series(
        "frac_reward_zero_std", steps, np.full(20, 0.3), "frac_reward_zero_std"
    )  # adv_std's proxy, outranked by adv_std
    return run


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_extras_and_components_survive(fmt):
    run = _run()
    buf = io.StringIO()
    write_run(run, fmt, buf)
    back = read_text(buf.getvalue(), fmt)
    for name in ("reward", "kl", "adv_std"):
        np.testing.assert_array_equal(back.series[name].steps, run.series[name].steps)
        np.testing.assert_allclose(back.series[name].values, run.series[name].values)
        assert not back.series[name].proxy  # adv_std still the logged one, not the proxy
    np.testing.assert_allclose(back.extras["nan_count"].values, run.extras["nan_count"].values)
    assert "format_reward" in back.components
    np.testing.assert_allclose(back.components["format_reward"].values, np.linspace(0.0, 0.4, 20))
    # the zero-spread share is written as logged (the data_too_easy rule reads it beside adv_std);
    # adv_std, written under its own name, still wins on reading back
    np.testing.assert_allclose(back.extras["frac_reward_zero_std"].values, 0.3)


def test_a_stand_in_that_would_replace_the_metric_is_not_written():
    """TRL logs adv_std as frac_reward_zero_std: a second stand-in (rlprobe's share) is the same
    measure, so it is what TRL's key carries; a stand-in for a metric the format lacks is left out."""
    run = _run()
    run.extras["zero_variance_group_frac"] = Series(
        "zero_variance_group_frac", run.steps, np.full(20, 0.6), "zero_variance_group_frac"
    )
    del run.extras["frac_reward_zero_std"]
    buf = io.StringIO()
    write_run(run, "trl-state", buf)
    back = read_text(buf.getvalue(), "trl-state")
    assert back.series["adv_std"].source == "frac_reward_zero_std"
    np.testing.assert_allclose(back.series["adv_std"].values, np.sqrt(0.4))  # the logged share, not 1 − adv_std²
    buf = io.StringIO()
    write_run(run, "torchtune", buf)  # torchtune logs no group statistic
    assert "zero_variance_group_frac" not in buf.getvalue()
