"""JSON documents of log dicts: trainer_state.json (with or without a BOM) and bare arrays."""

from __future__ import annotations

import json

import numpy as np
import pytest
from realdata import REAL

from rlvitals import cli
from rlvitals.errors import InputError, NoMetrics
from rlvitals.i18n import localize
from rlvitals.ingest import read, sniff_text

ARRAY = REAL / "trl-qwen35-9b-gsm8k-rho1.0-seed43.step_logs.json"
STATE = REAL / "trainerstate-gemma3-1b-gsm8k.trainer_state.json"


def ends(series) -> tuple[float, float]:
    v = series.values
    n = max(1, v.size // 10)
    return float(np.nanmean(v[:n])), float(np.nanmean(v[-n:]))


def test_bare_array_fixture():
    r = read(ARRAY)
    assert r.format == "json-array" and r.n_steps == 40
    assert r.series["reward"].steps[[0, -1]].tolist() == [5, 200]
    assert ends(r.series["reward"]) == pytest.approx((0.17, 0.93), abs=0.01)
    assert ends(r.series["entropy"]) == pytest.approx((0.26, 0.11), abs=0.01)
    assert ends(r.series["trunc"]) == pytest.approx((0.99, 0.32), abs=0.01)
    assert r.series["len"].source == "completions/mean_length"
    assert "rewards/reward_fn/mean" in r.extras or r.series["acc"].source == "rewards/reward_fn/mean"
    assert r.skipped == {"end-of-training summary": 1} and r.meta["step_inferred"] is False


def test_trainer_state_fixture_with_and_without_bom(tmp_path, capsys):
    plain = read(STATE)
    assert plain.format == "trl-state" and plain.n_steps == 25
    assert plain.series["reward"].steps[[0, -1]].tolist() == [10, 250]
    assert ends(plain.series["reward"]) == pytest.approx((0.51, 1.31), abs=0.1)
    p = tmp_path / "trainer_state.json"
    p.write_bytes(b"\xef\xbb\xbf" + STATE.read_bytes())
    bom = read(p)
    assert bom.format == "trl-state" and bom.meta["input"] == ["BOM"]
    for k in plain.series:
        assert np.array_equal(bom.series[k].values, plain.series[k].values, equal_nan=True)
    assert cli.main(["vitals", str(p)]) == 0
    assert "trl-state" in capsys.readouterr().out


def test_array_without_steps_uses_positions(tmp_path):
    p = tmp_path / "logs.json"
    p.write_text(json.dumps([{"reward": 0.1 * i, "kl": 0.01, "nested": {"acc": 0.5}} for i in range(1, 6)]))
    r = read(p)
    assert r.format == "json-array" and r.series["reward"].steps.tolist() == [1, 2, 3, 4, 5]
    acc = r.series["acc"]  # nested dicts flattened; a namespace before `acc` reads as acc
    assert acc.source == "nested/acc" and acc.values.tolist() == [0.5] * 5
    assert r.meta["step_inferred"] and any("position in the array" in n for n in r.notes)


def test_array_with_other_step_keys_and_nulls(tmp_path):
    p = tmp_path / "logs.json"
    rows = [{"global_step": 10 * i, "reward": None if i == 2 else 0.5, "tag": "x"} for i in range(1, 4)]
    p.write_text(json.dumps(rows))
    r = read(p)
    assert r.series["reward"].steps.tolist() == [10, 20, 30] and np.isnan(r.series["reward"].values[1])
    assert r.dropped == {"non-numeric values": 3} and r.skipped == {}


def test_sniffing():
    assert sniff_text('[\n  {\n    "loss": 0.1') == "json-array"
    assert sniff_text('\ufeff{"best_metric": null, "log_history": [') == "trl-state"
    assert sniff_text("[1, 2, 3]") is None


@pytest.mark.parametrize(
    "text, exc, words",
    [
        ("[1, 2, 3]", InputError, "not an array of log dicts"),
        ('{"best_metric": null}', InputError, "no log_history"),
        ('[{"loss": 0.1}, {"loss": }, {"loss": 0.2}]', InputError, "not valid JSON"),  # broken mid-way
        ("[" * 5000 + "]" * 5000, InputError, "not an array of log dicts"),  # nesting cut at MAX_DEPTH
        ('[{"name": "a"}, {"name": "b"}]', NoMetrics, "not one metric"),
    ],
)
def test_bad_documents_are_one_line(tmp_path, capsys, text, exc, words):
    p = tmp_path / "doc.json"
    p.write_text(text)
    with pytest.raises(exc, match=words) as e:
        read(p, "json-array" if text.startswith("[") else "trl-state")
    assert "\n" not in str(e.value)
    assert cli.main(["diagnose", str(p), "-F", "json-array"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_document_keeping_its_rows_under_a_name_of_its_own(tmp_path):
    """`{"steps": [{...}, ...], "sample_batch": {...}}` on one line: the JSONL reader finds no metric
    in its one record, so the file is read as the JSON document it is -- its longest list of dicts --
    and the notes say both."""
    steps = [
        {"step": s, "reward_mean": 0.5 + 0.01 * s, "kl": 0.001 * s, "completion_len": 200 - s} for s in range(1, 41)
    ]
    p = tmp_path / "run.json"
    p.write_text(json.dumps({"steps": steps, "sample_batch": {"prompt": "x", "scores": [1, 0]}}))
    run = read(p)
    assert run.n_steps == 40 and run.series["reward"].steps[[0, -1]].tolist() == [1, 40]
    assert run.series["len"].values[-1] == 160
    text = " ".join(map(str, run.notes))
    assert "jsonl reader found no metric, or one record: read as trl-state" in text and "`steps` list" in text


def test_a_loops_dumped_history_of_per_step_lists(tmp_path):
    """`json.dump(history)` of a loop that appended to lists: one list per metric, entry i at step i
    (the `step` list when there is one), an eval kept as {step: value} at its own steps, a list of
    another length set aside and counted, never stretched over the steps."""
    n = 60
    doc = {
        "step": list(range(10, 10 * n + 1, 10)),
        "rewards_avg": [0.3 + 0.005 * i for i in range(n)],
        "kl_avg": [0.001 * i for i in range(n)],
        "loss_per_microbatch": [0.1] * (4 * n),
        "dev_accuracy": {"100": 0.41, "300": 0.47, "600": 0.52},
    }
    p = tmp_path / "history.json"
    p.write_text(json.dumps(doc, indent=2))
    assert sniff_text(p.read_text()[:4000]) == "json-columns"
    run = read(p)
    assert run.format == "json-columns" and run.series["reward"].steps[[0, -1]].tolist() == [10, 600]
    assert run.series["kl"].values[-1] == pytest.approx(0.059)
    assert run.series["val_acc"].steps.tolist() == [100, 300, 600]  # the dev set's, on its own cadence
    assert run.dropped == {"list of another length than the steps": 4 * n}
    one_line = tmp_path / "metrics.json"
    one_line.write_text(
        json.dumps({"loss": [2.9 - 0.01 * i for i in range(50)], "reward": [6.1 + 0.03 * i for i in range(50)]})
    )
    run = read(one_line)  # sniffed as JSONL (one line), which finds nothing: read as the document it is
    assert run.n_steps == 50 and run.series["reward"].steps[[0, -1]].tolist() == [1, 50]
    text = " ".join(map(str, run.notes))
    assert "read as json-columns" in text and "is step i + 1" in text


def test_curves_of_step_value_pairs_each_on_its_own_steps(tmp_path):
    """Curves exported beside a figure: `{"reward": [[0, 0.1], [2, 0.25], ...], ...}`, each metric a
    list of [step, value] pairs on its own steps (the reward every other step, the grad norm every
    step); a null value is NaN, a pair with a step that is not whole is not a pair."""
    doc = {
        "reward": [[2 * i, 0.1 + 0.01 * i] for i in range(40)],
        "grad_norm": [[i, 1.5 if i != 7 else None] for i in range(80)],
    }
    p = tmp_path / "curves.json"
    p.write_text(json.dumps(doc, indent=1))
    assert sniff_text(p.read_text()[:4000]) == "json-columns"
    p.write_text(json.dumps(doc, separators=(",", ":")))  # on one line: sniffed as JSONL, read as what it is
    run = read(p)
    assert run.format == "json-columns" and not run.meta.get("step_inferred")
    assert run.series["reward"].steps[[0, 1, -1]].tolist() == [0, 2, 78]
    assert run.series["reward"].values[-1] == pytest.approx(0.49)
    assert run.series["gnorm"].steps.tolist() == list(range(80)) and np.isnan(run.series["gnorm"].values[7])
    p.write_text(json.dumps({"reward": [[0.5, 0.1], [1.5, 0.2], [2.5, 0.3]]}))
    with pytest.raises((InputError, NoMetrics)):
        read(p)  # no whole step: not pairs, and not a list of numbers either


def test_runs_side_by_side_in_one_object_are_each_a_run(tmp_path, capsys):
    """An ablation's results: one object per setting, each with the same curves and its summary
    numbers.  Each setting is a run of the file (the last by default, --run K for another), never
    one setting's curve read as the reward with the others left over."""
    doc = {
        name: {"accuracy": acc, "status": "ok", "reward_curve": [start + slope * i for i in range(30)]}
        for name, acc, start, slope in (
            ("base", 0.3, 0.1, 0.01),
            ("wide_clip", 0.35, 0.1, 0.012),
            ("no_kl", 0.0, -0.5, 0.0),
        )
    }
    p = tmp_path / "ablation.json"
    p.write_text(json.dumps(doc, indent=2))
    run = read(p)
    assert run.meta["run_count"] == 3 and run.name.endswith("no_kl")
    assert run.series["reward"].source == "reward_curve" and run.series["reward"].values[0] == pytest.approx(-0.5)
    first = read(p, run=1)
    assert first.name.endswith("base") and first.series["reward"].values[-1] == pytest.approx(0.39)
    assert "base (30 steps)" in " ".join(localize(n, "en") for n in run.notes)
    assert cli.main(["diagnose", str(p), "--run", "2", "--lang", "en"]) == 0
    assert "wide_clip" in capsys.readouterr().out
    # one object of curves beside a curve of the document's own is one run, as before
    doc["reward_curve"] = [0.1] * 30
    p.write_text(json.dumps(doc, indent=2))
    assert "run_count" not in read(p).meta
    # and so are curves keyed by step at the top (`{"reward": {"10": 0.4, ...}, ...}`)
    at = {m: {str(s): 0.1 + s / 1000 for s in range(10, 300, 10)} for m in ("reward", "eval_acc")}
    p.write_text(json.dumps(at, indent=1))
    run = read(p, "json-columns")
    assert "run_count" not in run.meta and run.series["reward"].steps[-1] == 290


def test_a_document_with_train_rows_and_an_eval_list_beside_them(tmp_path):
    """`{"status": ..., "updates": [{"step": 1, ...}], "validations": [{"step": 20, "overall": {...}}]}`
    written over several lines (no JSONL pick to fall back from): a list of dicts whose first key is a
    step is the run's rows, and a list named as evaluations is read at its steps under eval/ -- placed
    among the train rows, so no eval reads as the step counter restarting."""
    updates = [
        {"step": s, "task": f"t{s}", "reward_mean": 1.0 + 0.01 * s, "trainer_metrics": {"loss/entropy": 0.3}}
        for s in range(1, 61)
    ]
    evals = [{"step": s, "overall": {"final_answer_accuracy": 0.4 + 0.002 * s, "task_count": 50}} for s in (20, 40, 60)]
    doc = {"status": "done", "current_step": 60, "updates": updates, "validations": evals, "best_step": 60}
    p = tmp_path / "state.json"
    p.write_text(json.dumps(doc, indent=2))
    assert sniff_text(p.read_text()[:4000]) == "trl-state"
    run = read(p)
    assert run.format == "trl-state" and run.n_steps == 60 and len(run.segments) == 1
    assert run.series["reward"].steps[[0, -1]].tolist() == [1, 60]
    assert run.series["entropy"].source == "trainer_metrics/loss/entropy"
    assert run.series["val_acc"].steps.tolist() == [20, 40, 60]
    assert run.series["val_acc"].values[-1] == pytest.approx(0.52)
    text = " ".join(map(str, run.notes))
    assert "`updates` list" in text and "evals read from the document's `validations` list" in text


def test_per_step_lists_after_the_runs_settings(tmp_path):
    """`{"beta": 0.2, "seed": 1, "rewards_curve": [...], "kl_curve": [...]}`: the settings come first,
    the per-step lists after; `_curve` names the container, not the quantity."""
    n = 40
    doc = {
        "beta": 0.2,
        "seed": 1,
        "mean_reward_after": 4.0,
        "rewards_curve": [1.0 + 0.05 * i for i in range(n)],
        "kl_curve": [0.1 * i for i in range(n)],
    }
    p = tmp_path / "ppo.json"
    p.write_text(json.dumps(doc, indent=2))
    assert sniff_text(p.read_text()) == "json-columns"
    run = read(p)
    assert run.series["reward"].source == "rewards_curve" and run.series["kl"].source == "kl_curve"
    assert run.series["reward"].steps[[0, -1]].tolist() == [1, n]


@pytest.mark.parametrize(
    "tail", ["", ',\n    {\n      "loss": 0.5,\n      "rew', ',\n    {"loss": 0.5, "nested": {"a": [1, 2']
)
def test_a_trainer_state_cut_short_is_read_up_to_its_last_complete_entry(tmp_path, tail):
    # copied while the trainer was writing it (or a disk that filled): the entries before the cut are
    # the run; a note says the rest is not in the file
    history = [{"loss": 0.1, "reward": 0.1 * s, "kl": 0.001 * s, "step": s} for s in range(1, 31)]
    text = json.dumps({"global_step": 30, "log_history": history}, indent=2)
    cut = text[: text.rindex("}", 0, text.rindex("]"))] + "}" + tail  # after the last entry, no closers
    p = tmp_path / "trainer_state.json"
    p.write_text(cut)
    run = read(p)
    assert run.format == "trl-state" and run.series["reward"].steps.tolist() == list(range(1, 31))
    notes = [n for n in run.notes if getattr(n, "key", "") == "ingest.note.json_cut_short"]
    assert len(notes) == 1 and "stops mid-way" in notes[0] and "中途截断" in localize(notes[0], "zh")


def test_a_report_keeping_its_rows_in_a_section_of_its_own(tmp_path):
    """A run's report: settings and provenance first (long enough that the sniffed head sees no row),
    the per-update records in `training.updates`, each with its reward terms averaged under
    `reward_components_mean`.  Read as the log dicts of that section, the terms as components."""
    updates = [
        {
            "episodes": 8,
            "evaluation": {"metrics": {"AnswerF1": 0.5}},
            "reward_components_mean": {"task_success": 0.05 * u, "tool_call_cost": -0.07},
            "reward_mean": 0.1 * u,
            "task_ids": ["a", "b"],
            "update": u,
        }
        for u in range(1, 31)
    ]
    doc = {
        "algorithm": "multi-turn-grpo",
        "provenance": {f"file_{i}": {"path": "/x" * 40, "sha256": "0" * 64} for i in range(800)},
        "training": {"completed_updates": 30, "updates": updates},
    }
    p = tmp_path / "train_report.json"
    p.write_text(json.dumps(doc, indent=2))
    assert len(p.read_text()) > 64 * 1024  # the rows lie past the head the sniffer reads
    run = read(p)
    assert run.format == "trl-state" and run.n_steps == 30
    assert run.series["reward"].values[-1] == pytest.approx(3.0)
    assert run.component_kinds == {"task_success": "correctness", "tool_call_cost": "other"}
    assert "`training/updates` list" in " ".join(map(str, run.notes))
    # a head that looks like per-step lists (a one-number list first) sends it to json-columns, which
    # finds no steps there: the document is read as the log dicts it holds, and the notes say so
    p.write_text(json.dumps({"seeds": [7], **doc}))
    again = read(p)
    assert again.n_steps == 30 and "json-columns reader found no metric" in " ".join(map(str, again.notes))
