"""Monitor under several threads (no step recorded twice, no count lost) and across pickling
(a trainer that pickles its callbacks): the locks and the worker are rebuilt."""

from __future__ import annotations

import io
import pickle
import sys
import threading

import numpy as np
import pytest

from rlvitals.simulate import simulate
from rlvitals.watch import Monitor

THREADS, PER = 16, 4000


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # make the interpreter switch threads as often as it can
    yield
    sys.setswitchinterval(old)


def _hammer(mon: Monitor, explicit: bool) -> None:
    def work(t: int) -> None:
        for i in range(PER):
            mon.log({"reward": 0.5, "entropy": 1.0, "kl": 0.01, "bad": "x"}, t + THREADS * i if explicit else None)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


@pytest.mark.parametrize("explicit", [True, False])
def test_sixteen_threads_leave_no_duplicate_step(fast_switching, explicit):
    mon = Monitor(background=False, stream=None, check_every=10**9, capacity=THREADS * PER + 16)
    _hammer(mon, explicit)
    n = len(mon.history)
    steps = mon.history._steps[:n]
    assert n == THREADS * PER and mon.steps_logged == THREADS * PER
    assert np.unique(steps).size == n  # no step twice
    assert mon.skipped_values == THREADS * PER  # no count lost
    if not explicit:
        assert sorted(steps.tolist()) == list(range(THREADS * PER))


def test_background_monitor_under_threads_keeps_every_step(fast_switching):
    mon = Monitor(stream=None, check_every=10**9, capacity=THREADS * PER + 16)
    _hammer(mon, True)
    mon.close()
    assert mon.steps_logged == THREADS * PER and np.unique(mon.history._steps[: len(mon.history)]).size == THREADS * PER


def _rows():
    run = simulate("entropy_collapse", seed=1)
    for i, step in enumerate(run.steps.tolist()):
        yield int(step), {k: float(s.values[i]) for k, s in run.series.items() if i < len(s.values)}


@pytest.mark.parametrize("background", [True, False])
def test_a_monitor_survives_pickling_mid_run(background):
    rows = list(_rows())
    mon = Monitor(background=background)  # stream: sys.stderr
    for step, row in rows[:60]:
        mon.log(row, step)
    copy = pickle.loads(pickle.dumps(mon))
    assert copy.stream is sys.stderr and copy.steps_logged == 60
    copy.stream = io.StringIO()
    for step, row in rows[60:]:
        copy.log(row, step)
    diag = copy.close()
    assert copy.error_count == 0, copy.errors
    assert diag is not None and any(f.id == "entropy_collapse" for f in diag.findings)
    assert "entropy" in copy.stream.getvalue().lower()
    mon.close()
