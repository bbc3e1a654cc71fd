"""Jupyter notebooks: the Trainer's HTML table, printed logs in the outputs, and the choice between them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from realdata import REAL

from rlvitals import cli
from rlvitals.errors import InputError
from rlvitals.ingest import read, sniff_text
from rlvitals.ingest.notebook import html_tables, normalise_column

MISTRAL = REAL / "unsloth-mistral-7b-grpo-gsm8k.ipynb"
PHI4 = REAL / "unsloth-phi4-14b-grpo.ipynb"


def ends(series) -> tuple[float, float]:
    v = series.values
    n = max(1, v.size // 10)
    return float(np.nanmean(v[:n])), float(np.nanmean(v[-n:]))


def test_mistral_notebook_table():
    r = read(MISTRAL)
    assert r.format == "notebook" and r.meta["notebook_source"] == "html-table"
    assert r.n_steps == 250 and r.series["reward"].steps[[0, -1]].tolist() == [1, 250]
    assert r.series["reward"].values[[0, -1]].tolist() == [-0.157333, 0.247333]
    assert ends(r.series["reward"]) == pytest.approx((-0.3473, 0.3103), abs=1e-4)
    assert r.series["kl"].source == "kl" and r.series["kl"].values[-1] == 0.075808
    assert r.series["len"].source == "completion_length" and r.series["len"].values[0] == 299.333344
    assert r.series["loss"].source == "loss"  # "Training Loss"
    # the reward components, with the spaces around the slash gone
    comps = sorted(k for k in (*r.extras, *(s.source for s in r.series.values())) if k.startswith("rewards/"))
    assert comps == [
        "rewards/correctness_reward_func",
        "rewards/int_reward_func",
        "rewards/soft_format_reward_func",
        "rewards/strict_format_reward_func",
        "rewards/xmlcount_reward_func",
    ]
    assert ends(r.extras["rewards/xmlcount_reward_func"]) == pytest.approx((-0.3673, 0.187), abs=1e-4)
    assert r.extras["rewards/strict_format_reward_func"].is_constant
    assert r.extras["rewards/strict_format_reward_func"].values[0] == 0.0
    assert "cell 15" in r.notes[0] and "rewards / xmlcount_reward_func" in r.notes[0]
    assert r.skipped == {}


def test_phi4_notebook_table():
    r = read(PHI4)
    assert r.format == "notebook" and r.n_steps == 100
    assert set(r.series) == {"reward", "kl", "len", "loss"} and set(r.extras) == {"reward_std"}
    assert ends(r.series["reward"]) == pytest.approx((0.3422, 0.247), abs=1e-4)
    assert r.series["kl"].values.max() < 0.03
    assert ends(r.series["len"]) == pytest.approx((194.82, 194.47), abs=0.01)  # near the 200 cap


def test_notebook_through_the_cli(capsys):
    assert cli.main(["vitals", str(MISTRAL)]) == 0
    out = capsys.readouterr().out
    assert "notebook" in out and "250 steps" in out and "rewards/xmlcount_reward_func" in out


def test_normalise_column():
    assert normalise_column("rewards / xmlcount_reward_func") == "rewards/xmlcount_reward_func"
    assert normalise_column("completions /  mean_length") == "completions/mean_length"
    assert normalise_column("Training Loss") == "loss" and normalise_column("Validation Loss") == "eval_loss"


def test_html_tables_nested_and_entities():
    html = (
        "<table><thead><tr><th>Step</th><th>a &amp; b</th></tr></thead><tbody>"
        "<tr><td>1</td><td><table><tr><th>x</th></tr></table>0.5</td></tr></tbody></table>"
    )
    (t,) = html_tables(html)
    assert t.header == ["Step", "a & b"] and t.rows == [["1", "0.5"]]


# -- synthetic notebooks --------------------------------------------------------------------------
def _nb(*outputs: dict) -> dict:
    return {
        "cells": [{"cell_type": "code", "source": [], "outputs": list(outputs)}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _table(header: list[str], rows: list[list[object]]) -> dict:
    th = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    html = f"<div><progress></progress></div><table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table><p>"
    return {
        "output_type": "display_data",
        "data": {"text/html": [html], "text/plain": ["<IPython.core.display.HTML object>"]},
    }


def _stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text.splitlines(keepends=True)}


DICTS = "".join(
    f"{{'loss': 0.01, 'reward': {0.1 * i:.1f}, 'entropy': {1 - 0.05 * i:.2f}, 'kl': 0.001, "
    f"'completions/mean_length': 100.0, 'step': {i}, 'epoch': 0.1}}\n"
    for i in range(1, 7)
)


def _write(tmp_path, doc: dict, name: str = "nb.ipynb"):
    p = tmp_path / name
    p.write_text(json.dumps(doc, indent=1))
    return p


def test_printed_trl_dicts_in_a_stream(tmp_path):
    r = read(_write(tmp_path, _nb(_stream("Unsloth: patching…\n" + DICTS))))
    assert r.format == "notebook" and r.meta["notebook_source"] == "printed:trl-console"
    assert r.series["reward"].steps.tolist() == [1, 2, 3, 4, 5, 6]
    assert r.series["entropy"].values[-1] == 0.7


def test_table_preferred_when_it_has_the_vitals(tmp_path):
    table = _table(
        ["Step", "Training Loss", "reward", "kl", "completion_length", "entropy"],
        [[i, "No log" if i == 1 else 0.01, 0.2 * i, 0.001, 90, 0.9] for i in range(1, 5)],
    )
    r = read(_write(tmp_path, _nb(_stream(DICTS), table)))
    assert r.meta["notebook_source"] == "html-table"
    assert r.series["loss"].steps.tolist() == [2, 3, 4]  # "No log" is a gap, not a value
    assert any("also reads as trl-console" in n for n in r.notes)


def test_printed_output_preferred_when_the_table_lacks_vitals(tmp_path):
    table = _table(["Step", "Training Loss"], [[i, 0.5] for i in range(1, 4)])
    r = read(_write(tmp_path, _nb(table, _stream(DICTS))))
    assert r.meta["notebook_source"] == "printed:trl-console" and r.n_steps == 6
    assert any("HTML table" in n for n in r.notes)


def test_rl_table_chosen_among_several(tmp_path):
    ev = _table(["Epoch", "Training Loss", "Validation Loss"], [[1, 0.5, 0.6], [2, 0.4, 0.5]])
    rl = _table(
        ["Step", "Training Loss", "reward", "reward_std", "kl", "rewards / acc_fn", "completions / mean_length"],
        [[i, 0.0, 0.1 * i, 0.3, 0.002, 0.1 * i, 50 + i] for i in range(1, 6)],
    )
    r = read(_write(tmp_path, _nb(rl, ev)))
    assert r.n_steps == 5 and r.series["len"].source == "completions/mean_length"
    assert "2 of 2 tables" not in r.notes[0] and "1 of 2 tables" in r.notes[0]


def test_text_plain_results_are_read(tmp_path):
    out = {"output_type": "execute_result", "execution_count": 3, "metadata": {}, "data": {"text/plain": DICTS}}
    r = read(_write(tmp_path, _nb(out)))
    assert r.n_steps == 6 and "reward" in r.series


def test_notebook_sniffed_without_suffix(tmp_path):
    p = _write(tmp_path, _nb(_stream(DICTS)), name="run.json")
    assert sniff_text(p.read_text()) == "notebook"
    assert read(p).format == "notebook"


@pytest.mark.parametrize(
    "doc, words",
    [
        (_nb(_stream("hello world\n")), "hold no training metrics"),
        ({"cells": "nope"}, "not a readable Jupyter notebook"),
    ],
)
def test_notebook_without_metrics_is_one_line(tmp_path, doc, words):
    with pytest.raises(InputError, match=words) as e:
        read(_write(tmp_path, doc), "notebook")
    assert "\n" not in str(e.value)


def test_truncated_notebook_is_one_line(tmp_path, capsys):
    p = tmp_path / "cut.ipynb"
    p.write_text(MISTRAL.read_text()[:5000])
    assert cli.main(["diagnose", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a readable Jupyter notebook" in err


def test_table_rows_with_absurd_steps_are_skipped(tmp_path):
    table = _table(["Step", "reward", "kl"], [[1, 0.1, 0.0], ["1e300", 0.2, 0.0], ["inf", 0.3, 0.0], [3, 0.4, "x"]])
    r = read(_write(tmp_path, _nb(table)))
    assert r.series["reward"].steps.tolist() == [1, 3]
    assert r.skipped == {"table row without a step": 2} and r.dropped == {"non-numeric cells": 1}


def test_hand_rolled_loop_printed_in_a_notebook(tmp_path):
    noise = (
        "INFO 02-06 14:09:20 config.py:2368] Casting torch.bfloat16 to torch.float16.\n"
        "Unsloth: GPU: Tesla T4. Max memory: 14.741 GB. Platform: Linux.\n"
    )
    loop = "".join(f"Step {i}/20 | Average Reward: {0.1 * i:.1f} | KL: 0.0{i}\n" for i in range(1, 6))
    r = read(_write(tmp_path, _nb(_stream(noise), _stream(loop))))
    assert r.meta["notebook_source"] == "printed:generic"
    assert r.series["reward"].source == "Average Reward" and r.series["kl"].steps.tolist() == [1, 2, 3, 4, 5]
    assert "config.py" not in r.extras and "Max memory" in r.extras


def test_prose_with_numbers_is_no_training_log(tmp_path):
    prose = "".join(f"Step {i}: Total cost = {i * 40}\nSo the answer: {i}\n" for i in range(1, 6))
    with pytest.raises(InputError, match="hold no training metrics"):
        read(_write(tmp_path, _nb(_stream(prose))))


def test_notes_in_chinese(capsys):
    assert cli.main(["vitals", str(PHI4), "--lang", "zh"]) == 0
    assert "读自第 15 个单元格里 Trainer 的 HTML 表格" in capsys.readouterr().out


def test_notebook_piped_in(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PHI4.read_bytes())))
    assert cli.main(["vitals", "-", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["name"] == "stdin" and d["format"] == "notebook" and d["steps"]["count"] == 100
    assert d["input"] == ["stdin"]


def test_a_console_kept_in_markdown_cells_is_read_when_no_output_holds_metrics(tmp_path):
    # a notebook saved without outputs, each training cell's console pasted below it as text
    md = [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["## run A output\n", "loading…\n", *DICTS.splitlines(True)],
        }
    ]
    doc = {"cells": [*md, *_nb(_stream("hello world\n"))["cells"]], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    r = read(_write(tmp_path, doc))
    assert r.format == "notebook" and r.meta["notebook_source"] == "markdown:trl-console"
    assert r.series["reward"].steps.tolist() == [1, 2, 3, 4, 5, 6]
    assert any("Markdown cells" in str(n) for n in r.notes)
    # an output that holds the metrics is read first, the prose of the Markdown cells never
    prose = [{"cell_type": "markdown", "metadata": {}, "source": ["Step 1: reward = 9\n", "Step 2: reward = 9\n"]}]
    both = {**doc, "cells": [*prose, *_nb(_stream(DICTS))["cells"]]}
    assert read(_write(tmp_path, both, "b.ipynb")).meta["notebook_source"] == "printed:trl-console"
    # Markdown prose with numbers is still no training log
    with pytest.raises(InputError, match="hold no training metrics"):
        read(_write(tmp_path, {**doc, "cells": [*prose, *_nb(_stream("hi\n"))["cells"]]}, "c.ipynb"))
