"""The Python API as a newcomer meets it in a REPL: short reprs, a readable str(diagnosis),
run["reward"], the main classes at the top level, and `rlvitals.diagnose` / `rlvitals.simulate`
callable while their subpackages stay importable."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import rlvitals
from rlvitals.run import Run, Series


@pytest.fixture(scope="module")
def big_run() -> Run:
    n = 1000
    cols = {m: np.random.default_rng(0).random(n) for m in ("reward", "acc", "entropy", "kl", "adv_std")}
    cols.update({f"extra/key_{i}": np.arange(n, dtype=float) for i in range(40)})
    run = Run.from_arrays("csv-run", np.arange(1, n + 1), {k: v for k, v in cols.items() if "/" not in k},
                          format="csv")
    run.extras.update({k: Series(k, np.arange(1, n + 1), v, k) for k, v in cols.items() if "/" in k})
    return run


def test_repr_of_a_run_is_short_and_says_what_it_is(big_run):
    text = repr(big_run)
    assert len(text) < 300
    assert "csv-run" in text and "format='csv'" in text and "1000 steps" in text and "reward" in text
    assert "extras=40" in text


def test_repr_of_a_series_is_short(big_run):
    text = repr(big_run["reward"])
    assert len(text) < 200 and text.startswith("Series('reward', n=1000") and "1→1000" in text


def test_getitem_gives_metrics_and_extras_and_a_useful_key_error(big_run):
    assert big_run["reward"] is big_run.series["reward"]
    assert big_run["extra/key_3"] is big_run.extras["extra/key_3"]
    with pytest.raises(KeyError, match="metrics reward, acc, entropy, kl, adv_std"):
        big_run["rewards"]


def test_str_of_a_diagnosis_is_a_readable_summary():
    diag = rlvitals.diagnose(rlvitals.simulate("entropy_collapse", seed=1))
    text = str(diag)
    assert text.splitlines()[1].startswith("Verdict: DEAD")
    assert "1. [critical] entropy collapse (entropy_collapse)" in text
    assert "Finding(" not in text and "array(" not in text and len(text) < 2000
    assert len(repr(diag)) < 300 and "entropy_collapse:critical" in repr(diag)


def test_main_classes_are_exported_at_the_top_level():
    from rlvitals import Diagnosis, Finding, Run, Series  # noqa: F401

    assert {"Diagnosis", "Finding", "Run", "Series"} <= set(rlvitals.__all__)
    assert isinstance(rlvitals.diagnose(rlvitals.simulate("healthy", seed=2)), rlvitals.Diagnosis)


def test_diagnose_and_simulate_are_callable_and_their_subpackages_importable():
    model = importlib.import_module("rlvitals.diagnose.model")
    import rlvitals.diagnose.model
    import rlvitals.simulate.scenarios
    from rlvitals.diagnose import Finding

    assert rlvitals.diagnose.model is model and Finding is model.Finding
    assert "kl_blowup" in rlvitals.simulate.scenarios.SCENARIOS
    run = rlvitals.simulate("kl_blowup", seed=2)
    assert rlvitals.diagnose(run).top.id == "kl_blowup"
    # calling the module is calling its function (keyword arguments pass through)
    assert rlvitals.diagnose(run, samples=None).verdict == rlvitals.diagnose.diagnose(run).verdict
