"""Real logs and simulated runs through the real pipeline: ingest's incremental parsers, `diagnose`,
the renderer.  What watch must guarantee whatever the rules say: streaming a log gives the same run
and the same diagnosis as reading it whole; `--once` alerts exactly the offline warnings; healthy
simulated runs stay silent while they stream; a failure is alerted under the name the offline
diagnosis gives it."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from rlvitals.diagnose import diagnose
from rlvitals.diagnose.model import SEVERITIES
from rlvitals.errors import RlvitalsError
from rlvitals.ingest import FORMATS, read, read_text, sniff_text, write_run
from rlvitals.watch import Monitor, Watcher, watch_file

# the keys of tests/conftest.py's REAL_LOGS (the `real_logs` fixture gives the paths)
REAL_KEYS = ("verl_healthy", "verl_plateau", "trl_collapse", "rookworld_blowup", "primerl_hacking", "trl_truncated")


def line_based(path: Path) -> str:
    """The sniffed line-based format of a fixture, or skip saying which reader is missing."""
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.read(64 * 1024)
    fmt = sniff_text(head)
    if fmt is None or FORMATS[fmt].parser is None:
        pytest.skip(f"no line-based reader recognises {path.name} yet")
    return fmt


class Steady:
    """Clock and timer for streaming tests: one second per line, each diagnosis 'costs' `cost`
    seconds, so the 1% CPU cap spaces checks 100 × cost lines apart; deterministic and quick."""

    def __init__(self, cost):
        self.now = 0.0
        self.spent = 0.0
        self.cost = cost

    def clock(self):
        return self.now

    def timer(self):
        self.spent += self.cost / 2  # called twice per diagnosis
        return self.spent


def stream_lines(lines, cost=0.1, **kw):
    st = Steady(cost)
    w = Watcher(clock=st.clock, timer=st.timer, **kw)
    alerts = []
    for line in lines:
        st.now += 1.0
        w.feed([line])
        alerts += w.check()
    alerts += w.check(force=True)
    return w, alerts


def warnings_of(diag):
    return {f.id: f.severity for f in diag.findings if SEVERITIES.index(f.severity) >= 1}


@pytest.mark.parametrize("key", REAL_KEYS)
def test_streaming_a_real_log_reads_what_read_reads(key, real_logs):
    path = real_logs[key]
    fmt = line_based(path)
    whole = read(path)
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        lines = f.read().splitlines()
    w, _ = stream_lines(lines, cost=5.0)  # a check every ~500 lines
    assert w.fmt == fmt == whole.format
    got = w.last_run
    assert set(got.series) == set(whole.series)
    for name, s in whole.series.items():
        assert np.array_equal(got.series[name].steps, s.steps), name
        assert np.array_equal(got.series[name].values, s.values, equal_nan=True), name
    assert w.diagnosis.verdict == diagnose(whole).verdict


@pytest.mark.parametrize("key", REAL_KEYS)
def test_once_alerts_exactly_the_offline_warnings(key, real_logs):
    path = real_logs[key]
    line_based(path)
    offline = diagnose(read(path))
    out, err = io.StringIO(), io.StringIO()
    code = watch_file(path, once=True, until="critical", out=out, err=err)
    text = out.getvalue()
    expected = warnings_of(offline)
    for fid, sev in expected.items():
        assert f"[{sev.upper()}]" in text and f"({fid})" in text, fid
    assert text.count("[WARNING]") + text.count("[CRITICAL]") == len(expected)
    assert code == (3 if "critical" in expected.values() else 0)
    # the summary is the renderer's report of that same diagnosis
    assert offline.verdict in text.lower() or "verdict" in text.lower()


SILENT = ("healthy", "healthy_grad_spike", "healthy_reasoning", "batch_noise")


def simulated_lines(name, seed, fmt="lesson"):
    from rlvitals.simulate import simulate

    if fmt not in FORMATS or FORMATS[fmt].writer is None:
        pytest.skip(f"no {fmt} writer yet")
    run = simulate(name, seed=seed, steps=120)
    buf = io.StringIO()
    write_run(run, fmt, buf)
    return run, buf.getvalue()


@pytest.mark.parametrize("name", SILENT)
def test_healthy_simulated_runs_stay_silent_while_streaming(name):
    run, text = simulated_lines(name, seed=0)
    w, alerts = stream_lines(text.splitlines())
    assert [(a.id, a.severity, a.step) for a in alerts] == []
    assert w.checks >= 2


@pytest.mark.parametrize("name", ["entropy_collapse", "numeric_instability"])
def test_failure_is_alerted_after_onset_under_the_offline_name(name):
    run, text = simulated_lines(name, seed=0)
    w, alerts = stream_lines(text.splitlines())
    offline = diagnose(read_text(text, "lesson"))
    assert offline.top is not None and alerts, "the offline diagnosis names a failure, watch must alert"
    assert offline.top.id in [a.id for a in alerts]


def test_monitor_with_the_real_diagnosis():
    from rlvitals.simulate import simulate

    keys = {
        "reward": "reward",
        "entropy": "actor/entropy",
        "kl": "actor/kl_loss",
        "clip_frac": "actor/pg_clipfrac",
        "len": "response_length/mean",
        "gnorm": "actor/grad_norm",
        "ratio_mean": "actor/ratio_mean",
        "acc": "acc",
        "adv_std": "adv_std",
        "trunc": "response_length/clip_ratio",
    }
    for name in ("healthy", "entropy_collapse"):
        run = simulate(name, seed=1, steps=120)
        mon = Monitor(stream=None, check_every=20, max_overhead=0, step_budget=0)
        steps = run.series["reward"].steps
        for i, step in enumerate(steps):
            mon.log({fw: float(run.series[c].values[i]) for c, fw in keys.items() if c in run.series}, int(step))
        diag = mon.close()
        assert mon.error_count == 0, mon.errors
        assert diag.verdict == diagnose(run).verdict
        if name == "healthy":
            assert mon.alerts == []


def test_unknown_format_is_a_clean_error(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("dear diary\n" * 5)
    with pytest.raises(RlvitalsError):
        watch_file(p, once=True, out=io.StringIO(), err=io.StringIO())
