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
from pathlib import Path
from typing import Any, TextIO

from ..diagnose.model import SEVERITIES, Diagnosis
from ..errors import InputError, NotAFile, UnknownFormat
from ..i18n import t as tr
from ..run import Run
from ..safe_text import escape_controls
from .alerts import Alert, alert_payload, format_alert
from .follow import Follower, FollowEvent
from .session import Watcher, _default_diagnose
from .sinks import EXEC_TIMEOUT, WEBHOOK_DEADLINE, Dispatcher, validate_webhook

__all__ = ["watch_file"]

# The sinks' threads and the loop share stderr.  Re-entrant: a Ctrl-C landing between acquiring it
# and the `with` block would leave it held, and the summary written after Ctrl-C would wait forever.
_lock = threading.RLock()


def _say(stream: TextIO, text: str) -> None:
    with _lock:
        try:
            stream.write(escape_controls(text) + "\n")   # keys and notes from the log: escaped
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


def watch_file(path: str | Path, fmt: str | None = None, lang: str = "en", until: str | None = None,
               exec_cmd: str | None = None, webhook: str | None = None, interval: float = 1.0,
               from_start: bool = True, once: bool = False, *, out: TextIO | None = None,
               err: TextIO | None = None, persist: int = 1, max_wait: float = 30.0,
               stop: threading.Event | None = None, diagnose_fn: Callable[[Run], Diagnosis] | None = None,
               exec_timeout: float = EXEC_TIMEOUT, webhook_deadline: float = WEBHOOK_DEADLINE,
               rotate_grace: float = 2.0, exit_wait: float = 10.0, mapping: dict[str, str] | None = None,
               run: int | None = None) -> int:
    """Follow `path`, alert once per finding, print a summary at the end; the exit status.

    0 when stopped (Ctrl-C, `stop` set, or `once` finished); 3 when an alert reached `until`.
    `out` gets alerts and the summary (stdout), `err` the notices (stderr).  `persist`: checks a
    finding must hold before it alerts; `max_wait`: seconds after which a slow trickle of steps is
    checked anyway.  Bad arguments (a directory, `--once` on a missing file, a webhook URL that
    cannot work) raise an `RlvitalsError` before anything is read.  At exit, queued `--exec` and
    `--webhook` alerts get `exit_wait` seconds to finish; a command still running then is killed
    with its process group, and what was not delivered is counted on stderr.  `stop`,
    `diagnose_fn`, the timeouts and `rotate_grace` are for embedding and tests; `mapping` is
    `--map CANON=KEY`.

    `run` is `--run K`, for a log whose step counter restarts at step <= 1 (several runs appended
    to one file).  None or -1: the run being written; each restart is a new run (said on stderr,
    alerts start afresh).  K >= 1: only run K is judged; watch waits for it to begin and, once run
    K+1 begins, gives run K's summary and exits 0.  K <= -2 (from the end) needs `once`.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    path = Path(path)
    if not isinstance(interval, (int, float)) or not math.isfinite(interval) or not 0 < interval <= 86400:
        raise InputError(f"--interval must be a number of seconds from 0.01 to 86400, not {interval!r}")
    if until is not None and until not in SEVERITIES:
        raise ValueError(f"--until must be one of {', '.join(SEVERITIES)}")
    if webhook is not None:
        validate_webhook(webhook, lang)
    if path.is_dir():
        raise NotAFile(f"{path} is a directory: watch follows one text log file "
                       f"(for a TensorBoard directory use `rlvitals diagnose`)")
    if once and not path.exists():
        raise NotAFile(f"{path} does not exist")
    if run == 0 or (run is not None and run < -1 and not once):
        raise InputError.of("watch.err.run", which=run)
    w = Watcher(fmt=fmt, lang=lang, name=path.stem, source=str(path), persist=1 if once else persist,
                max_wait=max_wait, diagnose_fn=diagnose_fn or _default_diagnose, mapping=dict(mapping or {}),
                run_index=run)
    fol = Follower(path, from_start=from_start, rotate_grace=rotate_grace)
    history = from_start and path.is_file() and path.stat().st_size > 0
    said_fmt = said_sniff = said_wait = said_runs_found = False
    n_errors = n_new_runs = 0
    sinks = Dispatcher(exec_cmd, webhook, lambda key, fields: _say(err, tr(key, lang, **fields)),
                       exec_timeout=exec_timeout, webhook_deadline=webhook_deadline)

    def handle(alerts: list[Alert]) -> bool:
        """Print alerts and queue them for the sinks; True when `until` says stop."""
        stop_now = False
        for a in alerts:
            _say(out, "\n" + format_alert(a, lang))
            if sinks.active:
                sinks.send(a, alert_payload(a, lang))
            if until is not None and a.at_least(until):
                _say(err, tr("watch.until_hit", lang, id=a.id, sev=a.severity, until=until))
                stop_now = True
        return stop_now

    def take(lines: list[str], events: list[FollowEvent], say: bool = True) -> None:
        nonlocal said_fmt, said_sniff
        for ev in events:
            if ev.kind in ("truncated", "rewritten"):
                # detected before reading: every line of this poll belongs to the new run
                w.restart()
                said_fmt = said_sniff = False
            if say:
                _say(err, _event_text(ev, path, lang))
        w.feed(lines)

    def said_runs() -> bool:
        """Say each restart of the step counter and whether run K is awaited or over; True when
        --run K has ended."""
        nonlocal n_new_runs, said_wait, said_runs_found
        if not said_runs_found and w.run_count > 1 and (run is None or run == -1) and not w.new_runs:
            # several runs were already in the file when watching began: say which one is judged
            _say(err, tr("watch.runs_found", lang, path=path, n=w.run_count))
        said_runs_found = said_runs_found or w.run_count > 1
        for number, first in w.new_runs[n_new_runs:]:
            _say(err, tr("watch.new_run", lang, path=path, number=number, step=first))
        n_new_runs = len(w.new_runs)
        if w.awaiting and not said_wait:
            _say(err, tr("watch.run_waiting", lang, path=path, n=w.run_count, number=run))
            said_wait = True
        if w.ended and not once:
            _say(err, tr("watch.run_ended", lang, path=path, number=run, next=(run or 0) + 1))
        return w.ended

    def finish(code: int) -> int:
        _say(out, "\n" + w.summary(lang).rstrip())
        fol.close()
        for sink, n in sinks.close(exit_wait).items():
            _say(err, tr("watch.sink_lost", lang, sink=sink, count=n))
        return code

    if not once:
        _say(err, tr("watch.following", lang, path=path, interval=interval))
    stopper = _Stopper()
    stopper.install()
    try:
        while True:
            stopper.check()
            stopper.busy = True
            lines, events = fol.poll()
            backlog = fol.more_pending
            if once and not backlog:
                lines += fol.flush()
            w.scan = not backlog   # a backlog is history: no hard-signal scan line by line
            take(lines, events)
            if not said_fmt and w.fmt is not None:
                _say(err, tr("watch.format", lang, fmt=w.fmt))
                said_fmt = True
            if w.sniffing and w.buffered >= 200 and not said_sniff:
                _say(err, tr("watch.no_format_yet", lang, lines=w.buffered))
                said_sniff = True
            if backlog:
                continue  # catch up first; diagnose once at the end of the backlog
            if once:
                if w.sniffing and w.buffered:
                    raise UnknownFormat(f"{path}: no supported log format recognised "
                                        f"(see `rlvitals formats`, or pass -F FORMAT)")
                stop_now = handle(w.check(force=True, confirmed=True))  # what `diagnose` would say
                for e in w.errors[n_errors:]:
                    _say(err, e)
                if w.awaiting:
                    raise InputError.of("ingest.err.no_run", which=run, name=path.name, n=w.run_count)
                said_runs()
                return finish(3 if stop_now else 0)
            # the history found in the file when watching began is judged like `diagnose` would
            if handle(w.check(confirmed=history)):
                return finish(3)
            if said_runs():     # --run K: run K+1 began, run K is over
                return finish(0)
            if w.checks:
                history = False
            for e in w.errors[n_errors:n_errors + 1]:  # say the first failure, count the rest
                _say(err, e)
            n_errors = len(w.errors)
            stopper.check()
            if stop is not None:
                if stop.wait(interval):
                    break
            else:
                time.sleep(interval)
    except KeyboardInterrupt:
        pass
    finally:
        stopper.restore()
    # Ctrl-C, `kill` (SIGTERM) or `stop` is how a watch normally ends: read what is left, a last
    # look, the summary
    try:
        while True:
            lines, events = fol.poll()
            take(lines, events, say=False)
            if not fol.more_pending:
                break
        hit = handle(w.check(force=True, confirmed=True))   # the end: as final as the data gets
    except KeyboardInterrupt:  # a second Ctrl-C: just the summary
        hit = False
    return finish(3 if hit else 0)
