"""The TRL callback, against a minimal stand-in `transformers` module (TRL is not installed here)."""

from __future__ import annotations

import importlib
import io
import sys
import types
from dataclasses import dataclass

import pytest
from watch_helpers import fake_diagnose

from rlvitals.errors import MissingExtra


class TrainerCallback:
    """The part of transformers.TrainerCallback the Trainer relies on: event methods that return None."""

    def on_log(self, args, state, control, **kwargs):
        return None

    def on_train_end(self, args, state, control, **kwargs):
        return None


@dataclass
class State:
    global_step: int = 0
    is_world_process_zero: bool = True


@dataclass
class Control:
    should_training_stop: bool = False


@pytest.fixture
def trl_mod(monkeypatch):
    fake = types.ModuleType("transformers")
    fake.TrainerCallback = TrainerCallback
    monkeypatch.setitem(sys.modules, "transformers", fake)
    mod = importlib.import_module("rlvitals.integrations.trl")
    monkeypatch.setattr(mod, "_CLASS", None)  # build against this fake, not a cached class
    yield mod
    mod._CLASS = None


def logs(entropy):
    return {
        "loss": 0.0,
        "grad_norm": 0.3,
        "learning_rate": 1e-6,
        "reward": 0.5,
        "entropy": entropy,
        "completions/mean_length": 100.0,
        "epoch": 0.1,
    }


def test_import_needs_no_transformers_but_use_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # import transformers -> ImportError
    mod = importlib.import_module("rlvitals.integrations.trl")
    monkeypatch.setattr(mod, "_CLASS", None)
    with pytest.raises(MissingExtra, match=r"pip install 'rlvitals\[trl\]'"):
        mod.RlvitalsCallback
    with pytest.raises(MissingExtra):
        mod.make_callback()


def test_is_a_trainer_callback_and_feeds_the_monitor(trl_mod):
    out = io.StringIO()
    cb = trl_mod.RlvitalsCallback(stream=out, max_overhead=0, step_budget=0, background=False)
    cb.monitor._diagnose = fake_diagnose
    assert isinstance(cb, TrainerCallback)
    state, control = State(), Control()
    for i, e in enumerate([1.5] * 20 + [0.05] * 3):
        state.global_step = (i + 1) * 10
        assert cb.on_log(None, state, control, logs=logs(e)) is control
    assert [a.id for a in cb.monitor.alerts] == ["entropy_collapse"]
    # named at the logs of step 210 and 220: said at 220, the trainer's global step, not a count of logs
    assert cb.monitor.alerts[0].step == 220
    assert not control.should_training_stop  # stop_on not set: alert only
    cb.on_train_end(None, state, control)
    assert "[WARNING]" in out.getvalue() and cb.monitor.closed


def test_stop_on_critical_asks_the_trainer_to_stop(trl_mod):
    out = io.StringIO()
    cb = trl_mod.make_callback(
        stream=out, stop_on="critical", lang="zh", max_overhead=0, step_budget=0, background=False
    )
    cb.monitor._diagnose = fake_diagnose
    state, control = State(), Control()
    for i, e in enumerate([1.5] * 20 + [0.05] * 6):
        state.global_step = i + 1
        cb.on_log(None, state, control, logs=logs(e))
    assert [a.severity for a in cb.monitor.alerts] == ["warning"]
    assert not control.should_training_stop  # a warning does not stop
    for step in (30, 33, 36):
        state.global_step = step
        cb.on_log(None, state, control, logs=logs(0.001))
    assert control.should_training_stop
    assert "请训练器停止" in out.getvalue()


def test_only_the_main_process_and_never_raises(trl_mod):
    cb = trl_mod.RlvitalsCallback(stream=None, background=False)
    cb.monitor._diagnose = fake_diagnose
    cb.on_log(None, State(1, is_world_process_zero=False), Control(), logs=logs(1.0))
    assert cb.monitor.steps_logged == 0
    # a state without global_step: the monitor counts steps itself
    cb.on_log(None, object(), Control(), logs=logs(1.0))
    assert cb.monitor.steps_logged == 1
    cb.on_log(None, State(2), None, logs={"eval_reward": 0.4})  # eval keys never stand in for reward
    assert list(cb.monitor.run().series["reward"].values) == [0.5]
    # logs that are not a dict: caught and counted, the trainer goes on
    control = Control()
    assert cb.on_log(None, State(3), control, logs=5) is control
    assert cb.monitor.error_count == 1
    with pytest.raises(ValueError):
        trl_mod.RlvitalsCallback(stop_on="sometimes")
