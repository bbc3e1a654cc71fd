"""`Monitor`: the same watch, inside a training loop, with no log file in between.

    from rlvitals import Monitor
    mon = Monitor(lang="zh")
    for step in range(steps):
        metrics = train_step()                 # any framework's keys: "actor/entropy", "kl", ...
        mon.log(metrics, step)
    mon.close()                                # the final diagnosis, printed once

Keys go through the ingest alias table (the run is built by `RunBuilder`, exactly as `read` does),
so the diagnosis sees the same canonical run it would see from the log file.

The Monitor never raises into the training loop: every error is caught and counted (`.errors`),
and said once at `close()`.  A step the log readers would skip (`ingest.values.parse_step`: not a
whole number in 0 ≤ step < 2**53, e.g. 2**70, -1, 1e300, NaN, "x") or a value that is not a
number is skipped and counted (`.skipped_steps`, `.skipped_values`); it never costs a good row.  Memory is bounded (`history.History`: every step up to 8,192, then a uniform
thinning that keeps every NaN).  When to check is `schedule.Scheduler`'s decision, the same as
`rlvitals watch`: every ~1% of the run's steps (at least `check_every`), at once on a NaN/inf or
a huge spike, within `step_budget` per logged step and `max_overhead` of the wall time.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from ..diagnose.model import Diagnosis, Finding
from ..i18n import t as tr
from ..ingest.jsonl import is_metric_flag
from ..ingest.values import parse_step
from ..run import Run
from ..safe_text import escape_controls
from .alerts import CONFIRM, MIN_STEPS, Alert, AlertTracker, format_alert
from .history import CAPACITY, History
from .schedule import Scheduler, SpikeWatch

__all__ = ["Monitor"]


def _default_diagnose(run: Run) -> Diagnosis:
    from ..diagnose import diagnose

    return diagnose(run)


def _to_float(v: Any) -> float | None:
    """A float from whatever a trainer logs (float, int, numpy or torch scalar, "0.5", "12%")."""
    if isinstance(v, bool) or v is None:
        return None
    try:
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, str):
            from ..ingest.values import parse_value

            return parse_value(v)
        if hasattr(v, "numel") and v.numel() != 1:  # a tensor of many values is not a metric
            return None
        if hasattr(v, "size") and not callable(v.size) and v.size != 1:  # numpy array
            return None
        return float(v)
    except (TypeError, ValueError, RuntimeError, AttributeError, OverflowError):
        return None


class Monitor:
    """Diagnose a run while it trains; alert once per finding (same rules as `rlvitals watch`).

    lang:        "en" or "zh" for what is printed.
    on_alert:    called with each `Alert` (e.g. to stop the trainer); its errors are caught too.
    check_every: at least this many logged steps between regular checks (the scheduler's
                 `min_every`; it also checks every ~1% of the run, and at once on a NaN or spike).
    stream:      where alerts and the summary are written (None: print nothing).
    persist:     consecutive checks a finding must hold before it alerts (default 1: no such
                 demand; a warning still needs a second sighting, a critical none: see `AlertTracker`).
    name:        the run's name in alerts.
    max_overhead: the share of wall time diagnoses may take (default 1%).  0 turns the cap off.
    burst:       CPU seconds checks may spend ahead of that share (a token bucket; 0 = none).
                 Default: 1 s in the background, 0 when checks run inside `log()`.
    step_budget: diagnosis cost allowed per logged step, amortised, in seconds; checks are spaced
                 so that `log()` stays within it.  Default: 0.5 ms when the checks run inside
                 `log()` (background=False), off when they run in the background.  0 = off.
    min_steps:   steps a run needs before a trend finding may alert (see `AlertTracker`; default 0).
    confirm:     checks a warning must be named at (two steps apart or more) before it alerts
                 (default 2; 1 = the first sighting; a critical alerts at its first).
    capacity:    rows kept at full resolution before the history is thinned (bounded memory).
    background:  run the diagnosis on a worker thread (default): `log()` only records the row and
                 returns in microseconds; alerts raised in the background are returned by the
                 next `log()` call, and `on_alert` is called from the worker thread.  With
                 background=False a due check runs inside `log()` (deterministic; tests, benchmarks).

    `log()` may be called from several threads at once (each row is recorded whole, under a lock;
    with step=None each call gets its own next step).  A Monitor can be pickled (a trainer that
    pickles its callbacks): its locks and worker thread are rebuilt on unpickling, sys.stderr /
    sys.stdout travel by name; `on_alert` and any other stream must be picklable themselves.
    """

    def __init__(
        self,
        lang: str = "en",
        on_alert: Callable[[Alert], Any] | None = None,
        check_every: int = 1,
        stream: TextIO | None = sys.stderr,
        *,
        persist: int = 1,
        name: str = "monitor",
        max_overhead: float = 0.01,
        step_budget: float | None = None,
        diagnose_fn: Callable[[Run], Diagnosis] | None = None,
        clock: Callable[[], float] = time.monotonic,
        timer: Callable[[], float] = time.thread_time,
        capacity: int = CAPACITY,
        background: bool = True,
        min_steps: int = MIN_STEPS,
        burst: float | None = None,
        confirm: int = CONFIRM,
    ) -> None:
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
        self.skipped_steps = 0
        self.steps_logged = 0
        self.checks = 0
        self.closed = False
        self.history = History(capacity)
        self._tracker = AlertTracker(persist=persist, min_steps=min_steps, confirm=confirm)
        self._diagnose = diagnose_fn or _default_diagnose
        self._bad_key = ""
        self._bad_step = ""
        self._last_step = -1
        self._timer = timer
        if step_budget is None:
            step_budget = 0.0 if background else 0.0005
        self.schedule = Scheduler(
            min_every=self.check_every,
            max_overhead=max_overhead,
            step_budget=step_budget,
            max_wait=math.inf,
            burst=(1.0 if background else 0.0) if burst is None else burst,
            clock=clock,
        )
        self._spikes = SpikeWatch()
        self.background = background
        self.check_cpu = 0.0  # CPU seconds spent in checks (wherever they ran)
        self._lock = threading.RLock()  # history, schedule, alerts: shared with the worker
        self._checking = threading.Lock()  # the tracker: one check at a time
        self._fresh: list[Alert] = []  # raised in the background, not yet returned by log()
        self._wake = threading.Event()
        self._busy = False
        self._worker: threading.Thread | None = None

    @property
    def max_overhead(self) -> float:
        return self.schedule.max_overhead

    @property
    def step_budget(self) -> float:
        return self.schedule.step_budget

    # -- the training-loop side ----------------------------------------------------------------
    def log(self, metrics: Mapping[str, Any], step: int | None = None) -> list[Alert]:
        """Record one step's metrics (framework keys); the alerts this step raised (usually [])."""
        try:
            return self._log(metrics, step)
        except Exception as e:  # never into the training loop
            self._error(e)
            return []

    def _log(self, metrics: Mapping[str, Any], step: Any) -> list[Alert]:
        if self.closed:
            return []
        values: list[tuple[str, float]] = []
        bad_values, bad_key = 0, ""
        for key, v in metrics.items():  # conversion needs no lock
            if key == "step":
                continue
            # a boolean read as 1/0, as JSON Lines reads it (`update_skipped`, `solved`, `truncated`)
            x = float(v) if isinstance(v, bool) and is_metric_flag(str(key)) else _to_float(v)
            if x is None:
                if v is not None:  # None is TRL's "no valid value this window": not an error
                    bad_values += 1
                    bad_key = bad_key or str(key)
                continue
            values.append((str(key), x))
        # Several threads may log at once: the step, the history, the spikes and the counters
        # move together under the lock (no step recorded twice, no count lost).
        with self._lock:
            if bad_values:
                self.skipped_values += bad_values
                self._bad_key = self._bad_key or bad_key
            # no step: one more than the last; else the readers' own rule (ingest.values.parse_step)
            got = self._last_step + 1 if step is None else parse_step(step)
            if isinstance(got, str):
                self.skipped_steps += 1
                self._bad_step = self._bad_step or repr(step)[:40]
                return []
            k: int = got
            row = dict(values)
            hard = False
            spikes = self._spikes
            for key, x in row.items():
                if spikes(key, x):
                    hard = True
            if row:
                self.history.add(k, row)
                self._last_step = k
                self.steps_logged += 1
                self.schedule.note(1, hard)
            if not self.background:
                due = bool(row) and self.schedule.due()
            else:
                if row and not self._busy and self.schedule.due():
                    self._busy = True
                    self._start_worker()
                    self._wake.set()
                fresh, self._fresh = self._fresh, []
                return fresh
        return self.check() if due else []

    # -- checking --------------------------------------------------------------------------------
    def _start_worker(self) -> None:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="rlvitals-monitor", daemon=True)
            self._worker.start()

    def _work(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self.closed:
                return
            try:
                new = self.check()
                with self._lock:
                    self._fresh += new
            finally:
                self._busy = False

    def check(self, final: bool = False) -> list[Alert]:
        """Diagnose what has been logged so far and raise any alert it earns (one check at a time).
        final: the run is over (`close`): what the diagnosis names now needs no second check."""
        with self._checking:
            return self._check(final)

    def _check(self, final: bool = False) -> list[Alert]:
        t0 = self._timer()
        taken = soon = 0
        try:
            with self._lock:
                run = self.history.build(self.name)
                n = self.steps_logged
                taken = self.schedule.pending  # steps logged while it runs stay pending
            if run.n_steps == 0:
                return []
            diag = self._diagnose(run)
            self.diagnosis = diag
            self.checks += 1
            new = self._tracker.update(diag, int(run.steps[-1]), run=self.name, n_steps=n, confirmed=final)
            soon = self._tracker.confirm_steps if self._tracker.unconfirmed else 0
        except Exception as e:
            self._error(e)
            return []
        finally:
            cost = self._timer() - t0
            self.check_cpu += cost
            with self._lock:
                self.schedule.ran(cost, taken)
                self.schedule.soon = soon
        with self._lock:
            self.alerts += new
        for a in new:
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

    def run(self) -> Run:
        """The run logged so far, as a `Run` (the same object `rlvitals.read` would give)."""
        return self.history.build(self.name)

    def close(self) -> Diagnosis | None:
        """A last diagnosis, the summary written to `stream`, and the diagnosis returned."""
        if self.closed:
            return self.diagnosis
        worker = self._worker
        self.closed = True
        if worker is not None:  # let a check in flight finish, then stop the worker
            self._wake.set()
            worker.join(30)
        try:
            if self.schedule.pending or self.diagnosis is None or self._tracker.unconfirmed:
                self.check(final=True)
            from .session import render_summary

            if self.diagnosis is not None:
                head = tr("monitor.summary.head", self.lang, steps=self.steps_logged, alerts=len(self.alerts))
                self._write("\n" + head + "\n" + render_summary(self.diagnosis, self.lang).rstrip())
            if self.skipped_steps:
                self._write(tr("monitor.bad_steps", self.lang, count=self.skipped_steps, step=self._bad_step))
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

    # -- pickling (a trainer that pickles its callbacks) -----------------------------------------
    _STREAMS = ("stderr", "stdout")

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the locks, the event and the worker thread (rebuilt on unpickling);
        sys.stderr / sys.stdout travel by name."""
        with self._lock:
            state = dict(self.__dict__)
        for name in ("_lock", "_checking", "_wake", "_worker"):
            state.pop(name, None)
        state["_busy"] = False
        for name in self._STREAMS:
            if state.get("stream") is getattr(sys, name) or state.get("stream") is getattr(sys, f"__{name}__"):
                state["stream"] = f"<sys.{name}>"
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        stream = state.get("stream")
        if isinstance(stream, str) and stream.startswith("<sys."):
            state["stream"] = getattr(sys, stream[5:-1])
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._checking = threading.Lock()
        self._wake = threading.Event()
        self._worker = None  # started again at the next check that is due

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
            self.stream.write(escape_controls(text) + "\n")  # a metric's name may hold anything
            self.stream.flush()
        except Exception as e:
            self._error(e)
