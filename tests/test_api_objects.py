"""The Python API as a newcomer meets it in a REPL: short reprs, a readable str(diagnosis),
run["reward"], the main classes at the top level, `rlvitals.diagnose_run` / `rlvitals.simulate_run`
beside their subpackages, and 0.1's call of the subpackages still working with a warning."""

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
    run = Run.from_arrays("csv-run", np.arange(1, n + 1), {k: v for k, v in cols.items() if "/" not in k}, format="csv")
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
    diag = rlvitals.diagnose_run(rlvitals.simulate_run("entropy_collapse", seed=1))
    text = str(diag)
    assert text.splitlines()[1].startswith("Verdict: DEAD")
    assert "1. [critical] entropy collapse (entropy_collapse)" in text
    assert "Finding(" not in text and "array(" not in text and len(text) < 2000
    assert len(repr(diag)) < 300 and "entropy_collapse:critical" in repr(diag)


def test_main_classes_are_exported_at_the_top_level():
    from rlvitals import Diagnosis, Finding, Run, Series  # noqa: F401

    assert {"Diagnosis", "Finding", "Run", "Series"} <= set(rlvitals.__all__)
    assert isinstance(rlvitals.diagnose_run(rlvitals.simulate_run("healthy", seed=2)), rlvitals.Diagnosis)


def test_diagnose_run_and_simulate_run_sit_beside_their_subpackages():
    model = importlib.import_module("rlvitals.diagnose.model")
    import rlvitals.diagnose.model
    import rlvitals.simulate.scenarios
    from rlvitals.diagnose import Finding

    assert rlvitals.diagnose.model is model and Finding is model.Finding
    assert "kl_blowup" in rlvitals.simulate.scenarios.SCENARIOS
    run = rlvitals.simulate_run("kl_blowup", seed=2)
    assert rlvitals.diagnose_run(run).top.id == "kl_blowup"
    assert rlvitals.diagnose_run(run, samples=None).verdict == rlvitals.diagnose.diagnose(run).verdict


def test_calling_the_subpackages_as_0_1_did_still_works_and_warns():
    """0.1's `rlvitals.diagnose(run)` / `from rlvitals import simulate; simulate(name)`: the same
    result as the plain functions, with a DeprecationWarning that names them (until 0.3)."""
    from rlvitals import simulate

    with pytest.warns(DeprecationWarning, match=r"rlvitals\.simulate is deprecated .* rlvitals\.simulate_run\(") as got:
        run = simulate("kl_blowup", seed=2, steps=120)
    assert got[0].filename == __file__  # the warning points at the caller's line
    assert np.array_equal(run["kl"].values, rlvitals.simulate_run("kl_blowup", seed=2, steps=120)["kl"].values)
    with pytest.warns(DeprecationWarning, match=r"stops working in rlvitals 0\.3: call rlvitals\.diagnose_run\("):
        old = rlvitals.diagnose(run, samples=None)
    new = rlvitals.diagnose_run(run)
    assert (old.verdict, [f.id for f in old.findings]) == (new.verdict, [f.id for f in new.findings])
