"""The generic fallback for hand-rolled loops, `--map CANON=KEY`, and the refusal to diagnose
a file where no vital was read."""

from __future__ import annotations

import json
import re
import time

import pytest

from rlvitals import cli
from rlvitals.errors import InputError, NoVitals
from rlvitals.ingest import FORMATS, open_parser, read, read_text, sniff_text
from rlvitals.ingest.generic import pairs, step_of
from rlvitals.ingest.mapping import parse_map

BEFORE = """Loading model...
Average Reward: 1.73
Step 1/500, loss: 0.0006
Average Reward: 1.80
KL: 0.002
Step 2/500, loss: 0.0005
Average Reward: 1.91
KL: 0.003
Step 3/500, loss: 0.0004
Average Reward: 2.00
Step 4/500, loss: 0.0003
Training done. Final Average Reward: 2.1
"""

AFTER = "".join(
    f"Epoch 1, Step {i}: loss={0.1 / i:.4f}, entropy={2 - 0.1 * i:.2f}\n  reward: {0.2 * i:.1f}, acc: {10 * i}%\n"
    for i in range(1, 6)
)

NO_STEP = "".join(f"reward: {0.1 * i:.1f}, kl: 0.00{i}\nentropy = {1 - 0.1 * i:.1f}\n" for i in range(1, 6))


def write(tmp_path, text: str, name: str = "loop.log"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_pairs_and_steps():
    assert pairs("Step 12/500, loss: 0.0006, Average Reward=1.73") == ({"loss": 0.0006, "Average Reward": 1.73}, False)
    assert pairs("2024-05-01 12:00:01,123 - INFO - reward: 0.5 acc: 45%") == ({"reward": 0.5, "acc": 0.45}, True)
    assert pairs("INFO:root:kl=1e-3 step_time: 2.5s") == ({"kl": 0.001}, False)
    assert pairs("step: 7 epoch=1 lr: nan")[0].keys() == {"lr"}
    assert [
        step_of(x)
        for x in (
            "Step 12/500",
            "step=3 x",
            "[ 7] a=1",
            "global_step: 9",
            "iter 4",
            "step_time: 2",
            "steps: 5",
            "Epoch 1 Step 12",
        )
    ] == [12, 3, 7, 9, 4, None, None, 12]


def test_metrics_before_the_step_line_go_to_the_next_step(tmp_path):
    run = read(write(tmp_path, BEFORE), mapping={"reward": "Average Reward"})
    assert run.format == "generic" and run.meta["fallback"]
    assert run.series["reward"].steps.tolist() == [1, 2, 3, 4]
    assert run.series["reward"].values.tolist() == [1.73, 1.80, 1.91, 2.00]
    assert run.series["kl"].steps.tolist() == [2, 3] and run.series["kl"].source == "KL"
    assert run.series["loss"].values.tolist() == [0.0006, 0.0005, 0.0004, 0.0003]
    # a name first printed under the last step line, before any name the loop prints ahead of its
    # step lines, is that step's summary: kept at it, not dropped
    assert run.skipped == {"not a metric line": 1}
    assert run.extras["Final Average Reward"].steps.tolist() == [4]
    assert any("attached to the next step line" in n for n in run.notes)
    assert any("mapped by the user" in n for n in run.notes) and run.meta["mapping"] == {"reward": "Average Reward"}


def test_metrics_after_the_step_line_go_to_that_step(tmp_path):
    run = read(write(tmp_path, AFTER))
    assert run.series["reward"].steps.tolist() == [1, 2, 3, 4, 5]
    assert run.series["reward"].values.tolist() == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0])
    assert run.series["acc"].values.tolist() == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    assert run.series["entropy"].values[0] == 1.9 and "epoch" not in run.extras
    assert any("step line before them" in n for n in run.notes)
    assert any("% are read as fractions" in n for n in run.notes)


def test_no_step_counter_uses_line_order(tmp_path):
    run = read(write(tmp_path, NO_STEP))
    assert run.format == "generic"
    assert run.series["reward"].steps.tolist() == [1, 2, 3, 4, 5]
    assert run.series["entropy"].values.tolist() == pytest.approx([0.9, 0.8, 0.7, 0.6, 0.5])
    assert run.meta["step_inferred"] and any("no step counter" in n for n in run.notes)


def test_generic_is_the_last_resort():
    assert list(FORMATS)[-1] == "generic"
    # a lesson line has pairs and a [step]: the lesson reader must keep it
    assert sniff_text("[   1] reward=0.1 acc=2.0% entropy=1.8\n" * 5) == "lesson"
    # a YAML config dump has pairs but no loop shape
    assert sniff_text("lr: 0.001\nbatch_size: 32\nepochs: 3\noptim:\n  lr: 0.1\nsched:\n  lr: 0.2\n") is None
    assert sniff_text(BEFORE) == "generic" and sniff_text(NO_STEP) == "generic"


def test_generic_streams_for_watch():
    p = open_parser("generic", "w")
    for line in BEFORE.splitlines(keepends=True)[:6]:
        p.feed(line)
    assert p.snapshot().series["loss"].steps.tolist() == [1, 2]
    p = open_parser("generic", "w", mapping={"reward": "Average Reward"})
    for line in BEFORE.splitlines(keepends=True):
        p.feed(line)
    assert p.finish().series["reward"].source == "Average Reward"


def test_linear_time_on_a_huge_line():
    line = "x" + "=1" * 200_000 + " a" * 200_000 + ":" + "9" * 100_000 + "z\n"
    t0 = time.process_time()
    read_text(line * 3, "generic")
    assert time.process_time() - t0 < 5  # quadratic would take minutes


# -- --map and the refusal to diagnose without vitals ---------------------------------------------
def test_parse_map():
    assert parse_map(["reward=Average Reward", " kl = KL div "]) == {"reward": "Average Reward", "kl": "KL div"}
    for bad in ("reward", "=x", "reward="):
        with pytest.raises(InputError, match="CANON=KEY"):
            parse_map([bad])


def test_mapping_overrides_the_alias_table(tmp_path):
    p = write(
        tmp_path,
        "".join(json.dumps({"step": i, "reward": 0.1 * i, "my_score": i}) + "\n" for i in range(1, 6)),
        "r.jsonl",
    )
    run = read(p, mapping={"reward": "my_score"})
    assert run.series["reward"].source == "my_score" and run.series["reward"].values[-1] == 5
    assert run.extras["reward"].values[-1] == pytest.approx(0.5)  # the displaced key is kept
    with pytest.raises(InputError, match=r"no key 'nope'.*my_score"):
        read(p, mapping={"reward": "nope"})
    with pytest.raises(InputError, match="not a metric rlvitals knows"):
        read(p, mapping={"rewardz": "my_score"})


UNKNOWN = "".join(
    json.dumps({"step": i, "avg_return": 0.1 * i, "policy_ent": 1.0, "kl_coef_x": 0.1}) + "\n" for i in range(1, 21)
)


def test_no_vitals_lists_the_keys_and_suggests_map(tmp_path, capsys):
    p = write(tmp_path, UNKNOWN, "u.jsonl")
    with pytest.raises(NoVitals) as e:
        read(p)
    msg = str(e.value)
    assert "\n" not in msg and "avg_return (20)" in msg and "--map" in msg and "policy_ent" in msg
    for command in ("diagnose", "vitals", "plot"):
        assert (
            cli.main([command, str(p), "-o", str(tmp_path / "x.png")] if command == "plot" else [command, str(p)]) == 2
        )
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "LEARNING" not in err and "avg_return" in err
    assert cli.main(["diagnose", str(p), "--lang", "zh"]) == 2
    assert "看到的键" in capsys.readouterr().err
    assert cli.main(["diagnose", str(p), "--map", "reward=avg_return", "--map", "entropy=policy_ent"]) == 0
    out = capsys.readouterr().out
    assert "LEARNING" in out or "Verdict" in out


def test_diagnose_reads_loss_alone_and_says_the_goal_is_missing(tmp_path, capsys):
    p = write(
        tmp_path, "".join(json.dumps({"step": i, "loss": 1 / i, "lr": 1e-5}) + "\n" for i in range(1, 30)), "sft.jsonl"
    )
    assert read(p).series["loss"].values[0] == 1.0
    assert cli.main(["vitals", str(p)]) == 0
    capsys.readouterr()
    assert cli.main(["diagnose", str(p), "--lang", "en"]) == 0  # read, not refused
    out, err = capsys.readouterr()
    assert err == "" and re.search(r"reward +not logged", out)
    assert "whether the run learns cannot be judged" in " ".join(out.split())
    assert "no goal is logged" in out and "the run is learning" not in out


def test_diagnose_refuses_a_verdict_on_the_learning_rate_alone(tmp_path, capsys):
    p = write(tmp_path, "".join(json.dumps({"step": i, "lr": 1e-5 * i}) + "\n" for i in range(1, 30)), "sched.jsonl")
    assert cli.main(["diagnose", str(p)]) == 2
    assert "none of its 1 numeric keys is a vital" in capsys.readouterr().err


def test_vitals_reports_fallback_and_mapping(tmp_path, capsys):
    p = write(tmp_path, BEFORE)
    assert cli.main(["vitals", str(p), "--map", "reward=average reward"]) == 0
    out = capsys.readouterr().out
    assert "generic fallback reader" in out and re.search(r"--map +reward=Average Reward", out)
    assert cli.main(["vitals", str(p), "--map", "reward=Average Reward", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["fallback"] is True and d["mapping"] == {"reward": "Average Reward"}
    assert d["metrics"]["reward"]["source"] == "Average Reward"


def test_formats_lists_the_new_readers(capsys):
    assert cli.main(["formats"]) == 0
    out = capsys.readouterr().out
    for name in ("notebook", "json-array", "trl-state", "generic"):
        assert sum(line.startswith(name + " ") for line in out.splitlines()) == 1


def test_a_sniffed_reader_that_finds_nothing_falls_back_to_generic(tmp_path):
    # looks like prime-rl's `Step N | Label: value`, but its values are written `name=value`
    text = "".join(f"Step {i} | loss={0.1 / i:.4f} | entropy={2 - 0.1 * i:.2f}\n" for i in range(1, 6))
    run = read(write(tmp_path, text))
    assert run.format == "generic" and run.series["entropy"].steps.tolist() == [1, 2, 3, 4, 5]
    assert any("found no metric" in n for n in run.notes)


def test_watch_with_map(tmp_path, capsys):
    p = write(tmp_path, BEFORE)
    assert cli.main(["watch", str(p), "--once", "--map", "reward=Average Reward"]) == 0
    out = capsys.readouterr().out
    assert "1.730 → 2.000" in out and "mapped by the user" in out
    assert cli.main(["watch", str(p), "--once", "--map", "rewardz=Average Reward"]) == 2
    err = capsys.readouterr().err
    assert err.strip().startswith("rlvitals: error: --map rewardz") and err.count("\n") == 1


def test_plain_names_are_read_as_the_vitals_they_are(tmp_path):
    run = read(write(tmp_path, BEFORE))
    assert run.series["reward"].source == "Average Reward" and run.series["kl"].source == "KL"
    assert run.meta["guessed"] == {"reward": "Average Reward", "kl": "KL"} and "mapping" not in run.meta
    assert any("the name read as reward" in n for n in run.notes)
    # the user's word wins over the guess, and the guessed key goes back to the other keys
    text = BEFORE.replace("KL:", "Score: 3\nKL:")
    run = read(write(tmp_path, text, "b.log"), mapping={"reward": "Score"})
    assert run.series["reward"].source == "Score" and "Average Reward" in run.extras


def test_a_guess_the_user_confirms_is_noted_once(tmp_path):
    run = read(write(tmp_path, BEFORE), mapping={"kl": "KL"})
    kl_notes = [n for n in run.notes if n.startswith("kl from KL")]
    assert kl_notes == ["kl from KL: mapped by the user (--map kl=KL)"]


def test_msg_is_english_and_localizes():
    from rlvitals.i18n import Msg, localize

    m = Msg("ingest.note.positions", n=3)
    assert m == "3 log dicts have no step key: their position in the array is used as the step"
    assert localize(m, "zh").startswith("3 个日志字典") and localize("plain", "zh") == "plain"
    import pickle

    assert localize(pickle.loads(pickle.dumps(m)), "zh") == localize(m, "zh")


def _sampled(n: int = 6) -> str:
    """A loop that prints a sampled answer (numbered steps of its own, some with `=` arithmetic) before
    each of its `[step N] loss=... acc=...` lines."""
    out = []
    for i in range(1, n + 1):
        out += [
            "**Step 1: Work out the price of one portrait.**",
            f"* Price = 2 * $5 = ${10 * i}",
            "**Step 2: Add them up.** Total = 3",
            f"* Adding up Step 1 and Step 2: {i} + 2 = {i + 2}",
            f"Final answer: {i * 7}",
            f"[step {25 * i}] avg_loss={0.01 * i:.4f} acc={0.5 + 0.02 * i:.4f}",
        ]
    return "\n".join(out) + "\n"


def test_step_numbers_in_a_sampled_answer_are_not_steps(tmp_path):
    # the answers' "**Step 1: / **Step 2:" numbers start again with every answer: text, not steps,
    # nor is a step quoted in prose ("Adding up Step 1 and Step 2: ..."), a number that never moves: the
    # counter never "goes back" to 1 (no restarts, no new run) and their arithmetic is no metric
    run = read(write(tmp_path, _sampled()))
    assert run.format == "generic" and len(run.segments) == 1
    assert run.series["acc"].steps.tolist() == [25, 50, 75, 100, 125, 150]
    assert run.series["acc"].values.tolist() == pytest.approx([0.52, 0.54, 0.56, 0.58, 0.6, 0.62])
    assert run.skipped["step number in text"] == 18  # three step numbers in each of six answers
    assert "Total" not in run.extras
    assert any("read as text, not steps" in n and "`**Step 1:`" in n for n in run.notes)
    # fed line by line (watch), the same run
    p = open_parser("generic", "w")
    for line in _sampled().splitlines(keepends=True):
        p.feed(line)
    assert p.snapshot().series["acc"].steps.tolist() == [25, 50, 75, 100, 125, 150]


def test_a_loop_without_step_lines_of_its_own_keeps_every_counter(tmp_path):
    # "Step N/500, loss: ..." lines are the loop's; a header form used once is still a step line
    text = "".join(f"Step {i}/500, loss: {0.1 / i:.4f}\nreward: {0.1 * i:.1f}\n" for i in range(1, 6))
    run = read(write(tmp_path, "Step 0: warm-up, reward: 0.0\n" + text))
    assert run.series["reward"].steps.tolist() == [0, 1, 2, 3, 4, 5] and len(run.segments) == 1


def test_a_long_log_is_read_the_same_past_the_lines_held(tmp_path, monkeypatch):
    # past HOLD_LINES the lines go straight on (bounded memory): the text forms found in the lines
    # held stay text, and the steps read the same as when every line is held
    from rlvitals.ingest import generic

    whole = read(write(tmp_path, _sampled(40)))
    monkeypatch.setattr(generic, "HOLD_LINES", 60)
    p = open_parser("generic", "w")
    for line in _sampled(40).splitlines(keepends=True):
        p.feed(line)
    assert p.held is None  # the stream went past the lines held
    run = p.finish()
    assert run.series["acc"].steps.tolist() == whole.series["acc"].steps.tolist() == [25 * i for i in range(1, 41)]
    assert len(run.segments) == 1 and run.skipped == whole.skipped


def test_a_loop_written_like_the_answers_keeps_its_steps(tmp_path):
    # the loop writes "Step 10: loss=..." as the answers write "Step 1: Work out ...": lines with pairs
    # of their own are followed apart from lines without, so the loop's steps stay steps
    text = "".join(
        f"Step 1: Work out the price.\nStep 2: Add them up.\nStep {10 * i}: loss={0.1 / i:.4f} reward={0.1 * i:.2f}\n"
        for i in range(1, 9)
    )
    run = read(write(tmp_path, text))
    assert run.series["reward"].steps.tolist() == [10 * i for i in range(1, 9)] and len(run.segments) == 1
    assert run.skipped["step number in text"] == 16


def _python_logging(rows: list[str]) -> str:
    return "".join(f"2025-09-23 09:0{i % 10}:00,000 - train - INFO - {r}\n" for i, r in enumerate(rows))


def test_a_dict_printed_inside_a_log_line_is_read_under_its_name(tmp_path):
    """`logger.info(f"loss: {loss}, stats: {stats}")`: the dict's quoted keys are names, under the
    dict's own name as the dict readers flatten it (`stats/reward` reads as the reward)."""
    rows = [f"rl_loss: {0.01 * i}, stats: {{'reward': {0.1 + 0.02 * i:.2f}, 'kl': {0.001 * i:.3f}}}" for i in range(30)]
    run = read(write(tmp_path, _python_logging(rows)))
    assert run.format == "generic" and run.n_steps == 30
    assert run.series["reward"].values[[0, -1]].tolist() == pytest.approx([0.1, 0.68])
    assert run.series["kl"].values[-1] == pytest.approx(0.029)
    assert pairs("note: {'a': {'b': 1}, 'c': 2}, d: 3")[0] == {"note/a/b": 1.0, "note/c": 2.0, "d": 3.0}


def test_a_sum_beside_its_count_is_read_as_the_mean_it_sums(tmp_path):
    """`{'total_num': 64, 'total_reward': 16.0}`: 16 right of 64 is a reward of 0.25, as a reader
    divides them; the sums themselves stay as they were written."""
    rows = [
        f"reward_data: {{'total_num': 256, 'total_reward': {64 + 4 * i}.0, 'total_answer_reward': {60 + 4 * i}.0}}"
        for i in range(30)
    ]
    run = read(write(tmp_path, _python_logging(rows)))
    assert run.series["reward"].values[0] == pytest.approx(64 / 256)
    assert run.series["reward"].values[-1] == pytest.approx((64 + 4 * 29) / 256)
    assert "reward_data/total_reward" in run.extras
    got, _ = pairs("totals: {'n': 4, 'total_x': 2, 'sum_y': 3}")
    assert got["totals/x"] == 0.5 and got["totals/y"] == 0.75 and "totals/n" in got


def test_a_step_number_far_rarer_than_the_rows_does_not_number_them(tmp_path):
    """A step number printed once ("new best at step 0, saving") or on a progress line every 10 rows
    numbers something else: the rows are read in order and numbered (a note says why), instead of
    piling onto one step and dropping the rest."""
    rows = [
        f"rl_loss: {0.01 * i}, token_entropy: {0.8 + 0.2 * i:.2f}, eval_acc: {0.47 - 0.03 * i:.2f}" for i in range(15)
    ]
    rows.insert(2, "in step 0 new best eval_acc: 0.47, save model to checkpoints/rl")
    run = read(write(tmp_path, _python_logging(rows)))
    assert run.n_steps == 15 and run.series["entropy"].values[-1] == pytest.approx(3.6)
    assert any("numbers something else" in n or "number something else" in n for n in map(str, run.notes))
    every = "".join(
        f"reward: {0.1 + 0.01 * s:.3f}, kl: {0.001 * s:.4f}\n" + (f"Step {s}: loss=0.1\n" if s % 10 == 0 else "")
        for s in range(1, 61)
    )
    assert read(write(tmp_path, every, "every.log")).series["reward"].steps.tolist() == list(range(1, 61))


def test_several_records_on_one_line_are_several_rows(tmp_path):
    """A name coming again on one line starts a new row (a loop that prints every step on one line),
    rather than keeping the last value; on a step's own line a name written twice is counted."""
    one = " | ".join(f"reward: {0.1 + 0.01 * i:.2f}, kl: {0.001 * i:.3f}" for i in range(40))
    run = read(write(tmp_path, one + "\n"), "generic")
    assert run.n_steps == 40 and run.series["reward"].values[-1] == pytest.approx(0.49)
    twice = "".join(f"step {s}: reward={0.1 * s:.1f} reward={0.1 * s + 0.05:.2f} kl=0.01\n" for s in range(1, 6))
    run = read(write(tmp_path, twice, "twice.log"))
    assert run.series["reward"].values.tolist() == pytest.approx([0.15, 0.25, 0.35, 0.45, 0.55])
    assert run.skipped["value written twice on its step's line"] == 5


def test_a_config_printed_again_and_again_is_no_loop():
    """Printed dicts of a config (the same values each time) are not a training loop's lines: the
    generic reader does not claim them (a verl console prints its config before the first step)."""
    config = "".join(
        f"model config {{'eos_token_id': 151645, 'rope_theta': 1000000.0, 'vocab_size': 151936}} ({i})\n"
        for i in range(5)
    )
    assert sniff_text(config) is None
    # a loop's step lines whose one metric never moves (a reward of exactly 0) are still a loop's
    assert sniff_text("".join(f"step {s}: reward=0.0\n" for s in range(1, 6))) == "generic"


def test_deepspeed_chat_prints_its_reward_as_an_average_score(tmp_path):
    """DeepSpeed-Chat step 3: `epoch: 0|step: 3|ppo_ep: 1|act_loss: …` then `average reward score: 3.45`,
    with the engine's own lines among them: start-up pairs before the first step line, and its
    optimizer counter (`[Rank 0] step=10, skipped=3`, one line per engine) every ten loop steps, a
    step ahead of the loop.  The engine's counter is a second counter, not a restart of the loop's;
    the reward printed under a step line is that step's."""
    lines = ["[INFO] [config.py:957:print]   loss_scale ....... 0", "Attempted loss scale: 65536, reducing to 32768"]
    for s in range(30):
        if s and s % 10 == 9:
            for engine in (3, 7):
                lines.append(f"[INFO] [logging.py:96:log_dist] [Rank 0] step={s + 1}, skipped={engine}, lr=[1e-07]")
        lines.append(
            f"epoch: 0|step: {s}|ppo_ep: 1|act_loss: {1.5 - 0.01 * s}|cri_loss: {1.4 - 0.01 * s}|unsuper_loss: 0.0"
        )
        lines.append(f"average reward score: {2.0 + 0.05 * s}")
        lines.append("-" * 40)
    p = tmp_path / "training.log"
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    assert run.series["reward"].source == "average reward score"
    assert len(run.segments) == 1 and run.series["reward"].steps[[0, -1]].tolist() == [0, 29]
    assert run.series["reward"].values[0] == pytest.approx(2.0)  # step 0's own, not the next step's
    assert run.series["reward"].values[-1] == pytest.approx(3.45)
    assert run.skipped["metrics before the first step line"] == 1  # the engine's start-up pair
    text = " ".join(map(str, run.notes))
    assert "6 line(s) with a second step counter" in text and "step=10," in text


def test_an_eval_printed_at_the_loops_step_is_no_second_counter(tmp_path):
    """`step 10 | loss=… reward=…` every step and `[eval] step=10 accuracy=0.52` every ten: the eval's
    counter agrees with the loop's, so its lines keep their steps (an eval at its own cadence)."""
    lines = []
    for s in range(1, 61):
        lines.append(f"step {s} | loss={1.0 - 0.01 * s:.3f} reward={0.2 + 0.01 * s:.3f}")
        if s % 10 == 0:
            lines.append(f"[eval] step={s} accuracy={0.4 + 0.002 * s:.3f}")
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n")
    run = read(p)
    assert len(run.segments) == 1 and run.series["reward"].steps[[0, -1]].tolist() == [1, 60]
    acc = run.series.get("acc") or run.series.get("val_acc")
    assert acc is not None and acc.steps.tolist() == [10, 20, 30, 40, 50, 60]
    assert "second step counter" not in " ".join(map(str, run.notes))


def test_no_vitals_example_names_a_mean_not_the_counter(tmp_path):
    # a table of a counter and two means, none a vital by name: the hint's example is a mean
    text = "calls,batch_mean,window_mean\n" + "".join(f"{10 * i},{-0.5 + 0.01 * i},{-0.4}\n" for i in range(1, 30))
    with pytest.raises(NoVitals) as e:
        read(write(tmp_path, text, "t.csv"))
    assert "e.g. --map 'reward=batch_mean'" in str(e.value)


def test_a_share_of_answers_right_written_out_in_words_is_the_accuracy(tmp_path):
    lines = "".join(f"Step {i}, Reward: {0.01 * i:.3f}, Percentage correct: {0.5 + 0.01 * i:.4f}\n" for i in range(30))
    run = read(write(tmp_path, lines, "loop.out"))
    assert run.series["acc"].source == "Percentage correct" and run.series["acc"].values[-1] == pytest.approx(0.79)
