"""Rollout samples (diversity follows entropy), writing runs in every writable format, the example."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from rlvitals.errors import RlvitalsError
from rlvitals.ingest import WRITABLE, example_path, read
from rlvitals.simulate import simulate, simulate_samples, write_simulated
from rlvitals.simulate.example import write_lesson_pretty


def groups(recs):
    out: dict[tuple[int, int], list[dict]] = {}
    for r in recs:
        out.setdefault((r["step"], r["group"]), []).append(r)
    return out


def test_records_shape_and_determinism():
    recs = simulate_samples("healthy", seed=2, steps=100, every=10, prompts=3)
    assert recs == simulate_samples("healthy", seed=2, steps=100, every=10, prompts=3)
    assert len(recs) == 10 * 3 * 8
    assert all(set(r) == {"step", "group", "prompt", "response", "reward"} for r in recs)
    g = groups(recs)
    assert all(len(v) == 8 and len({r["prompt"] for r in v}) == 1 for v in g.values())
    assert {r["step"] for r in recs} == set(range(1, 101, 10))
    assert {r["reward"] for r in recs} <= {0.0, 0.3, 1.3}
    with pytest.raises(RlvitalsError):
        simulate_samples("healthy", every=0)


def test_healthy_groups_are_diverse_and_mostly_right_late():
    recs = simulate_samples("healthy", seed=1, prompts=6)
    late = [v for (s, _), v in groups(recs).items() if s > 150]
    assert np.mean([len({r["response"] for r in v}) for v in late]) > 6
    right = np.mean([r["reward"] >= 1 for v in late for r in v])
    assert right > 0.4
    assert any("####" in r["response"] for r in recs)


def test_collapse_repeats_one_answer_and_hacking_games_the_checker():
    recs = simulate_samples("entropy_collapse", seed=1, prompts=6)
    late = [len({r["response"] for r in v}) for (s, _), v in groups(recs).items() if s > 170]
    assert np.median(late) == 1 and np.mean(late) < 3  # a few groups still escape (degen < 1)
    early = [v for (s, _), v in groups(recs).items() if s < 40]
    assert np.mean([len({r["response"] for r in v}) for v in early]) > 6
    hack = simulate_samples("reward_hacking", seed=1, prompts=6)
    late = [r for r in hack if r["step"] > 180]
    gamed = [r for r in late if r["response"].count("####") > 2]
    assert gamed and all(r["reward"] > 1 for r in gamed)
    nan = simulate_samples("numeric_instability", seed=1)
    assert all(r["reward"] == 0 for r in nan if r["step"] > 190)


def test_length_of_answers_follows_the_run():
    recs = simulate_samples("length_hacking", seed=0, prompts=6)
    words = lambda s: np.mean([len(r["response"].split()) for r in recs if r["step"] in s])  # noqa: E731
    assert words({191}) > 2.5 * words({1, 11, 21})


@pytest.mark.parametrize("fmt", WRITABLE)
def test_written_logs_read_back(tmp_path, fmt):
    run = simulate("sync_failure", seed=2, steps=60)
    path = tmp_path / f"run.{fmt}"
    assert write_simulated(run, str(path), fmt=fmt) == str(path)
    back = read(path, format=fmt)
    for k in ("reward", "ratio_mean", "entropy"):
        if k in back.series:
            np.testing.assert_allclose(back.series[k].values, run.series[k].values, rtol=1e-4, atol=1e-6)
    assert "reward" in back.series or "acc" in back.series


def test_stdout_and_samples(tmp_path, capsys):
    run = simulate("entropy_collapse", seed=1, steps=40)
    samples = tmp_path / "s.jsonl"
    assert write_simulated(run, "-", samples_path=str(samples)) == "<stdout>"
    out = capsys.readouterr().out
    assert out.count("\n") >= 40 and "entropy=" in out
    lines = samples.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4 * 4 * 8 and json.loads(lines[0])["step"] == 1
    with pytest.raises(RlvitalsError):
        write_simulated(run, str(tmp_path / "x"), fmt="no-such-format")


def test_the_bundled_example_is_the_lesson_run_as_written_by_example_py():
    text = example_path().read_text(encoding="utf-8")
    buf = io.StringIO()
    write_lesson_pretty(simulate("healthy", seed=None), buf)
    assert text == buf.getvalue()
    run = read(example_path())
    assert run.format == "lesson" and run.n_steps == 200 and sum(run.skipped.values()) >= 10
    # read back from the log, start → end as every report measures it is the lesson's table
    from rlvitals.render.charts import fmt_value
    from rlvitals.shapes import shapes_of

    sh = shapes_of(run)
    got = {k: (fmt_value(k, sh[k].start), fmt_value(k, sh[k].end)) for k in ("reward", "acc", "entropy", "len")}
    assert got == {
        "reward": ("0.412", "0.847"),
        "acc": ("21.1%", "57.4%"),
        "entropy": ("1.842", "1.498"),
        "len": ("78", "152"),
    }
