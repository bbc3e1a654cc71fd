"""The run's notes are messages: English where they are stored (JSON, `str(note)`), and in the
report's language from their i18n key and fields, never by parsing the English back."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from string import Formatter

import pytest

import rlvitals
from rlvitals.i18n import LANGS, Listing, Msg, Text, catalogs, localize
from rlvitals.ingest import read, read_text
from rlvitals.render import render_vitals
from rlvitals.run import Run
from rlvitals.simulate import simulate
from rlvitals.simulate.rlloop import MIN_STEPS, simulate_rl

CJK = re.compile(r"[\u4e00-\u9fff]")
SRC = Path(rlvitals.__file__).parent
FIX = Path(__file__).resolve().parents[1] / "fixtures"

# real logs whose readers write notes (one or more kinds each)
FIXTURES = [
    "peers/rldoctor/entropy_collapse.json",
    "peers/rldoctor/grad_spikes.csv",
    "peers/losslint/trainer_state.json",
    "peers/rlwatch/loss_nan/metrics.db",
    "peers/rlwatch/entropy_collapse/metrics.db",
    "real/trl-qwen35-9b-gsm8k-zero-reward-truncated.log",
    "real/trl-grpo-qwen25vl3b-aokvqa-collapse.md",
    "real/rookworld-124m-grpo-chess-history.jsonl",
    "real/unsloth-phi4-14b-grpo.ipynb",
    "wandb/metrics.jsonl.gz",
    "mlflow",
]


def _merged() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
    for strings in catalogs().values():
        for lang in LANGS:
            out[lang].update(strings[lang])
    return out


def _written(tmp_path: Path) -> list[Path]:
    """Small logs that make the readers say what the fixtures do not."""
    csv = tmp_path / "nostep.csv"
    csv.write_text("reward,acc\n" + "".join(f"{i / 10},{i / 20}\n" for i in range(8)), encoding="utf-8")
    jsonl = tmp_path / "nostep.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"reward": i / 10, "entropy": 1 - i / 20}) + "\n" for i in range(8)), encoding="utf-8"
    )
    two = tmp_path / "two-runs.jsonl"  # a run, a second one started in the same file, resumed
    steps = [*range(1, 6), *range(1, 9), *range(4, 7)]
    two.write_text("".join(json.dumps({"step": s, "reward": s / 10}) + "\n" for s in steps), encoding="utf-8")
    free = tmp_path / "free.log"  # the generic reader: steps on their own lines, names guessed
    free.write_text(
        "".join(
            f"Epoch 1, Step {i}: loss={0.1 / i:.4f}, entropy={2 - 0.1 * i:.2f}\n"
            f"  Average Reward: {0.2 * i:.1f}, acc: {10 * i}%\n"
            for i in range(1, 6)
        ),
        encoding="utf-8",
    )
    counterless = tmp_path / "counterless.log"
    counterless.write_text(
        "".join(f"reward: {0.1 * i:.1f}, kl: 0.00{i}\nentropy = {1 - 0.1 * i:.1f}\n" for i in range(1, 6)),
        encoding="utf-8",
    )
    return [csv, jsonl, two, free, counterless]


@pytest.fixture(scope="module")
def noted_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Run]:
    tmp = tmp_path_factory.mktemp("notes")
    runs = [read(FIX / p) for p in FIXTURES] + [read(p) for p in _written(tmp)]
    runs += [simulate("healthy", seed=1, steps=60), simulate_rl("healthy", seed=1, steps=MIN_STEPS, temperature=0.5)]
    return [r for run in runs for r in (run.file_runs or [run])]


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(template) if name}


def _keys_in_source() -> tuple[set[str], set[str]]:
    """Note keys named in the package (outside the catalogs): whole ones, and f-string prefixes."""
    whole: set[str] = set()
    prefixes: set[str] = set()
    for f in SRC.rglob("*.py"):
        if "i18n" in f.parts:
            continue
        text = f.read_text(encoding="utf-8")
        whole |= set(re.findall(r"(?<!startswith\()\"((?:ingest\.|sim\.|watch\.)?note\.[a-z_]+(?:\.[a-z_]+)*)\"", text))
        prefixes |= set(re.findall(r"f\"((?:ingest\.|sim\.|watch\.)?note\.[a-z_.]*)\{", text))
    return whole, prefixes


def test_every_note_key_the_package_writes_has_english_and_chinese():
    strings = _merged()
    whole, prefixes = _keys_in_source()
    assert len(whole) > 50 and prefixes >= {"note.kind.", "ingest.note.goal_"}
    for key in whole:
        assert key in strings["en"], key
        assert key in strings["zh"] and strings["zh"][key] != strings["en"][key], key
        assert _fields(strings["zh"][key]) == _fields(strings["en"][key]), key  # the same fields filled
    for prefix in prefixes:
        family = [k for k in strings["en"] if k.startswith(prefix)]
        assert family, prefix
        assert all(strings["zh"].get(k) not in (None, strings["en"][k]) for k in family), prefix


def test_reader_notes_are_messages_and_read_in_chinese(noted_runs):
    seen: set[str] = set()
    for run in noted_runs:
        for note in run.notes:
            assert isinstance(note, Msg), (run.name, note)
            zh = localize(note, "zh")
            assert zh != str(note) and CJK.search(zh), (run.name, note)
            assert zh.count("{") == str(note).count("{"), (run.name, zh)  # every field filled in
            assert localize(note, "en") == str(note) == note
            seen.add(note.key)
    # the kinds these logs make a reader (or the simulator) say
    assert seen >= {
        "ingest.note.dicts_from",
        "ingest.note.decoded",
        "ingest.note.nb_table",
        "ingest.note.sqlite_nulls",
        "ingest.note.sqlite_alerts",
        "ingest.note.no_goal",
        "ingest.note.unmapped",
        "ingest.note.goal_eval",
        "ingest.note.goal_component",
        "ingest.note.gen_no_counter",
        "ingest.note.gen_percent",
        "ingest.note.guessed",
        "note.alias",
        "note.components",
        "note.val_kept",
        "note.len_at_max",
        "note.trl_steps",
        "note.segments",
        "note.runs_listed",
        "note.row_number",
        "note.row_number_field",
        "note.simulated",
        "sim.note.rl_scenario",
        "sim.note.knobs",
    }, seen


def test_a_chinese_vitals_report_shows_no_note_in_english(noted_runs):
    for run in noted_runs:
        zh = render_vitals(run, lang="zh", width=10_000)
        en = render_vitals(run, lang="en", width=10_000)
        for note in run.notes:
            assert str(note) in en and localize(note, "zh") in zh, (run.name, note)
            assert str(note) not in zh, (run.name, note)


def test_notes_stay_english_text_in_json_and_survive_a_copy(noted_runs):
    for run in noted_runs:
        doc = json.loads(render_vitals(run, fmt="json"))
        assert doc["notes"] == [str(n) for n in run.notes]
        for copy in (pickle.loads(pickle.dumps(run)), run.upto(int(run.steps[-1])) if run.n_steps else run):
            assert [localize(n, "zh") for n in copy.notes] == [localize(n, "zh") for n in run.notes]


def test_a_note_is_put_together_in_each_language_from_its_parts():
    where = Listing((Msg("note.line_step", line=40, step=1), Msg("note.line_step", line=90, step=5)), "note.comma_sep")
    note = Msg("note.segments", n=3, where=where)
    assert note == (
        "3 segments: the step counter went back at line 40 (step 1), line 90 (step 5); "
        "on steps logged more than once the later segment wins"
    )
    assert (
        localize(note, "zh")
        == "3 段：step 计数在 第 40 行（第 1 步）、第 90 行（第 5 步） 处回退；同一步记录了多次时以后一段为准"
    )
    sim = Msg("note.simulated", name="x", seed=0, summary=Text("a run", "一次训练"))
    assert sim.endswith(": a run") and localize(sim, "zh").endswith("：一次训练")
    assert localize(Text("only English"), "zh") == "only English"  # no translation given: as written
    assert localize("a plain sentence", "zh") == "a plain sentence"


def test_a_log_resumed_many_times_names_only_the_first_restarts():
    # 20 resumes, each going back 10 steps: the note and the vitals text name the first 12
    # restarts and count the rest; the JSON keeps every segment
    lines, start = [], 1
    for _ in range(20):
        lines += [f"[{s:4d}] reward={0.01 * s:.3f} acc=20.0%" for s in range(start, start + 50)]
        start += 40
    run = read_text("\n".join(lines) + "\n", "lesson", "resumed")
    assert len(run.segments) == 20
    note = next(n for n in run.notes if str(n).startswith("20 segments"))
    assert str(note).count("(step ") == 12 and "… (7 more)" in str(note)
    assert "……（另有 7 处）" in localize(note, "zh")
    text = render_vitals(run)
    assert text.count(" rows from line ") == 12 and "… 8 more (--format json)" in text
    assert len(json.loads(render_vitals(run, fmt="json"))["segments"]) == 20
