"""`rlvitals watch`: lines in, the same diagnosis as `rlvitals diagnose`, one alert per finding out.

`Watcher` is the part that does not know about files: it sniffs the format from the first lines,
feeds an incremental `ingest` parser, decides when a re-diagnosis is due, and asks an
`AlertTracker` whether the new diagnosis raises an alarm.  `watch_file` wires a `Follower` to it
and to the outputs (stdout, `--exec`, `--webhook`, exit status).  The benchmark streams simulated
runs through `Watcher` line by line, so the numbers it reports are those of this code path.

Why the cadence: `diagnose` is O(n) in the steps read so far.  A check is due when new steps
arrived and either at least `max(1, steps/200)` of them did (so a long run costs O(1) amortised
per step: ~200 steps' worth of diagnosis per step) or `max_wait` seconds passed since the last
check; and never sooner than the last check's own duration / `max_overhead` (1%): the watcher's
CPU share stays bounded however slow the diagnosis or fast the log.  While a backlog is being read (the poll filled its whole chunk) no check runs at all:
reading a 1,000,000-line log from the start costs one diagnosis, not thousands.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..diagnose.model import SEVERITIES, Diagnosis
from ..errors import NotAFile, UnknownFormat
from ..i18n import t as tr
from ..run import Run
from .alerts import Alert, AlertTracker, alert_payload, format_alert, post_webhook, run_exec
from .follow import Follower, FollowEvent

if TYPE_CHECKING:
    from ..ingest.base import LineParser

__all__ = ["SNIFF_LINES_MAX", "Watcher", "watch_file"]

# Lines kept while no format is recognised; beyond this the log is not one we can read.
SNIFF_LINES_MAX = 20_000
SNIFF_BYTES = 64 * 1024  # what `ingest.read` sniffs
STEPS_PER_CHECK_DIVISOR = 200


def _default_diagnose(run: Run) -> Diagnosis:
    from ..diagnose import diagnose

    return diagnose(run)


@dataclass
class Watcher:
    """Incremental parse + diagnosis + alert decisions for one stream of log lines."""

    fmt: str | None = None
    lang: str = "en"
    name: str = ""
    source: str = ""
    persist: int = 2
    max_wait: float = 30.0
    max_overhead: float = 0.01
    clock: Callable[[], float] = time.monotonic
    timer: Callable[[], float] = time.thread_time  # CPU a diagnosis costs (not wall: load inflates it)
    diagnose_fn: Callable[[Run], Diagnosis] = _default_diagnose
    mapping: dict[str, str] = field(default_factory=dict)   # --map CANON=KEY
    tracker: AlertTracker = field(default=None)  # type: ignore[assignment]
    alerts: list[Alert] = field(default_factory=list)
    diagnosis: Diagnosis | None = None
    errors: list[str] = field(default_factory=list)
    lines: int = 0
    checks: int = 0
    restarts: int = 0

    def __post_init__(self) -> None:
        if self.tracker is None:
            self.tracker = AlertTracker(persist=self.persist)
        self._explicit_fmt = self.fmt
        self._parser: LineParser | None = None
        self._sniff_buf: list[str] = []
        self._next_full_sniff = 0
        self._reset_parser()

    # -- feeding -----------------------------------------------------------------------------
    def feed(self, lines: list[str]) -> None:
        """Hand new complete lines to the parser (buffered until the format is known)."""
        if not lines:
            return
        self.lines += len(lines)
        if self._parser is None:
            self._sniff_buf.extend(lines)
            self._try_sniff(lines)
            return
        self._feed_parser(lines)

    def _feed_parser(self, lines: list[str]) -> None:
        if self._parser is None:
            return
        feed = self._parser.feed
        for line in lines:
            got = feed(line)
            # A parser that reports whether the line carried metrics lets noise lines (tqdm,
            # Ray banners) not count toward the cadence; one that returns None counts every line.
            if got is None or got:
                self._pending += 1

    def _try_sniff(self, new: list[str]) -> None:
        """Recognise the format as soon as its first lines arrive, at a bounded cost per line.

        Sniffing the whole buffer on every poll would be quadratic over a long preamble (Ray and
        vLLM start-up can print thousands of lines).  So: the new lines alone are sniffed; the
        head of the buffer (the 64 KiB `read` sniffs) only when they match something, to confirm
        with context, or when the buffer has grown by a quarter since the last full try.
        """
        from ..ingest import sniff_text

        buf = self._sniff_buf
        fmt = sniff_text("\n".join(new)) if new else None
        if fmt is not None or len(buf) >= self._next_full_sniff:
            self._next_full_sniff = len(buf) + max(8, len(buf) // 4)
            head, size = [], 0
            for line in buf:
                size += len(line) + 1
                if size > SNIFF_BYTES:
                    break
                head.append(line)
            fmt = sniff_text("\n".join(head)) or fmt
        if fmt is None:
            if len(buf) > SNIFF_LINES_MAX:
                raise UnknownFormat(f"{self.source or 'the log'}: no supported log format in its first "
                                    f"{SNIFF_LINES_MAX} lines (see `rlvitals formats`, or pass -F FORMAT)")
            return
        self.fmt = fmt
        self._open_parser(fmt)
        self._sniff_buf = []
        self._feed_parser(buf)

    def _open_parser(self, fmt: str) -> None:
        from ..ingest import open_parser

        self._parser = open_parser(fmt, self.name, mapping=self.mapping)

    def _reset_parser(self) -> None:
        self.fmt = self._explicit_fmt
        self._parser = None
        self._sniff_buf = []
        self._next_full_sniff = 0
        self._pending = 0
        self._idle_checked = False
        self._steps_at_check = 0
        self._last_check = self.clock()
        self._last_cost = 0.0
        if self.fmt is not None:
            self._open_parser(self.fmt)

    def restart(self) -> None:
        """The file was truncated: what follows is a new run. Forget the old one and its alerts."""
        self.restarts += 1
        self.tracker.reset()
        self.diagnosis = None
        self._reset_parser()

    @property
    def sniffing(self) -> bool:
        return self._parser is None

    @property
    def buffered(self) -> int:
        return len(self._sniff_buf)

    # -- checking ----------------------------------------------------------------------------
    def due(self) -> bool:
        if self._parser is None:
            return False
        # CPU cap: the diagnosis may take at most `max_overhead` of the wall time.  With real RL
        # steps (10 s to minutes) it never binds; it does when a long run logs every second.
        if self.max_overhead > 0 and self.clock() - self._last_check < self._last_cost / self.max_overhead:
            return False
        if self._pending == 0:
            # The log went quiet with a finding seen but not yet held for `persist` checks: a
            # trainer that died on a NaN writes nothing more.  After `max_wait` seconds of
            # silence, one more look at the same data confirms it.
            return (not self._idle_checked and self.tracker.unconfirmed
                    and self.clock() - self._last_check >= self.max_wait)
        every = max(1, self._steps_at_check // STEPS_PER_CHECK_DIVISOR)
        return self._pending >= every or self.clock() - self._last_check >= self.max_wait

    def snapshot(self):
        return None if self._parser is None else self._parser.snapshot()

    def check(self, force: bool = False, confirmed: bool = False) -> list[Alert]:
        """Re-diagnose if due (or `force`); return the new alerts.  Never raises on a rule's bug.

        confirmed: the lines were already in the file when watching began (see AlertTracker.update).
        """
        if not force and not self.due():
            return []
        if self._parser is None:
            return []
        self._idle_checked = self._pending == 0
        self._pending = 0
        self._last_check = self.clock()
        t0 = self.timer()  # the cost that the CPU cap spaces out: building the run and diagnosing it
        step = None
        try:
            run = self._parser.snapshot()
            n = run.n_steps
            if n == 0:
                return []
            self._steps_at_check = n
            step = int(run.steps[-1])
            diag = self.diagnose_fn(run)
        except Exception as e:  # a rule failing on a half-written run must not stop the watch
            self.errors.append(tr("watch.diag_failed", self.lang, step=step if step is not None else "?",
                                  error=f"{type(e).__name__}: {e}"))
            return []
        finally:
            self._last_cost = self.timer() - t0
        self.checks += 1
        self.diagnosis = diag
        # a re-check of a log gone quiet is as final as the data will get (see `due`)
        new = self.tracker.update(diag, step, run=run.name or self.name, source=self.source,
                                  confirmed=confirmed or self._idle_checked, n_steps=n)
        self.alerts.extend(new)
        self._last_run = run
        return new

    @property
    def last_run(self):
        return getattr(self, "_last_run", None)

    def summary(self, lang: str = "en") -> str:
        """The final diagnosis rendered as `rlvitals diagnose` prints it, under a one-line header."""
        run = self.last_run
        if self.diagnosis is None or run is None:
            return tr("watch.summary.none", lang) + "\n"
        head = tr("watch.summary.head", lang, steps=run.n_steps, lines=self.lines, alerts=len(self.alerts))
        body = render_summary(self.diagnosis, lang)
        extra = ""
        if run.skipped:
            items = ", ".join(f"{k} {v}" for k, v in run.skipped.items())
            extra = tr("watch.skipped", lang, items=items) + "\n"
        return f"{head}\n{body.rstrip()}\n{extra}"


def render_summary(diag: Diagnosis, lang: str) -> str:
    """`render_diagnosis` when the renderer is there; a plain line if it is missing or fails."""
    try:
        from ..render import render_diagnosis

        return render_diagnosis(diag, fmt="text", lang=lang)
    except Exception:  # the renderer is another module; the summary must still appear
        found = ", ".join(f"{f.id} ({f.severity})" for f in diag.findings) or tr("watch.summary.no_findings", lang)
        return tr("watch.summary.fallback", lang, verdict=diag.verdict, findings=found)


# -- the command ------------------------------------------------------------------------------
def _say(stream: TextIO, text: str) -> None:
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):  # a closed pipe must not kill the watcher
        pass


def _event_text(ev: FollowEvent, path: Path, lang: str) -> str:
    return tr(f"watch.{ev.kind}", lang, path=path, old=ev.old, new=ev.new, limit=ev.new)


def watch_file(path, fmt: str | None = None, lang: str = "en", until: str | None = None,
               exec_cmd: str | None = None, webhook: str | None = None, interval: float = 1.0,
               from_start: bool = True, once: bool = False, *, out: TextIO | None = None,
               err: TextIO | None = None, persist: int = 2, max_wait: float = 30.0,
               stop: threading.Event | None = None, diagnose_fn: Callable[[Run], Diagnosis] | None = None,
               mapping: dict[str, str] | None = None) -> int:
    """Follow `path`, alert once per finding, print a summary at the end; the exit status.

    0 when stopped (Ctrl-C, `stop` set, or `once` finished); 3 when an alert reached `until`.
    `out` gets alerts and the summary (stdout), `err` the notices (stderr).  `persist`: checks a
    finding must hold before it alerts; `max_wait`: seconds after which a slow trickle of steps, or
    a log gone quiet with a finding pending, is checked anyway.  `stop` and `diagnose_fn` are for
    embedding and tests.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    path = Path(path)
    if until is not None and until not in SEVERITIES:
        raise ValueError(f"--until must be one of {', '.join(SEVERITIES)}")
    if path.is_dir():
        raise NotAFile(f"{path} is a directory: watch follows one text log file "
                       f"(for a TensorBoard directory use `rlvitals diagnose`)")
    if once and not path.exists():
        raise NotAFile(f"{path} does not exist")
    w = Watcher(fmt=fmt, lang=lang, name=path.stem, source=str(path), persist=1 if once else persist,
                max_wait=max_wait, diagnose_fn=diagnose_fn or _default_diagnose, mapping=dict(mapping or {}))
    fol = Follower(path, from_start=from_start)
    history = from_start and path.is_file() and path.stat().st_size > 0
    said_fmt = False
    said_sniff = False
    n_errors = 0

    def handle(alerts: list[Alert]) -> bool:
        """Print and dispatch alerts; True when `until` says stop."""
        stop_now = False
        for a in alerts:
            _say(out, "\n" + format_alert(a, lang))
            payload = alert_payload(a, lang) if exec_cmd or webhook else {}
            if exec_cmd:
                code, e = run_exec(exec_cmd, a, payload)
                if e:
                    _say(err, tr("watch.exec_error", lang, error=e))
                elif code:
                    _say(err, tr("watch.exec_failed", lang, code=code))
            if webhook:
                e = post_webhook(webhook, payload)
                if e:
                    _say(err, tr("watch.webhook_failed", lang, url=webhook, error=e))
            if until is not None and a.at_least(until):
                _say(err, tr("watch.until_hit", lang, id=a.id, sev=a.severity, until=until))
                stop_now = True
        return stop_now

    def finish(code: int) -> int:
        _say(out, "\n" + w.summary(lang).rstrip())
        fol.close()
        return code

    if not once:
        _say(err, tr("watch.following", lang, path=path, interval=interval))
    try:
        while True:
            lines, events = fol.poll()
            for ev in events:
                if ev.kind == "truncated":
                    # detected before reading: every line of this poll belongs to the new run
                    w.restart()
                    said_fmt = said_sniff = False
                _say(err, _event_text(ev, path, lang))
            backlog = fol.more_pending
            if once and not backlog:
                lines += fol.flush()
            w.feed(lines)
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
                stop_now = handle(w.check(force=True))
                for e in w.errors[n_errors:]:
                    _say(err, e)
                return finish(3 if stop_now else 0)
            # the history found in the file when watching began is judged like `diagnose` would
            if handle(w.check(confirmed=history)):
                return finish(3)
            if w.checks:
                history = False
            for e in w.errors[n_errors:n_errors + 1]:  # say the first failure, count the rest
                _say(err, e)
            n_errors = len(w.errors)
            if stop is not None:
                if stop.wait(interval):
                    break
            else:
                time.sleep(interval)
    except KeyboardInterrupt:
        pass
    # Ctrl-C (or `stop`) is how a watch normally ends: read what is left, a last look, the summary
    try:
        while True:
            lines, events = fol.poll()
            if any(ev.kind == "truncated" for ev in events):
                w.restart()
            w.feed(lines)
            if not fol.more_pending:
                break
        hit = handle(w.check(force=True))
    except KeyboardInterrupt:  # a second Ctrl-C: just the summary
        hit = False
    return finish(3 if hit else 0)
