"""A log whose step counter restarts at step <= 1 holds several runs (`tee -a` over a restarted
trainer): by default each restart is a new run whose alerts start afresh; `--run K` judges run K
only, as `rlvitals read/diagnose --run K` do."""

from __future__ import annotations

import io

import pytest
from watch_helpers import Session, fake_diagnose, kv_lines, wait_for, write

from rlvitals.cli import main as cli_main
from rlvitals.errors import InputError
from rlvitals.watch import Watcher, watch_file

COLLAPSE = [1.5] * 20 + [0.05] * 10  # a warning from step 20 (steps 1..30)
HEALTHY = [1.5 - 0.01 * i for i in range(30)]


def test_a_restart_of_the_step_counter_is_a_new_run_whose_alerts_start_afresh(kv_format):
    w = Watcher(diagnose_fn=fake_diagnose)
    w.feed(kv_lines(COLLAPSE, start=1))
    first = w.check(force=True, confirmed=True)
    assert [a.id for a in first] == ["entropy_collapse"] and w.new_runs == []
    # the trainer is restarted and appends to the same log from step 1: the same failure is news
    w.feed(kv_lines(COLLAPSE, start=1))
    again = w.check(force=True, confirmed=True)
    assert [a.id for a in again] == ["entropy_collapse"]
    assert w.new_runs == [(2, 1)] and w.run_count == 2
    assert again[0].finding.onset_step == 21  # the new run's onset, not the old one's
    assert "30 steps" in w.summary()  # the summary is the new run's


def test_run_k_judges_only_that_run(kv_format):
    w = Watcher(diagnose_fn=fake_diagnose, run_index=2)
    w.feed(kv_lines(COLLAPSE, start=1))
    assert w.check(force=True) == [] and w.awaiting  # run 1's collapse is not run 2's business
    w.feed(kv_lines(HEALTHY, start=1))
    assert w.check(force=True) == [] and not w.awaiting and not w.ended
    w.feed(kv_lines(COLLAPSE, start=1))  # run 3 begins: run 2 is over
    assert w.check(force=True) == [] and w.ended and w.last_run.n_steps == 30


@pytest.mark.parametrize(("k", "alerts"), [(1, 1), (2, 0), (-2, 1), (-1, 0), (None, 0)])
def test_once_run_k_is_diagnose_run_k(kv_format, tmp_path, k, alerts):
    p = tmp_path / "two.log"
    write(p, kv_lines(COLLAPSE, start=1) + kv_lines(HEALTHY, start=1))
    out = io.StringIO()
    assert watch_file(p, once=True, run=k, out=out, err=io.StringIO(), diagnose_fn=fake_diagnose) == 0
    assert out.getvalue().count("[CRITICAL]") + out.getvalue().count("[WARNING]") == alerts


def test_bad_run_numbers_are_one_line_errors(kv_format, tmp_path, capsys):
    p = tmp_path / "two.log"
    write(p, kv_lines(COLLAPSE, start=1) + kv_lines(HEALTHY, start=1))
    with pytest.raises(InputError, match="run 3 does not exist"):
        watch_file(p, once=True, run=3, out=io.StringIO(), err=io.StringIO(), diagnose_fn=fake_diagnose)
    for k in (0, -2):  # -2 moves while the file grows: only with --once
        with pytest.raises(InputError, match="--run"):
            watch_file(p, run=k, out=io.StringIO(), err=io.StringIO(), diagnose_fn=fake_diagnose)
    assert cli_main(["watch", str(p), "--run", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--run 0" in err


def test_follow_says_each_new_run_and_alerts_it_again(kv_format, tmp_path):
    p = tmp_path / "live.log"
    write(p, kv_lines(COLLAPSE, start=1))
    s = Session(p, max_wait=0.05)
    assert wait_for(lambda: "[WARNING]" in s.out.getvalue())
    for line in kv_lines(COLLAPSE, start=1):
        write(p, [line])
    assert wait_for(lambda: s.out.getvalue().count("[WARNING]") == 2)
    assert s.end() == 0
    assert s.err.getvalue().count("run 2 begins") == 1


def test_follow_run_k_waits_for_it_and_stops_when_it_ends(kv_format, tmp_path):
    p = tmp_path / "live.log"
    write(p, kv_lines(HEALTHY, start=1))
    s = Session(p, run=2, max_wait=0.05)
    assert wait_for(lambda: "waiting for run 2" in s.err.getvalue())
    for line in kv_lines(COLLAPSE, start=1):
        write(p, [line])
    assert wait_for(lambda: "[WARNING]" in s.out.getvalue())
    write(p, kv_lines(HEALTHY[:3], start=1))  # run 3 begins: run 2 is over
    s.th.join(10)
    assert s.code == 0 and "run 2 of" in s.err.getvalue() and "has ended" in s.err.getvalue()
    assert "30 steps" in s.out.getvalue()  # run 2's summary


def test_runs_already_in_the_file_are_said_once(kv_format, tmp_path):
    p = tmp_path / "two.log"
    write(p, kv_lines(COLLAPSE, start=1) + kv_lines(HEALTHY, start=1))
    err = io.StringIO()
    assert watch_file(p, once=True, out=io.StringIO(), err=err, diagnose_fn=fake_diagnose) == 0
    assert err.getvalue().count("holds 2 runs") == 1 and "judging the last one, run 2" in err.getvalue()
    err = io.StringIO()  # with --run K, what is judged is said by K itself
    watch_file(p, once=True, run=1, out=io.StringIO(), err=err, diagnose_fn=fake_diagnose)
    assert "holds 2 runs" not in err.getvalue() and "has ended" not in err.getvalue()
