"""One step rule: a TRL console log gives its rows the same steps whether it is read whole
(`diagnose`), followed while it grows (`watch`) or read as a prefix."""

from __future__ import annotations

import io

import numpy as np

from rlvitals.ingest import read
from rlvitals.watch import Watcher, watch_file

EVERY, TOTAL, CHUNK = 5, 200, 30


def _bar(n: int) -> str:
    pct = 100 * n // TOTAL
    return f"{pct:3d}%|#         | {n}/{TOTAL} [{n // 60:02d}:{n % 60:02d}<05:00,  3.50s/it]"


def _row(step: int) -> str:
    d = {
        "loss": 0.01,
        "grad_norm": 0.2,
        "learning_rate": 1e-5 * (1 - step / TOTAL),
        "reward": 0.3 + 0.002 * step,
        "reward_std": 0.3,
        "kl": 0.001 * step,
        "entropy": 0.5 - 0.001 * step,
        "completions/mean_length": 200.0 + step,
        "epoch": round(step / 934, 2),
    }
    return str(d)


def trl_console(logging_steps: int = EVERY) -> list[str]:
    """The Trainer's console as a file captures it: the bar (stderr) is written as it is drawn and
    redrawn at each logged step (tqdm.write); the dicts (stdout) arrive in buffered chunks, a chunk
    behind the bar.  No "Num update steps per epoch" in the header, so no epoch rule."""
    lines = ["***** Running training *****", f"  Total optimization steps = {TOTAL}"]
    pending: list[int] = []
    for start in range(1, TOTAL + 1, CHUNK):
        draws = []
        for n in range(start, min(start + CHUNK, TOTAL + 1)):
            draws.append(_bar(n))
            if n % logging_steps == 0:
                draws.append(" " * 40 + _bar(n))  # cleared and drawn again: a row was logged here
        lines.append("\r".join(draws))
        lines += [_row(s) for s in pending]
        pending = [n for n in range(start, min(start + CHUNK, TOTAL + 1)) if n % logging_steps == 0]
    lines += [_row(s) for s in pending]
    lines.append(
        "{'train_runtime': 700.0, 'train_samples_per_second': 2.3, 'train_steps_per_second': 0.29, "
        "'train_loss': 0.01, 'epoch': 0.21}"
    )
    return lines


def test_a_trl_console_prefix_has_the_steps_of_the_whole_file(tmp_path):
    lines = trl_console()
    whole_path = tmp_path / "trl.log"
    whole_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole = read(whole_path)
    assert whole.format == "trl-console"
    assert whole.steps.tolist() == list(range(EVERY, TOTAL + 1, EVERY))
    # a live file, half written: the rows so far sit at the steps the whole file gives them
    half = tmp_path / "half.log"
    half.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    part = read(half)
    k = part.n_steps
    assert 5 < k < whole.n_steps
    assert part.steps.tolist() == whole.steps[:k].tolist()
    assert "redrawn" in part.meta["step_source"]


def test_watch_follows_a_trl_console_on_the_steps_diagnose_reads(tmp_path):
    lines = trl_console()
    w = Watcher()
    seen = []
    for i in range(0, len(lines), 7):
        w.feed([line + "\n" for line in lines[i : i + 7]])
        run = w.snapshot()
        if run is not None and run.n_steps:
            seen.append(run.steps.copy())
    path = tmp_path / "trl.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole = read(path)
    assert len(seen) > 3
    for steps in seen:  # every snapshot along the way agrees with the finished file
        assert np.array_equal(steps, whole.steps[: steps.size])
    out, err = io.StringIO(), io.StringIO()
    watch_file(path, once=True, out=out, err=err)
    assert f"{whole.n_steps} steps" in out.getvalue()


def test_monitor_reads_a_logged_every_n_run_with_a_restart_as_a_file_does(tmp_path):
    """Logging every 5 steps, then the run started again at step 1: Monitor's run is the file's."""
    import json

    from rlvitals.watch import Monitor

    rows = [(s, {"reward": 0.3 + 0.001 * s, "entropy": 0.8, "kl": 0.001 * s}) for s in range(5, 101, 5)]
    rows += [(s, {"reward": 0.2 + 0.002 * s, "entropy": 0.9, "kl": 0.002 * s}) for s in range(1, 61, 5)]
    mon = Monitor(background=False, check_every=10**9, stream=io.StringIO())
    for step, metrics in rows:
        mon.log(metrics, step)
    p = tmp_path / "run.jsonl"
    p.write_text("".join(json.dumps({"step": s, **m}) + "\n" for s, m in rows), encoding="utf-8")
    whole = read(p)
    live = mon.run()
    assert live.steps.tolist() == whole.steps.tolist() == list(range(1, 61, 5))  # the run being written
    assert np.array_equal(live["reward"].values, whole["reward"].values)
