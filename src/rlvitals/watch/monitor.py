"""`Monitor`: the same watch, inside a training loop, with no log file in between.

    from rlvitals import Monitor
    mon = Monitor(lang="zh")
    for step in range(steps):
        metrics = train_step()                 # any framework's keys: "actor/entropy", "kl", ...
        mon.log(metrics, step)
    mon.close()                                # the final diagnosis, printed once

Keys go through the ingest alias table (`RunBuilder` maps them at build time, exactly as `read`
does), so the diagnosis sees the same canonical run it would see from the log file.

The Monitor never raises into the training loop: every error is caught and counted (`.errors`),
and said once at `close()`.  Cost: `log` appends a few numbers (microseconds); a diagnosis runs
only every `check_every` steps, less often as the run grows (every `steps/200` steps), and never
more than `max_overhead` (1%) of the loop's wall time (benchmarks/bench_watch.py measures it).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from ..diagnose.model import Diagnosis, Finding
from ..i18n import t as tr
from .alerts import Alert, AlertTracker, format_alert

__all__ = ["Monitor"]


def _default_diagnose(run):
    from ..diagnose import diagnose

    return diagnose(run)


def _to_float(v: Any) -> float | None:
    """A float from whatever a trainer logs (float, int, numpy or torch scalar, "0.5", "12%")."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        from ..ingest.values import parse_value

        return parse_value(v)
    try:
        if hasattr(v, "numel") and v.numel() != 1:  # a tensor of many values is not a metric
            return None
        if hasattr(v, "size") and not callable(v.size) and v.size != 1:  # numpy array
            return None
        return float(v)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        return None


class Monitor:
    """Diagnose a run while it trains; alert once per finding (same rules as `rlvitals watch`).

    lang:        "en" or "zh" for what is printed.
    on_alert:    called with each `Alert` (e.g. to stop the trainer); its errors are caught too.
    check_every: diagnose at most every this many logged steps (and every steps/200 on long runs).
    stream:      where alerts and the summary are written (None: print nothing).
    persist:     consecutive checks a finding must hold before it alerts.
    name:        the run's name in alerts.
    max_overhead: the share of wall time diagnoses may take (default 1%): a check is skipped until
                 the last one's duration / max_overhead has passed.  0 turns the cap off.
    step_budget: amortised diagnosis cost allowed per logged step, in seconds (default 0.5 ms): a
                 check waits until last check's cost / step_budget steps have been logged, so
                 `log()` stays well under a millisecond per step however fast the loop is.  0 = off.
    """

    def __init__(self, lang: str = "en", on_alert: Callable[[Alert], Any] | None = None, check_every: int = 10,
                 stream: TextIO | None = sys.stderr, *, persist: int = 2, name: str = "monitor",
                 max_overhead: float = 0.01, step_budget: float = 0.0005,
                 diagnose_fn: Callable[[object], Diagnosis] | None = None,
                 clock: Callable[[], float] = time.monotonic, timer: Callable[[], float] = time.thread_time) -> None:
        from ..ingest.builder import RunBuilder

        self.lang = lang
        self.on_alert = on_alert
        self.check_every = max(1, int(check_every))
        self.stream = stream
        self.name = name
        self.alerts: list[Alert] = []
        self.diagnosis: Diagnosis | None = None
        self.errors: list[str] = []
        self.error_count = 0
        self.skipped_values = 0
        self.steps_logged = 0
        self.checks = 0
        self.closed = False
        self._builder = RunBuilder(name, "monitor")
        self._tracker = AlertTracker(persist=persist)
        self._diagnose = diagnose_fn or _default_diagnose
        self._pending = 0
        self._steps_at_check = 0
        self._bad_key = ""
        self._last_step = -1
        self.max_overhead = max_overhead
        self.step_budget = step_budget
        self._clock, self._timer = clock, timer
        self._last_check = clock()
        self._last_cost = 0.0

    # -- the training-loop side ----------------------------------------------------------------
    def log(self, metrics: Mapping[str, Any], step: int | None = None) -> list[Alert]:
        """Record one step's metrics (framework keys); the alerts this step raised (usually [])."""
        try:
            return self._log(metrics, step)
        except Exception as e:  # never into the training loop
            self._error(e)
            return []

    def _log(self, metrics: Mapping[str, Any], step: int | None) -> list[Alert]:
        if self.closed:
            return []
        if step is None:  # no step given: one more than the last
            step = self._last_step + 1
        row: dict[str, float] = {}
        for key, v in metrics.items():
            if key == "step":
                continue
            x = _to_float(v)
            if x is None:
                if v is not None:  # None is TRL's "no valid value this window": not an error
                    self.skipped_values += 1
                    self._bad_key = self._bad_key or str(key)
                continue
            row[str(key)] = x
        if not row:
            return []
        self._builder.add_row(int(step), row)
        self._last_step = int(step)
        self.steps_logged += 1
        self._pending += 1
        every = max(self.check_every, self._steps_at_check // 200)
        if self.step_budget > 0:
            every = max(every, int(self._last_cost / self.step_budget))
        if self._pending < every:
            return []
        # the diagnosis may take at most `max_overhead` of the training loop's wall time
        if self.max_overhead > 0 and self._clock() - self._last_check < self._last_cost / self.max_overhead:
            return []
        return self.check()

    def check(self) -> list[Alert]:
        """Diagnose what has been logged so far and raise any alert it earns."""
        t0 = self._timer()
        self._last_check = self._clock()
        try:
            self._pending = 0
            run = self._builder.build()
            if run.n_steps == 0:
                return []
            self._steps_at_check = run.n_steps
            diag = self._diagnose(run)
            self.diagnosis = diag
            self.checks += 1
            new = self._tracker.update(diag, int(run.steps[-1]), run=self.name, n_steps=run.n_steps)
        except Exception as e:
            self._error(e)
            return []
        finally:
            self._last_cost = self._timer() - t0
        for a in new:
            self.alerts.append(a)
            self._write("\n" + format_alert(a, self.lang))
            if self.on_alert is not None:
                try:
                    self.on_alert(a)
                except Exception as e:
                    self._error(e)
        return new

    # -- results ---------------------------------------------------------------------------------
    @property
    def findings(self) -> tuple[Finding, ...]:
        """The findings of the latest diagnosis (all severities), most important first."""
        return self.diagnosis.findings if self.diagnosis is not None else ()

    def run(self):
        """The run logged so far, as a `Run` (the same object `rlvitals.read` would give)."""
        return self._builder.build()

    def close(self) -> Diagnosis | None:
        """A last diagnosis, the summary written to `stream`, and the diagnosis returned."""
        if self.closed:
            return self.diagnosis
        try:
            if self._pending or self.diagnosis is None:
                self.check()
            from .session import render_summary

            if self.diagnosis is not None:
                head = tr("monitor.summary.head", self.lang, steps=self.steps_logged, alerts=len(self.alerts))
                self._write("\n" + head + "\n" + render_summary(self.diagnosis, self.lang).rstrip())
            if self.skipped_values:
                self._write(tr("monitor.bad_values", self.lang, count=self.skipped_values, key=self._bad_key))
            if self.error_count:
                self._write(tr("monitor.errors", self.lang, count=self.error_count, first=self.errors[0]))
        except Exception as e:
            self._error(e)
        self.closed = True
        return self.diagnosis

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------
    def _error(self, e: BaseException) -> None:
        self.error_count += 1
        if len(self.errors) < 20:  # keep the first few, count them all
            self.errors.append(f"{type(e).__name__}: {e}")

    def _write(self, text: str) -> None:
        if self.stream is None:
            return
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except Exception as e:
            self._error(e)

