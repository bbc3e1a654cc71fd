"""Runs side by side: where two runs part ways, and many runs ranked worst first."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rlvitals
from rlvitals.compare import VERDICT_ORDER, part_ways, ranked, summarize
from rlvitals.render.compare import compare_markdown, compare_text
from rlvitals.run import Run
from rlvitals.simulate import SCENARIOS, lesson_pairs, write_simulated


def test_pair_a_parts_near_the_first_onset_and_names_a_deciding_metric():
    pair = lesson_pairs(None)["A"]
    a, b = pair.left.run, pair.right.run  # entropy collapse vs broken weight sync
    p = part_ways(a, b)
    first = min(a.meta["truth"]["onset_step"], b.meta["truth"]["onset_step"])
    # the first metric to leave the other run's is one of the two failures' own: the collapse's
    # entropy or the broken sync's ratio (whichever shows first), never a bystander
    assert p.metric in ("entropy", "ratio_mean") and next(iter(p.by_metric)) == p.metric
    assert abs(p.step - first) <= 0.1 * a.n_steps
    assert {"entropy", "ratio_mean"} <= set(p.by_metric)


@pytest.mark.parametrize("seed", [1, 4])
def test_pair_a_other_draws_part_near_the_first_onset(seed):
    pair = lesson_pairs(seed)["A"]
    a, b = pair.left.run, pair.right.run
    first = min(a.meta["truth"]["onset_step"], b.meta["truth"]["onset_step"])
    assert abs(part_ways(a, b).step - first) <= 0.1 * a.n_steps


def test_a_run_does_not_part_from_itself_nor_from_an_offset_copy_and_a_spike_is_not_parting():
    run = rlvitals.simulate_run("healthy", seed=0)
    assert part_ways(run, run).step is None
    shifted = Run(
        run.name, run.format, {k: type(s)(k, s.steps, s.values + 0.3, s.source) for k, s in run.series.items()}
    )
    assert part_ways(run, shifted).step is None
    spiked = Run(
        run.name, run.format, {k: type(s)(k, s.steps, s.values.copy(), s.source) for k, s in run.series.items()}
    )
    spiked.series["kl"].values[120] *= 50
    assert part_ways(run, spiked).step is None


def test_runs_with_no_common_steps_say_so():
    a = Run.from_arrays("a", np.arange(1, 50), {"reward": np.ones(49)})
    b = Run.from_arrays("b", np.arange(100, 150), {"reward": np.ones(50)})
    p = part_ways(a, b)
    assert p.step is None and p.common_steps == 0
    assert "no common steps" in compare_text(
        [summarize(a, rlvitals.diagnose_run(a)), summarize(b, rlvitals.diagnose_run(b))]
    )


def test_twenty_simulated_runs_rank_dead_and_unstable_first():
    runs = [rlvitals.simulate_run(name, seed=i) for i, name in enumerate(SCENARIOS)]
    runs += [rlvitals.simulate_run(name, seed=7) for name in ("healthy", "lr_too_high")][: 20 - len(runs)]
    assert len(runs) == 20
    rows = ranked([summarize(r, rlvitals.diagnose_run(r)) for r in runs])
    order = [VERDICT_ORDER[r.diag.verdict] for r in rows]
    assert order == sorted(order)
    bad = {r.name for r in runs if r.meta["truth"]["verdict"] in ("dead", "unstable")}
    top = {r.run.name for r in rows[: len(bad)]}
    assert top == bad and len(bad) == 10  # 8 dead, 2 unstable: every one above every other run
    assert rows[-1].diag.verdict == "learning"


def test_cli_compare_text_markdown_html(tmp_path, capsys):
    from rlvitals.cli import main

    pair = lesson_pairs(None)["A"]
    a, b = tmp_path / "A1.log", tmp_path / "A2.log"
    write_simulated(pair.left.run, a)
    write_simulated(pair.right.run, b)
    (tmp_path / "junk.log").write_text("nothing here\n")
    assert main(["compare", str(a), str(b), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "They part ways at step" in out and re.search(r"(ratio_mean|entropy) diverges first", out)
    assert main(["compare", str(tmp_path), "--format", "markdown", "--lang", "zh"]) == 0
    cap = capsys.readouterr()
    assert "| 训练 | 判断 |" in cap.out and "skipped" in cap.err and "junk.log" in cap.err
    html = tmp_path / "c.html"
    assert main(["compare", str(a), str(b), "-o", str(html)]) == 0
    assert "They part ways at step" in html.read_text(encoding="utf-8")
    assert main(["compare", str(a), str(tmp_path / "junk.log")]) == 2
    assert "at least two readable runs" in capsys.readouterr().err


def test_markdown_has_both_runs_side_by_side():
    pair = lesson_pairs(None)["A"]
    rows = [summarize(c.run, rlvitals.diagnose_run(c.run), c.key) for c in (pair.left, pair.right)]
    md = compare_markdown(rows, "en")
    assert "| | A: `A1` | B: `A2` |" in md and "entropy collapse" in md and "sync failure" in md


def test_a_sweep_folder_of_tensorboard_runs_and_an_unexpanded_glob(tmp_path, capsys):
    from rlvitals.cli import main
    from rlvitals.ingest.tensorboard import write_scalars

    sweep = tmp_path / "sweep"
    for i, name in enumerate(("healthy", "entropy_collapse", "stalled")):
        run = rlvitals.simulate_run(name, seed=i)
        write_scalars(
            sweep / name,
            [(f"train/{m}", int(st), float(v)) for m, s in run.series.items() for st, v in zip(s.steps, s.values)],
        )
    assert main(["compare", str(sweep), "--lang", "en"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [ln.split()[0] for ln in lines if ln.split() and ln.split()[0] in ("healthy", "entropy_collapse", "stalled")]
    assert rows[-1] == "healthy" and set(rows[:2]) == {"entropy_collapse", "stalled"}
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("healthy", "lr_too_high"):
        write_simulated(rlvitals.simulate_run(name, seed=0), logs / f"{name}.log")
    assert main(["compare", str(logs / "*.log")]) == 0
    assert "lr_too_high.log" in capsys.readouterr().out
