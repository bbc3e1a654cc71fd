"""The `rlvitals` command end to end: exit codes, one-line errors, the bundled example, --fail-on."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from rlvitals.cli import COMMANDS, build_parser, main


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_lists_every_command_with_examples(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for cmd in ("plot", "vitals", "diagnose", "simulate", "watch", "lab", "formats"):
        assert f"\n    {cmd}" in out
    assert "examples:" in out


def test_every_subcommand_has_its_function():
    """The parser (cli_parser.py) and the functions `main` dispatches to (cli.COMMANDS) name the
    same subcommands: one declared but not wired would end in a KeyError, not a result."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(sub.choices) == sorted(COMMANDS)
    assert len(COMMANDS) >= 9


def test_no_command_prints_help(capsys):
    code, out, _ = run_cli(capsys)
    assert code == 0 and "usage: rlvitals" in out


def test_diagnose_default_is_the_bundled_healthy_example(capsys):
    code, out, err = run_cli(capsys, "diagnose", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["verdict"] == "learning"
    assert doc["run"]["format"] == "lesson"
    assert all(f["severity"] == "info" for f in doc["findings"])


@pytest.mark.parametrize("lang, word", [("en", "Verdict"), ("zh", "结论")])
def test_diagnose_text_in_both_languages(capsys, lang, word):
    code, out, _ = run_cli(capsys, "diagnose", "--lang", lang)
    assert code == 0 and word in out


def test_fail_on_sets_exit_status(capsys, tmp_path):
    log = tmp_path / "ec.log"
    assert run_cli(capsys, "simulate", "entropy_collapse", "--seed", "1", "-o", str(log))[0] == 0
    code, out, _ = run_cli(capsys, "diagnose", str(log), "--format", "json", "--fail-on", "critical")
    assert json.loads(out)["findings"][0]["id"] == "entropy_collapse"
    assert code == 1
    # the healthy example has only info notes: --fail-on warning passes
    assert run_cli(capsys, "diagnose", "--fail-on", "warning")[0] == 0


def _bad_inputs(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 8)
    prose = tmp_path / "notes.txt"
    prose.write_text("this is not a training log\njust words\n" * 20)
    latin = tmp_path / "latin.log"
    latin.write_bytes(b"caf\xe9 " * 400)
    return {
        "missing": tmp_path / "nope.log",
        "directory": tmp_path,
        "empty": empty,
        "binary": binary,
        "no metrics": prose,
        "encoding": latin,
    }


@pytest.mark.parametrize("command", ["diagnose", "vitals", "plot"])
def test_bad_input_is_one_line_exit_2_no_traceback(capsys, tmp_path, command):
    for what, path in _bad_inputs(tmp_path).items():
        code, out, err = run_cli(capsys, command, str(path))
        assert code == 2, (what, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("rlvitals: error: "), (what, err)
        assert "Traceback" not in err


def test_unknown_input_format_names_the_known_ones(capsys):
    code, _, err = run_cli(capsys, "vitals", "--input-format", "nonsense")
    assert code == 2 and "verl" in err and "lesson" in err


def test_simulate_list_and_unknown_scenario(capsys):
    code, out, _ = run_cli(capsys, "simulate", "--list")
    assert code == 0 and "entropy_collapse" in out and "healthy" in out
    code, _, err = run_cli(capsys, "simulate", "no_such_scenario")
    assert code == 2 and "entropy_collapse" in err


def test_formats_lists_readers(capsys):
    code, out, _ = run_cli(capsys, "formats")
    names = {line.split()[0] for line in out.splitlines() if line.strip()}
    assert {"lesson", "tensorboard", "csv"} <= names


def test_console_script_runs_as_module():
    proc = subprocess.run([sys.executable, "-m", "rlvitals", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("rlvitals ")
