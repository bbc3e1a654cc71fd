"""Helpers for the watch tests (imported as `watch_helpers`): a tiny `key=value` log format and a rule-of-one diagnosis.

They stand in for the real readers and rules where a test is about following, cadence and
alerting rather than about the diagnosis itself; tests that need the real pipeline use it
directly (and skip with a reason while it is not there).
"""

from __future__ import annotations

import io
import re
import threading
import time

import numpy as np

from rlvitals.diagnose.model import Action, Diagnosis, Finding, RuledOut
from rlvitals.ingest.base import Format, LineParser
from rlvitals.watch import watch_file

KV = re.compile(r"(\w+)=(\S+)")


class KVParser(LineParser):
    """`step=N key=value ...` lines; anything else is "other"."""

    format_name = "kvtest"

    def parse(self, line: str, lineno: int) -> None:
        pairs = dict(KV.findall(line))
        if "step" not in pairs:
            self.builder.skip("other")
            return
        step = int(pairs.pop("step"))
        row = {}
        for k, v in pairs.items():
            try:
                row[k] = float(v)
            except ValueError:
                self.builder.skip("bad value")
        self.builder.add_row(step, row, lineno)


def _sniff(text: str) -> float:
    return 0.9 if re.search(r"^step=\d+ ", text, re.M) else 0.0


KV_FORMAT = Format("kvtest", "test format: step=N key=value", _sniff, parser=KVParser)


def fake_diagnose(run) -> Diagnosis:
    """entropy below 0.1 at the last step → entropy_collapse warning; below 0.01 → critical.

    The onset is the first step below 0.1.  The finding carries evidence, a look-alike ruled out by
    ratio_mean and an action, like the real rules do.
    """
    s = run.get("entropy")
    findings = []
    if s is not None and len(s):
        v = s.values
        low = np.flatnonzero(v < 0.1)
        if v[-1] < 0.1 and low.size:
            sev = "critical" if v[-1] < 0.01 else "warning"
            findings.append(
                Finding(
                    "entropy_collapse",
                    sev,
                    int(s.steps[low[0]]),
                    evidence={"entropy_start": float(v[0]), "entropy_end": float(v[-1])},
                    ruled_out=(RuledOut("sync_failure", "ratio_mean", 1.0, "ratio_flat"),),
                    missing=("samples",),
                    action=Action("temperature", "raise", "1.0", "entropy_collapse", "DAPO arXiv 2503.14476"),
                )
            )
    verdict = "dead" if findings else "learning"
    return Diagnosis(verdict, tuple(findings), {}, {"name": run.name})


def kv_lines(entropies, start=0):
    """Lines of the kvtest format with the given entropy per step."""
    return [f"step={start + i} reward=0.5 entropy={e:.4f}" for i, e in enumerate(entropies)]


def write(path, lines, mode="a"):
    with open(path, mode, encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))


def wait_for(pred, timeout=10.0):
    """Poll until pred() (a bound on waiting, not a speed assertion)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


class Session:
    """`watch_file` following `path` on a thread (polls every 0.01 s); `end()` stops it and returns
    the exit status; `.out` / `.err` hold what it printed."""

    def __init__(self, path, **kw):
        self.out, self.err, self.stop = io.StringIO(), io.StringIO(), threading.Event()
        self.code = None
        kw.setdefault("diagnose_fn", fake_diagnose)
        kw.setdefault("rotate_grace", 0.05)
        self.th = threading.Thread(target=self._run, args=(path,), kwargs=kw, daemon=True)
        self.th.start()

    def _run(self, path, **kw):
        self.code = watch_file(path, interval=0.01, out=self.out, err=self.err, stop=self.stop, **kw)

    def end(self):
        self.stop.set()
        self.th.join(10)
        return self.code
