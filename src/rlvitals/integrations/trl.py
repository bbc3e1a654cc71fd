"""A ready callback for TRL (any `transformers.Trainer`): rlvitals watches the run as it trains.

    from trl import GRPOTrainer
    from rlvitals.integrations.trl import RlvitalsCallback
    trainer = GRPOTrainer(..., callbacks=[RlvitalsCallback(lang="zh", stop_on="critical")])

Every `on_log` (TRL logs every `logging_steps`, default 10) feeds the logged dict to a
`rlvitals.Monitor` at `state.global_step`; alerts are printed as they happen, the summary at the end
of training.  With `stop_on="critical"` the callback sets `control.should_training_stop` on the
first alert at that severity, so the trainer saves and stops instead of burning GPU hours.

`transformers` is an optional dependency: importing this module never needs it; creating the
callback does, and without it raises `MissingExtra` with the install line.  The class is built the
first time it is asked for, as a real `transformers.TrainerCallback` subclass.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from ..errors import MissingExtra
from ..i18n import t as tr
from ..watch.alerts import Alert
from ..watch.monitor import Monitor

__all__ = ["RlvitalsCallback", "make_callback"]  # noqa: F822 - RlvitalsCallback comes from __getattr__

_CLASS: type | None = None


def _base() -> type:
    try:
        from transformers import TrainerCallback
    except ImportError:
        raise MissingExtra("transformers", "trl", "The TRL callback") from None
    base: type = TrainerCallback
    return base


def _build() -> type:
    """Create the callback class on top of the installed `transformers.TrainerCallback`."""
    base = _base()

    class RlvitalsCallback(base):  # type: ignore[misc, valid-type]
        """Feeds each `on_log` dict to a `Monitor`; optionally stops training on an alert.

        lang, check_every, stream, persist, name, max_overhead, step_budget, background: passed to
        `Monitor` (the same scheduler as `rlvitals watch`: a check every ~1% of the steps logged,
        at once on a NaN or a spike, within 1% of the wall time; by default on a worker thread, so
        `on_log` returns at once and a stop asked for in the background lands at the next `on_log`).
        stop_on: None (only alert), "warning" or "critical": stop training at the first alert
                 at or above it.
        monitor: an existing `Monitor` to feed instead of a new one.
        """

        def __init__(
            self,
            lang: str = "en",
            *,
            stop_on: str | None = None,
            check_every: int = 1,
            stream: TextIO | None = sys.stderr,
            persist: int = 1,
            monitor: Monitor | None = None,
            name: str = "trl",
            max_overhead: float = 0.01,
            step_budget: float | None = None,
            background: bool = True,
        ) -> None:
            if stop_on not in (None, "warning", "critical"):
                raise ValueError("stop_on must be None, 'warning' or 'critical'")
            self.lang = lang
            self.stop_on = stop_on
            self.stream = stream
            self._stop_requested = False
            # TRL logs every `logging_steps` steps, so each on_log is already a 10-step window:
            # checking on every log costs little and keeps the delay short.
            self.monitor = monitor or Monitor(
                lang=lang,
                on_alert=self._on_alert,
                check_every=check_every,
                stream=stream,
                persist=persist,
                name=name,
                max_overhead=max_overhead,
                step_budget=step_budget,
                background=background,
            )

        def _on_alert(self, alert: Alert) -> None:
            if self.stop_on is not None and alert.at_least(self.stop_on):
                self._stop_requested = True

        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> Any:
            try:
                if not logs or not getattr(state, "is_world_process_zero", True):
                    return control
                # `eval_*` dicts and the end-of-training summary (train_runtime, ...) are not steps
                # of the policy; the alias table ignores eval keys, the summary has no vital.
                step = getattr(state, "global_step", None)  # absent: the Monitor counts steps itself
                self.monitor.log(dict(logs), None if step is None else int(step))
                if self._stop_requested and control is not None:
                    if not getattr(control, "should_training_stop", False) and self.stream is not None:
                        a = next((x for x in self.monitor.alerts if x.at_least(self.stop_on or "critical")), None)
                        if a is not None:
                            self.stream.write(tr("trl.stopping", self.lang, id=a.id, sev=a.severity) + "\n")
                    control.should_training_stop = True
            except Exception as e:  # never into the training loop
                self.monitor._error(e)
            return control

        def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            if getattr(state, "is_world_process_zero", True):
                self.monitor.close()
            return control

    RlvitalsCallback.__module__ = __name__
    return RlvitalsCallback


def make_callback(**kwargs: Any) -> Any:
    """`RlvitalsCallback(**kwargs)`; raises `MissingExtra` when transformers is not installed."""
    return _callback_class()(**kwargs)


def _callback_class() -> type:
    global _CLASS
    if _CLASS is None:
        _CLASS = _build()
    return _CLASS


def __getattr__(name: str) -> type:
    if name == "RlvitalsCallback":
        return _callback_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
