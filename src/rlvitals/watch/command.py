"""`rlvitals watch LOG`: a `Follower` feeding a `Watcher`, alerts to stdout and to the sinks.

The loop only polls, parses and diagnoses; `--exec` and `--webhook` run on background threads
(`sinks.Dispatcher`), so a hanging command or a trickling server never delays the next poll.
Every fault of the file (truncated, rewritten, rotated, vanished, unreadable) is said on stderr
once, and following goes on.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from ..diagnose.model import SEVERITIES, Diagnosis
from ..errors import InputError, NotAFile, UnknownFormat
from ..i18n import t as tr
from ..run import Run
from ..safe_text import escape_controls
from .alerts import Alert, alert_payload, format_alert
from .follow import Follower, FollowEvent
from .session import Watcher, default_diagnose
from .sinks import EXEC_TIMEOUT, WEBHOOK_DEADLINE, Dispatcher, validate_webhook
from .wandb_follow import record_follower

__all__ = ["WatchConfig", "watch_file"]

# The sinks' threads and the loop share stderr.  Re-entrant: a Ctrl-C landing between acquiring it
# and the `with` block would leave it held, and the summary written after Ctrl-C would wait forever.
_lock = threading.RLock()


def _say(stream: TextIO, text: str) -> None:
    with _lock:
        try:
            stream.write(escape_controls(text) + "\n")  # keys and notes from the log: escaped
            stream.flush()
        except (OSError, ValueError):  # a closed pipe must not kill the watcher
            pass


def _event_text(ev: FollowEvent, path: Path, lang: str) -> str:
    return tr(f"watch.{ev.kind}", lang, path=path, old=ev.old, new=ev.new, limit=ev.new, reason=ev.detail)


class _Stopper:
    """Ctrl-C (SIGINT) and `kill` (SIGTERM) end a watch with its summary, but never in the middle
    of parsing or a check (an interrupt there could leave the parser's buffers half moved): while
    `busy`, the signal is noted and acted on at the end of the step."""

    def __init__(self) -> None:
        self.busy = False
        self.asked = False
        self._old: dict[int, Any] = {}

    def __call__(self, signum: int, frame: object) -> None:
        if self.busy:
            self.asked = True
        else:
            raise KeyboardInterrupt

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signals reach the main thread only; embedded watches stop through `stop`
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._old[sig] = signal.signal(sig, self)
            except (ValueError, OSError):
                pass

    def restore(self) -> None:
        for sig, old in self._old.items():
            try:
                signal.signal(sig, old)
            except (ValueError, OSError):
                pass
        self._old.clear()

    def check(self) -> None:
        self.busy = False
        if self.asked:
            raise KeyboardInterrupt


@dataclass(frozen=True)
class WatchConfig:
    """What `rlvitals watch` is asked to do: its options, with the command's defaults.

    `persist`: checks a finding must hold before it alerts; `max_wait`: seconds after which a slow
    trickle of steps is checked anyway.  At exit, queued `--exec` and `--webhook` alerts get
    `exit_wait` seconds to finish; a command still running then is killed with its process group.
    The timeouts and `rotate_grace` are for embedding and tests; `mapping` is `--map CANON=KEY`.

    `run` is `--run K`, for a log whose step counter restarts at step <= 1 (several runs appended
    to one file).  None or -1: the run being written; each restart is a new run (said on stderr,
    alerts start afresh).  K >= 1: only run K is judged; watch waits for it to begin and, once run
    K+1 begins, gives run K's summary and exits 0.  K <= -2 (from the end) needs `once`.
    """

    fmt: str | None = None
    lang: str = "en"
    until: str | None = None
    exec_cmd: str | None = None
    webhook: str | None = None
    interval: float = 1.0
    from_start: bool = True
    once: bool = False
    persist: int = 1
    max_wait: float = 30.0
    exec_timeout: float = EXEC_TIMEOUT
    webhook_deadline: float = WEBHOOK_DEADLINE
    rotate_grace: float = 2.0
    exit_wait: float = 10.0
    mapping: dict[str, str] | None = None
    run: int | None = None

    def check(self, path: Path, record_run: bool = False) -> None:
        """Bad arguments raise an `RlvitalsError` (or ValueError) before anything is read.
        `record_run`: `path` is a W&B or SwanLab run (a folder is then what is followed)."""
        iv = self.interval
        if not isinstance(iv, (int, float)) or not math.isfinite(iv) or not 0 < iv <= 86400:
            raise InputError(f"--interval must be a number of seconds from 0.01 to 86400, not {iv!r}")
        if self.until is not None and self.until not in SEVERITIES:
            raise ValueError(f"--until must be one of {', '.join(SEVERITIES)}")
        if self.webhook is not None:
            validate_webhook(self.webhook, self.lang)
        if path.is_dir() and not record_run:
            raise NotAFile(
                f"{path} is a directory: watch follows one text log file or a W&B run "
                f"(for a TensorBoard directory use `rlvitals diagnose`)"
            )
        if self.once and not path.exists():
            raise NotAFile(f"{path} does not exist")
        run = self.run
        if run == 0 or (run is not None and run < -1 and not self.once):
            raise InputError.of("watch.err.run", which=run)


def watch_file(
    path: str | Path,
    config: WatchConfig | None = None,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stop: threading.Event | None = None,
    diagnose_fn: Callable[[Run], Diagnosis] | None = None,
    **options: Any,
) -> int:
    """Follow `path`, alert once per finding, print a summary at the end; the exit status.

    The options are a `WatchConfig`, or its fields as keywords (`watch_file(p, once=True)`), or
    both (the keywords replace the config's fields).  0 when stopped (Ctrl-C, `stop` set, or
    `once` finished); 3 when an alert reached `until`.  `out` gets alerts and the summary
    (stdout), `err` the notices (stderr).  Bad arguments (a directory, `--once` on a missing file,
    a webhook URL that cannot work) raise an `RlvitalsError` before anything is read; what the
    sinks could not deliver at exit is counted on stderr.  `stop` and `diagnose_fn` are for
    embedding and tests.
    """
    cfg = replace(config or WatchConfig(), **options)
    path = Path(path)
    # a W&B or SwanLab run (or -F wandb/swanlab: one still to appear) is followed record by record
    records = record_follower(path, cfg.fmt)
    if records is not None:
        cfg = replace(cfg, fmt=records[0])
    cfg.check(path, records is not None)
    return _Watch(path, cfg, out or sys.stdout, err or sys.stderr, diagnose_fn or default_diagnose, records).follow(
        stop
    )


class _Watch:
    """One watch of one file: the steps of `watch_file` and the state they share."""

    def __init__(
        self,
        path: Path,
        cfg: WatchConfig,
        out: TextIO,
        err: TextIO,
        diagnose_fn: Callable[[Run], Diagnosis],
        records: tuple[str, Any] | None = None,
    ) -> None:
        self.path, self.cfg, self.out, self.err = path, cfg, out, err
        self.w = Watcher(
            fmt=cfg.fmt,
            lang=cfg.lang,
            name=path.stem,
            source=str(path),
            persist=1 if cfg.once else cfg.persist,
            max_wait=cfg.max_wait,
            diagnose_fn=diagnose_fn,
            mapping=dict(cfg.mapping or {}),
            run_index=cfg.run,
        )
        self.fol = (records[1] if records else Follower)(path, from_start=cfg.from_start, rotate_grace=cfg.rotate_grace)
        # the history found in the file when watching began is judged like `diagnose` would
        self.history = cfg.from_start and (records is not None or (path.is_file() and path.stat().st_size > 0))
        self.said_fmt = self.said_sniff = self.said_wait = self.said_runs_found = False
        self.n_errors = self.n_new_runs = 0
        self.sinks = Dispatcher(
            cfg.exec_cmd,
            cfg.webhook,
            lambda key, fields: self.say_err(key, **fields),
            exec_timeout=cfg.exec_timeout,
            webhook_deadline=cfg.webhook_deadline,
        )

    def say_err(self, key: str, **fields: Any) -> None:
        _say(self.err, tr(key, self.cfg.lang, **fields))

    def follow(self, stop: threading.Event | None) -> int:
        """Poll until stopped, an alert reaches `until`, `once` is done or run K is over."""
        if not self.cfg.once:
            self.say_err("watch.following", path=self.path, interval=self.cfg.interval)
        stopper = _Stopper()
        stopper.install()
        try:
            code = self.loop(stopper, stop)
            if code is not None:
                return code
        except KeyboardInterrupt:
            pass
        finally:
            stopper.restore()
        return self.last_look()

    def loop(self, stopper: _Stopper, stop: threading.Event | None) -> int | None:
        """The exit status when the watch ends by itself; None when it was stopped (`stop`)."""
        while True:
            stopper.check()
            stopper.busy = True
            if self.read():
                continue  # catch up first; diagnose once at the end of the backlog
            if self.cfg.once:
                return self.judge_once()
            code = self.judge_live()
            if code is not None:
                return code
            stopper.check()
            if stop is not None:
                if stop.wait(self.cfg.interval):
                    return None
            else:
                time.sleep(self.cfg.interval)

    def read(self) -> bool:
        """Read one poll's lines; True while a backlog remains."""
        lines, events = self.fol.poll()
        backlog = self.fol.more_pending
        if self.cfg.once and not backlog:
            lines += self.fol.flush()
        self.w.scan = not backlog  # a backlog is history: no hard-signal scan line by line
        self.take(lines, events)
        if not self.said_fmt and self.w.fmt is not None:
            self.say_err("watch.format", fmt=self.w.fmt)
            self.said_fmt = True
        if self.w.sniffing and self.w.buffered >= 200 and not self.said_sniff:
            self.say_err("watch.no_format_yet", lines=self.w.buffered)
            self.said_sniff = True
        return backlog

    def take(self, lines: list[str], events: list[FollowEvent], say: bool = True) -> None:
        for ev in events:
            if ev.kind in ("truncated", "rewritten", "wandb_run"):
                # detected before reading: every line of this poll belongs to the new run
                self.w.restart()
                self.said_fmt = self.said_sniff = False
            if say:
                _say(self.err, _event_text(ev, self.path, self.cfg.lang))
        self.w.feed(lines)

    def handle(self, alerts: list[Alert]) -> bool:
        """Print alerts and queue them for the sinks; True when `until` says stop."""
        lang, until = self.cfg.lang, self.cfg.until
        stop_now = False
        for a in alerts:
            _say(self.out, "\n" + format_alert(a, lang))
            if self.sinks.active:
                self.sinks.send(a, alert_payload(a, lang))
            if until is not None and a.at_least(until):
                self.say_err("watch.until_hit", id=a.id, sev=a.severity, until=until)
                stop_now = True
        return stop_now

    def judge_once(self) -> int:
        """`--once`: what `diagnose` would say, then the summary."""
        w = self.w
        if w.sniffing and w.buffered:
            raise UnknownFormat(
                f"{self.path}: no supported log format recognised (see `rlvitals formats`, or pass -F FORMAT)"
            )
        stop_now = self.handle(w.check(force=True, confirmed=True))
        for e in w.errors[self.n_errors :]:
            _say(self.err, e)
        if w.awaiting:
            raise InputError.of("ingest.err.no_run", which=self.cfg.run, name=self.path.name, n=w.run_count)
        self.said_runs()
        return self.finish(3 if stop_now else 0)

    def judge_live(self) -> int | None:
        """One check of a live file: the exit status when the watch ends here, else None."""
        w = self.w
        if self.handle(w.check(confirmed=self.history)):
            return self.finish(3)
        if self.said_runs():  # --run K: run K+1 began, run K is over
            return self.finish(0)
        if w.checks:
            self.history = False
        for e in w.errors[self.n_errors : self.n_errors + 1]:  # say the first failure, count the rest
            _say(self.err, e)
        self.n_errors = len(w.errors)
        return None

    def said_runs(self) -> bool:
        """Say each restart of the step counter and whether run K is awaited or over; True when
        --run K has ended."""
        w, run, path = self.w, self.cfg.run, self.path
        if not self.said_runs_found and w.run_count > 1 and (run is None or run == -1) and not w.new_runs:
            # several runs were already in the file when watching began: say which one is judged
            self.say_err("watch.runs_found", path=path, n=w.run_count)
        self.said_runs_found = self.said_runs_found or w.run_count > 1
        for number, first in w.new_runs[self.n_new_runs :]:
            self.say_err("watch.new_run", path=path, number=number, step=first)
        self.n_new_runs = len(w.new_runs)
        if w.awaiting and not self.said_wait:
            self.say_err("watch.run_waiting", path=path, n=w.run_count, number=run)
            self.said_wait = True
        if w.ended and not self.cfg.once:
            self.say_err("watch.run_ended", path=path, number=run, next=(run or 0) + 1)
        return w.ended

    def last_look(self) -> int:
        """Ctrl-C, `kill` (SIGTERM) or `stop` is how a watch normally ends: read what is left, a
        last look, the summary."""
        try:
            while True:
                lines, events = self.fol.poll()
                self.take(lines, events, say=False)
                if not self.fol.more_pending:
                    break
            hit = self.handle(self.w.check(force=True, confirmed=True))  # the end: as final as the data gets
        except KeyboardInterrupt:  # a second Ctrl-C: just the summary
            hit = False
        return self.finish(3 if hit else 0)

    def finish(self, code: int) -> int:
        _say(self.out, "\n" + self.w.summary(self.cfg.lang).rstrip())
        self.fol.close()
        for sink, n in self.sinks.close(self.cfg.exit_wait).items():
            self.say_err("watch.sink_lost", sink=sink, count=n)
        return code
