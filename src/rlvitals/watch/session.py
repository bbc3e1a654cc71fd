"""`rlvitals watch`: lines in, the same diagnosis as `rlvitals diagnose`, one alert per finding out.

`Watcher` is the part that does not know about files: it sniffs the format from the first lines,
feeds an incremental `ingest` parser, decides when a re-diagnosis is due, and asks an
`AlertTracker` whether the new diagnosis raises an alarm.  `command.watch_file` wires a `Follower`
to it and to the outputs (stdout, `--exec`, `--webhook`, exit status).  The benchmark streams
simulated runs through `Watcher` line by line, so the numbers it reports are those of this code path.

When to check is `schedule.Scheduler`'s decision (shared with `Monitor`): every ~1% of the
steps read so far (at least every step early on), at once when a line carries a NaN/inf or a huge
spike, never more than 1% of the wall time (`max_overhead`), and after `max_wait` seconds of a slow
trickle.  While a backlog is being read (the poll filled its whole chunk) no check runs at all:
reading a 1,000,000-line log from the start costs one diagnosis, not thousands.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..diagnose.model import Diagnosis
from ..errors import UnknownFormat
from ..i18n import t as tr
from ..run import Run
from .alerts import CONFIRM, MIN_STEPS, Alert, AlertTracker
from .schedule import Scheduler, SpikeWatch

if TYPE_CHECKING:
    from ..ingest.base import LineParser

__all__ = ["SNIFF_LINES_MAX", "Watcher", "default_diagnose", "render_summary", "scan_line"]

# Lines kept while no format is recognised; beyond this the log is not one we can read.
SNIFF_LINES_MAX = 20_000
SNIFF_BYTES = 64 * 1024  # what `ingest.read` sniffs
# Tokens of a metric line, whatever its format (`key=1.5`, `key:np.float64(nan)`, `"key": 1.5`):
# names, wrappers (`np.float64(`, skipped) and numbers; a number belongs to the name before it.
# For the scheduler's hard signals only (NaN/inf, spikes); the parser reads the line properly.
_TOKEN = re.compile(r"[A-Za-z_][\w/.@-]*\(?|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NONFINITE = frozenset({"nan", "inf", "infinity"})


def scan_line(line: str, spikes: SpikeWatch) -> bool:
    """True when a number on the line is NaN/inf or a huge spike for its key."""
    hard = False
    key = ""
    for tok in _TOKEN.findall(line):
        c = tok[0]
        if c.isalpha() or c == "_":
            if tok[-1] == "(":
                continue  # a wrapper around the value
            if tok.lower() not in _NONFINITE:
                key = tok
                continue
            x = math.nan
        else:
            x = float(tok)
        if key and spikes(key, x):
            hard = True
        key = ""  # one number per name
    return hard


def default_diagnose(run: Run) -> Diagnosis:
    from ..diagnose import diagnose

    return diagnose(run)


@dataclass
class Watcher:
    """Incremental parse + diagnosis + alert decisions for one stream of log lines."""

    fmt: str | None = None
    lang: str = "en"
    name: str = ""
    source: str = ""
    persist: int = 1
    min_steps: int = MIN_STEPS
    confirm: int = CONFIRM  # sightings a warning needs before it alerts (see AlertTracker)
    max_wait: float = 30.0
    max_overhead: float = 0.01
    step_budget: float = 0.0
    burst: float = 1.0  # CPU seconds the checks may spend ahead of the 1% budget (see schedule)
    scan: bool = True  # look for hard signals in each metric line (off while reading a backlog)
    clock: Callable[[], float] = time.monotonic
    timer: Callable[[], float] = time.thread_time  # CPU a diagnosis costs (not wall: load inflates it)
    diagnose_fn: Callable[[Run], Diagnosis] = default_diagnose
    mapping: dict[str, str] = field(default_factory=dict)  # --map CANON=KEY
    # --run K: judge run K of the file (1-based), when the step counter restarts at step <= 1 in
    # it (a trainer restarted with `tee -a`).  None (or -1): the run being written, the last one;
    # a restart of the counter is then a new run, its alerts start afresh (as after a truncation).
    run_index: int | None = None
    tracker: AlertTracker = field(default=None)  # type: ignore[assignment]
    alerts: list[Alert] = field(default_factory=list)
    diagnosis: Diagnosis | None = None
    errors: list[str] = field(default_factory=list)
    lines: int = 0
    checks: int = 0
    restarts: int = 0
    new_runs: list[tuple[int, int]] = field(default_factory=list)  # (run number, first step) of each restart seen
    run_count: int = 0  # runs the file holds so far (the step counter restarted run_count - 1 times)
    ended: bool = False  # --run K: run K is over (run K+1 has begun); nothing more will change it
    awaiting: bool = False  # --run K: the file holds fewer than K runs so far

    def __post_init__(self) -> None:
        if self.tracker is None:
            self.tracker = AlertTracker(persist=self.persist, min_steps=self.min_steps, confirm=self.confirm)
        self.schedule = Scheduler(
            max_overhead=self.max_overhead,
            step_budget=self.step_budget,
            max_wait=self.max_wait,
            burst=self.burst,
            clock=self.clock,
        )
        self._spikes = SpikeWatch()
        self._explicit_fmt = self.fmt
        self._parser: LineParser | None = None
        self._last_run: Run | None = None
        self._sniff_buf: list[str] = []
        self._next_full_sniff = 0
        self._judged: int | None = None  # the run number the tracker's alerts belong to
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
        n, hard = 0, False
        # while every step is checked anyway there is nothing for a hard signal to hurry
        scan = self.scan and self.schedule.every > 1
        for line in lines:
            got = feed(line)
            # A parser that reports whether the line carried metrics lets noise lines (tqdm,
            # Ray banners) not count toward the cadence; one that returns None counts every line.
            if got is None or got:
                n += 1
                if scan and scan_line(line, self._spikes):
                    hard = True
        if n:
            self.schedule.note(n, hard)

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
                raise UnknownFormat(
                    f"{self.source or 'the log'}: no supported log format in its first "
                    f"{SNIFF_LINES_MAX} lines (see `rlvitals formats`, or pass -F FORMAT)"
                )
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
        self._idle_checked = False
        self.schedule.reset()
        self._spikes.reset()
        if self.fmt is not None:
            self._open_parser(self.fmt)

    def restart(self) -> None:
        """The file was truncated: what follows is a new run. Forget the old one and its alerts."""
        self.restarts += 1
        self.tracker.reset()
        self.diagnosis = None
        self._judged = None
        self.run_count = 0
        self.ended = self.awaiting = False
        self._reset_parser()

    def pick(self, run: Run) -> Run | None:
        """The run to judge from a snapshot (see `run_index`); None while run K has not begun.

        Sets `run_count` and `ended`; a new run in "the last run" mode resets the alerts and is
        noted in `new_runs`."""
        runs = run.file_runs or [run]
        self.run_count = len(runs)
        self.awaiting = False
        k = self.run_index
        if k is None or k == -1:
            chosen, number = runs[-1], len(runs)
        elif k > 0:
            if len(runs) < k:
                self.awaiting = True
                return None
            chosen, number = runs[k - 1], k
            self.ended = len(runs) > k
        else:  # -2, -3, ...: counted from the end of what the file holds now (--once)
            if len(runs) < -k:
                self.awaiting = True
                return None
            chosen, number = runs[k], len(runs) + k + 1
        if self._judged is not None and number != self._judged:
            self.tracker.reset()
            self.diagnosis = None
            self.new_runs.append((number, int(chosen.steps[0]) if chosen.n_steps else 0))
        self._judged = number
        return chosen

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
        sch = self.schedule
        if sch.pending == 0:
            # The log went quiet with a finding seen but not yet held for `persist` checks: a
            # trainer that died on a NaN writes nothing more.  After `max_wait` seconds of
            # silence, one more look at the same data confirms it.
            return (
                not self._idle_checked
                and self.tracker.unconfirmed
                and sch.quiet_for() >= self.max_wait
                and (self.max_overhead <= 0 or sch.credit() >= 0)
            )
        return sch.due()

    def snapshot(self) -> Run | None:
        return None if self._parser is None else self._parser.snapshot()

    def check(self, force: bool = False, confirmed: bool = False) -> list[Alert]:
        """Re-diagnose if due (or `force`); return the new alerts.  Never raises on a rule's bug.

        confirmed: the lines were already in the file when watching began (see AlertTracker.update).
        """
        if not force and not self.due():
            return []
        if self._parser is None:
            return []
        self._idle_checked = self.schedule.pending == 0
        t0 = self.timer()  # the cost that the CPU cap spaces out: building the run and diagnosing it
        step = None
        try:
            whole = self._parser.snapshot()
            picked = self.pick(whole)
            if picked is None:  # --run K: run K has not begun yet
                return []
            run = picked
            n = run.n_steps
            if n == 0:
                return []
            step = int(run.steps[-1])
            diag = self.diagnose_fn(run)
        except Exception as e:  # a rule failing on a half-written run must not stop the watch
            self.errors.append(
                tr(
                    "watch.diag_failed",
                    self.lang,
                    step=step if step is not None else "?",
                    error=f"{type(e).__name__}: {e}",
                )
            )
            return []
        finally:
            self.schedule.ran(self.timer() - t0)
        if self.run_count > 1:  # the cadence follows the judged run's steps, not the whole file's
            self.schedule.seen_at_check = n
            self.schedule.seen = n + self.schedule.pending
        self.checks += 1
        self.diagnosis = diag
        # a re-check of a log gone quiet is as final as the data will get (see `due`)
        new = self.tracker.update(
            diag,
            step,
            run=run.name or self.name,
            source=self.source,
            confirmed=confirmed or self._idle_checked or self.ended,
            n_steps=n,
        )
        self.alerts.extend(new)
        # a warning seen once is confirmed (or not) after `confirm_steps` more steps, not a cadence period
        self.schedule.soon = self.tracker.confirm_steps if self.tracker.unconfirmed else 0
        self._last_run = run
        return new

    @property
    def last_run(self) -> Run | None:
        return self._last_run

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
