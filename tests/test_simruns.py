"""The tests' session-shared RL-loop runs (simruns.py) are the engine's runs, and each caller's own."""

from __future__ import annotations

import numpy as np
import simruns

from rlvitals.simulate import rlloop


def test_a_shared_run_is_the_engines_run_and_each_caller_gets_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv(simruns.ENV, str(tmp_path))
    monkeypatch.setattr(simruns, "_MEMO", {})
    engine = rlloop.simulate_rl("healthy", seed=7, steps=40, temperature=0.9)
    made = simruns.simulate_rl("healthy", seed=7, steps=40, temperature=0.9)
    assert len(list(tmp_path.glob("*.pickle"))) == 1  # left for the other workers
    monkeypatch.setattr(simruns, "_MEMO", {})  # another worker: loads it from the folder
    loaded = simruns.simulate_rl("healthy", seed=7, steps=40, temperature=0.9)
    for run in (made, loaded):
        assert run is not engine and run.meta == engine.meta
        assert set(run.series) == set(engine.series)
        for k, s in engine.series.items():
            np.testing.assert_array_equal(run.series[k].steps, s.steps)
            np.testing.assert_array_equal(run.series[k].values, s.values)
    # a test that edits its run changes nobody else's
    made.series["reward"].values[:] = -1.0
    made.meta["truth"]["scenario"] = "edited"
    again = simruns.simulate_rl("healthy", seed=7, steps=40, temperature=0.9)
    np.testing.assert_array_equal(again.series["reward"].values, engine.series["reward"].values)
    assert again.meta == engine.meta
    # another seed or knob is another run
    other = simruns.simulate_rl("healthy", seed=7, steps=40, temperature=0.5)
    assert not np.array_equal(other.series["entropy"].values, engine.series["entropy"].values)
    assert len(list(tmp_path.glob("*.pickle"))) == 2
