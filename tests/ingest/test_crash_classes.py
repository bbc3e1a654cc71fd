"""The crash classes fuzzing found (issue 8), one regression test each: bad bytes give a Run with
the loss counted (or an RlvitalsError), never a traceback.

1. a step of 20+ digits            2. a step `inf`           3. a step `nan`
4. a step `1e300`                  5. a step of 5,000 digits (every reader: OverflowError / ValueError)
6. nesting ~1,000 deep (TRL dicts, slime, JSONL, trainer_state, ROLL): RecursionError
7. `np.float64(` wrapped 1,000 times (and quotes, `%`): RecursionError in the value parser
8. deep JSON while sniffing the format: RecursionError before any reader ran
9. a JSONL integer of 400 digits: OverflowError
10. the torchtune line parser was quadratic (a 1 MB line took over a minute)
(and the same bad-step line ending a running `watch`: tests/watch/test_crash_lines.py)
"""

from __future__ import annotations

import signal
from contextlib import contextmanager

import numpy as np
import pytest

from rlvitals import Monitor
from rlvitals.errors import NoMetrics
from rlvitals.ingest import FORMATS, read, sniff_text
from rlvitals.ingest.values import STEP_LIMIT, parse_step, parse_value

HUGE_STEPS = {"20digits": "1" + "0" * 20, "inf": "inf", "nan": "nan", "1e300": "1e300", "5000digits": "9" * 5000}


def _json(text: str) -> str:
    return {"inf": "Infinity", "nan": "NaN"}.get(text, text)


# format -> (line of step N with reward 0.5, the same line with the step spelled `s`); whole documents
# (trainer_state.json) are built by DOCS instead.
LINES = {
    "lesson": lambda s: f"[{s}] reward=0.5 entropy=1.2",
    "verl-console": lambda s: f"step:{s} - critic/score/mean:0.5 - actor/entropy:1.2",
    "verl-jsonl": lambda s: '{"step": S, "data": {"critic/score/mean": 0.5}}'.replace("S", _json(s)),
    "jsonl": lambda s: '{"step": S, "reward": 0.5}'.replace("S", _json(s)),
    "wandb": lambda s: '{"_step": S, "reward": 0.5}'.replace("S", _json(s)),  # watch's rows of a .wandb
    "swanlab": lambda s: '{"_step": S, "reward": 0.5}'.replace("S", _json(s)),  # … and of a .swanlab
    "csv": lambda s: f"{s},0.5",
    "openrlhf": lambda s: "INFO ppo_trainer.py:547] Global step " + s + ": {'reward': 0.5, 'kl': 0.01}",
    "roll": lambda s: 'metrics_tag: {"step": S, "metrics": {"critic/score/mean": 0.5}}'.replace("S", _json(s)),
    "slime": lambda s: "rollout " + s + ": {'rollout/raw_reward': 0.5}",
    "torchtune": lambda s: f"Step {s} | rewards:tensor(0.5, device='cuda:0') kl_loss:0.01 ",
    "primerl-console": lambda s: f"Step {s} | Time: 1.0s | Reward: 0.5 | Entropy: 1.2",
    "trl-console": lambda s: "{'loss': 0.1, 'reward': 0.5, 'step': " + s + "}",
}
HEADERS = {"csv": "_step,reward\n"}


def _text(fmt: str, bad: str) -> str:
    line = LINES[fmt]
    return HEADERS.get(fmt, "") + "\n".join([line("1"), line("2"), line(bad), line("3")]) + "\n"


@contextmanager
def hang_guard(seconds: int):
    """Fail when a call takes far too long (a bound ~100x the normal time, not a speed assertion;
    a slow C-level regex call is not interrupted, the failure comes when it returns)."""

    def boom(*_):
        raise TimeoutError(f"took more than {seconds} s: super-linear again?")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def lost(run, *reasons):
    """Lines skipped plus values dropped for these reasons (all reasons when none given)."""
    counts = {**run.skipped}
    for k, n in run.dropped.items():
        counts[k] = counts.get(k, 0) + n
    return sum(counts.values()) if not reasons else sum(counts.get(r, 0) for r in reasons)


def _check_read(
    path, fmt, reasons=("step out of range", "step not an integer", "not a metric line", "CSV row without a step")
):
    run = read(path, fmt)
    assert run.steps.tolist() == [1, 2, 3]
    assert sum(run.skipped.get(r, 0) for r in reasons) >= 1, run.skipped
    return run


# -- 1-5: a step nobody can use -----------------------------------------------------------------
@pytest.mark.parametrize("fmt", sorted(LINES))
@pytest.mark.parametrize("kind", sorted(HUGE_STEPS))
def test_huge_step_is_skipped_and_counted_by_every_line_reader(tmp_path, fmt, kind):
    p = tmp_path / "run.log"
    p.write_text(_text(fmt, HUGE_STEPS[kind]), encoding="utf-8")
    _check_read(p, fmt)


@pytest.mark.parametrize("kind", sorted(HUGE_STEPS))
def test_huge_step_in_trainer_state(tmp_path, kind):
    p = tmp_path / "trainer_state.json"
    rows = [f'{{"step": {s}, "reward": 0.5}}' for s in ("1", "2", _json(HUGE_STEPS[kind]), "3")]
    p.write_text('{"log_history": [' + ", ".join(rows) + "]}", encoding="utf-8")
    run = _check_read(p, None)
    assert run.format == "trl-state" and run.skipped == {"step out of range": 1}


def test_step_rule_is_one_rule():
    assert [parse_step(x) for x in ("12", "0012", 12, 12.0, "12.0", "0")] == [12, 12, 12, 12, 12, 0]
    for bad in ("-1", -1, 2**53, float("inf"), float("nan"), "1e300", "9" * 5000, 2**70, 1e300):
        assert parse_step(bad) == "step out of range", bad
    assert parse_step(12.5) == "step not an integer"
    assert parse_step(STEP_LIMIT - 1) == STEP_LIMIT - 1


def test_monitor_bad_step_costs_no_good_row():
    mon = Monitor(stream=None, check_every=10**9)
    for step in range(100):
        mon.log({"reward": 0.5, "entropy": 1.0}, step)
    mon.log({"reward": 0.5}, 2**70)
    mon.log({"reward": 0.5}, int(1e300))
    mon.log({"reward": 0.5}, 100)
    run = mon.run()
    assert run.series["reward"].steps.tolist() == list(range(101))
    assert mon.skipped_steps + run.skipped.get("step out of range", 0) == 2


# -- 6: nesting a thousand deep -------------------------------------------------------------------
DEEP = 1000
NESTED = {
    "trl-console": "{'loss': 0.1, 'reward': 0.5}\n{'loss': " + "{'a': " * DEEP + "1.0" + "}" * DEEP + "}\n",
    "slime": "rollout 1: {'rollout/raw_reward': 0.5}\nrollout 2: {'r': " + "{'a': " * DEEP + "1" + "}" * DEEP + "}\n",
    "jsonl": '{"step": 1, "reward": 0.5}\n{"step": 2, "r": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}\n",
    "verl-jsonl": '{"step": 1, "data": {"critic/score/mean": 0.5}}\n{"step": 2, "data": {"r": '
    + "[" * DEEP
    + "1"
    + "]" * DEEP
    + "}}\n",
    "roll": 'metrics_tag: {"step": 1, "metrics": {"reward": 0.5}}\nmetrics_tag: {"step": 2, "metrics": '
    + '{"a": ' * DEEP
    + "1"
    + "}" * DEEP
    + "}\n",
    "openrlhf": "Global step 1: {'reward': 0.5}\nGlobal step 2: {'reward': "
    + "{'a': " * DEEP
    + "1"
    + "}" * DEEP
    + "}\n",
    "trl-state": '{"log_history": [{"step": 1, "reward": 0.5}, {"step": 2, "r": '
    + "[" * DEEP
    + "1"
    + "]" * DEEP
    + "}]}",
}


@pytest.mark.parametrize("fmt", sorted(NESTED))
def test_deep_nesting_is_skipped_and_counted(tmp_path, fmt):
    p = tmp_path / "run.log"
    p.write_text(NESTED[fmt], encoding="utf-8")
    run = read(p, fmt)
    assert lost(run, "nested too deep") == 1, (run.skipped, run.dropped)
    assert run.n_steps == 1  # the good line before it


def test_modest_nesting_still_reads(tmp_path):
    p = tmp_path / "run.jsonl"
    p.write_text(
        '{"step": 1, "reward": 0.1, "a": {"b": {"c": {"d": 0.5}}}}\n'
        '{"step": 2, "reward": 0.2, "a": {"b": {"c": {"d": 0.6}}}}\n'
    )
    run = read(p)
    assert run.extras["a/b/c/d"].values.tolist() == [0.5, 0.6] and not run.skipped


# -- 7: a value wrapped a thousand times ------------------------------------------------------------
@pytest.mark.parametrize(
    "fmt, wrap",
    [
        ("verl-console", "np.float64("),
        ("lesson", "np.float64("),
        ("trl-console", "np.float64("),
        ("lesson", "'"),
        ("lesson", "%"),
        ("torchtune", "tensor("),
    ],
)
def test_value_wrapped_a_thousand_times(tmp_path, fmt, wrap):
    close = {"np.float64(": ")", "tensor(": ")", "'": "'", "%": ""}[wrap]
    value = ("1" + "%" * DEEP) if wrap == "%" else wrap * DEEP + "1" + close * DEEP
    good = LINES[fmt]
    bad = {
        "verl-console": f"step:2 - critic/score/mean:{value} - actor/entropy:1.0",
        "lesson": f"[2] reward={value} entropy=1.0",
        "trl-console": "{'loss': 0.1, 'reward': " + value + ", 'step': 2}",
        "torchtune": f"Step 2 | rewards:{value} kl_loss:0.01 ",
    }[fmt]
    p = tmp_path / "run.log"
    p.write_text(good("1") + "\n" + bad + "\n" + good("3") + "\n", encoding="utf-8")
    run = read(p, fmt)
    assert 1 in run.steps.tolist() and 3 in run.steps.tolist()
    assert lost(run) >= 1


def test_value_wrappers_still_read():
    assert parse_value("np.float64(0.25)") == 0.25
    assert parse_value("'21.5%'") == pytest.approx(0.215)
    assert parse_value("tensor(0.4375, device='cuda:0')") == 0.4375
    assert parse_value("np.float64(" * 9 + "1" + ")" * 9) is None  # deeper than any logger writes


# -- 8: deep JSON while sniffing ---------------------------------------------------------------------
def test_sniffing_deep_json_lines(tmp_path):
    p = tmp_path / "deep.jsonl"
    text = ("[" * 5000 + "]" * 5000 + "\n") * 3 + '{"step": 1, "reward": 0.5}\n' * 3
    p.write_text(text, encoding="utf-8")
    assert sniff_text(text) == "jsonl"
    run = read(p)
    assert run.format == "jsonl" and run.steps.tolist() == [1]
    assert run.skipped == {"not a JSON object line": 3}
    p.write_text('{"a": ' * 5000 + "1" + "}" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(NoMetrics):  # nothing but a too-deep object: no metric, no crash
        read(p)


# -- 9: an integer beyond float64 ------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["jsonl", "verl-jsonl", "roll", "trl-console"])
def test_integer_of_400_digits_is_a_value_out_of_range(tmp_path, fmt):
    big = "9" * 400
    text = {
        "jsonl": '{"step": 1, "reward": 0.5}\n{"step": 2, "reward": %s, "kl": 0.1}\n',
        "verl-jsonl": '{"step": 1, "data": {"reward": 0.5}}\n{"step": 2, "data": {"reward": %s, "kl": 0.1}}\n',
        "roll": 'metrics_tag: {"step": 1, "metrics": {"reward": 0.5}}\n'
        'metrics_tag: {"step": 2, "metrics": {"reward": %s, "kl": 0.1}}\n',
        "trl-console": "{'loss': 0.1, 'reward': 0.5, 'step': 1}\n{'loss': 0.1, 'reward': %s, 'step': 2}\n",
    }[fmt] % big
    p = tmp_path / "run.log"
    p.write_text(text, encoding="utf-8")
    run = read(p, fmt)
    assert run.dropped.get("value out of range") == 1  # the line is kept, with its kl
    assert run.series["reward"].steps.tolist() == [1]  # not an infinity that was never logged


def test_overflowing_literal_is_not_an_infinity_but_inf_is():
    run_text = "[1] reward=0.5\n[2] reward=1e400 kl=0.1\n[3] reward=inf\n[4] reward=" + "9" * 400 + "\n"
    from rlvitals.ingest import read_text

    run = read_text(run_text, "lesson")
    assert run.dropped == {"value out of range": 1}  # line 2 kept its kl
    assert run.skipped == {"value out of range": 1}  # line 4 had nothing else
    assert run.series["reward"].steps.tolist() == [1, 3]


# -- 10: super-linear parsing ------------------------------------------------------------------------
LONG = 1 << 20
LONG_LINES = {
    "torchtune": "Step 1 | " + "a" * LONG,
    "torchtune-tensor": "Step 1 | k:tensor(" + "a" * LONG,
    "lesson": "[1] " + "a" * LONG,
    "trl-console": "1" * LONG + "/2 [ {'loss': 1}",
    "primerl-console": "Step 1 | a" + " " * LONG + "| b",
    "verl-console": "step:1 - " + "Initial validation metrics: {" * (LONG // 29),
    "ray-suffix": "(main_task pid=1) step:1 - a:1" + " " * LONG + "cluster]",
}


@pytest.mark.parametrize("case", sorted(LONG_LINES))
def test_megabyte_lines_parse_in_linear_time(tmp_path, case):
    fmt = {"torchtune-tensor": "torchtune", "ray-suffix": "verl-console"}.get(case, case)
    p = tmp_path / "long.log"
    p.write_text(LONG_LINES[case] + "\n" + LINES[fmt]("2") + "\n", encoding="utf-8")
    with hang_guard(30):  # quadratic: minutes; linear: well under a second
        run = read(p, fmt)
    assert run.n_steps >= 1


def test_every_line_format_is_covered():
    # whole-document readers (tensorboard, parquet, sqlite, notebooks, JSON documents) are covered
    # by the fuzz suite (tests/ingest/test_fuzz.py) and their own tests
    assert set(LINES) >= {name for name, f in FORMATS.items() if f.parser is not None} - {"generic"}


# -- the one place: RunBuilder -------------------------------------------------------------------------
def test_builder_checks_every_step_and_value():
    import numpy as np

    from rlvitals.ingest.builder import RunBuilder
    from rlvitals.ingest.values import OUT_OF_RANGE

    b = RunBuilder("x", "test")
    b.add_row("1", {"reward": 0.1})  # the step as printed
    b.add_row("9" * 5000, {"reward": 0.2})  # skipped: step out of range
    b.add_row(2.5, {"reward": 0.3})  # skipped: step not an integer
    b.add_row(2, {"reward": OUT_OF_RANGE, "kl": 0.1})  # kept, its reward dropped
    b.add_row(3, {"reward": 10**400})  # skipped: nothing left
    b.add_row(4, {"reward": float("nan"), "kl": float("inf")})  # a logged NaN / inf is evidence
    b.add_block(np.array([5.0, np.inf, 6.0, -1.0]), {"reward": np.array([0.5, 0.6, 0.7, 0.8])})
    run = b.build()
    assert run.skipped == {"step out of range": 3, "step not an integer": 1, "value out of range": 1}
    assert run.dropped == {"value out of range": 1}
    assert run.series["reward"].steps.tolist() == [1, 4, 5, 6]
    assert run.series["reward"].values[:2].tolist()[0] == 0.1 and np.isnan(run.series["reward"].values[1])


def test_lesson_lines_with_thousands_of_distinct_keys(tmp_path):
    """Block-path rows merged with fallback rows of many distinct keys: a dense keys x rows table
    would be quadratic (3,000 keys x 6,000 rows); rows are then added one by one, in line order."""
    lines = []
    for i in range(3000):
        lines.append(f"[{2 * i}] reward=0.5 entropy=1.2")
        lines.append(f"[{2 * i + 1}] reward=nan key_{i}=1e-3")  # `nan`, `e`: the fallback path
    p = tmp_path / "run.log"
    p.write_text("\n".join(lines) + "\n")
    with hang_guard(60):
        run = read(p, "lesson")
    assert run.series["reward"].steps.tolist() == list(range(6000))
    assert len(run.extras) == 3000 and run.extras["key_17"].steps.tolist() == [35]


def test_notebook_column_names_normalise_in_linear_time():
    from rlvitals.ingest.base import _SPACED_SLASH, normalise_column

    assert normalise_column("rewards / xmlcount_reward_func") == "rewards/xmlcount_reward_func"
    with hang_guard(30):
        assert _SPACED_SLASH.sub("/", " " * LONG + "x") == " " * LONG + "x"


def test_lesson_block_path_counts_overflowing_numbers(tmp_path):
    """`read` takes lesson files through the numpy block path (fastnum): digits beyond float64 there
    are no inf that was logged either; the line goes the careful way and the number is counted."""
    lines = [f"[{i}] reward=0.5 kl=0.1" for i in range(50)]
    lines[20] = "[20] reward=" + "9" * 400 + " kl=0.1"
    lines[25] = "[25] reward=" + "9" * 4000 + " kl=" + "1" * 400
    lines[30] = "[" + "9" * 30 + "] reward=0.5 kl=0.1"
    p = tmp_path / "run.log"
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    assert run.format == "lesson"
    assert run.dropped == {"value out of range": 1}
    assert run.skipped == {"value out of range": 1, "step out of range": 1}
    assert 20 not in run.series["reward"].steps.tolist() and 20 in run.series["kl"].steps.tolist()
    assert np.isfinite(run.series["reward"].values).all()


def test_sqlite_extra_json_numbers_beyond_float64(tmp_path):
    import sqlite3

    p = tmp_path / "metrics.db"
    con = sqlite3.connect(p)
    con.execute("create table metrics (id integer primary key, step integer, reward real, extra_json text)")
    for i in range(5):
        con.execute(
            "insert into metrics (step, reward, extra_json) values (?, ?, ?)",
            (i, 0.5, '{"kl": 1e400, "big": ' + "9" * 400 + ', "x": 0.1}'),
        )
    con.commit()
    con.close()
    run = read(p)
    assert run.format == "rlwatch-sqlite" and run.dropped == {"value out of range": 10}
    assert "kl" not in run.series and run.extras["x"].steps.tolist() == [0, 1, 2, 3, 4]
