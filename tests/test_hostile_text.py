"""No control character from a log reaches the terminal: keys, values, file names, the one-line
error, every command and output format.  The bytes of stdout and stderr are scanned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlvitals.cli import main
from rlvitals.safe_text import colours, escape_controls, paint

SRC = str(Path(__file__).resolve().parents[1] / "src")
HOSTILE = ["\u001b]0;TITLE\u0007", "\u001b[2J", "\u009b", "\u202e", "\r"]
TITLE_KEY = HOSTILE[0] + "loss"


def raw_controls(data: bytes) -> list[str]:
    """Every control character in `data` (UTF-8) other than TAB and LF, as its code point."""
    text = data.decode("utf-8", errors="replace")
    return sorted(
        {
            f"U+{ord(c):04X}"
            for c in text
            if (ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F or c in "\u202e"
        }
    )


def write_hostile(folder: Path, vital: bool = True) -> Path:
    path = folder / ("run" + HOSTILE[1] + ".jsonl")
    with path.open("w", encoding="utf-8") as fh:
        for s in range(1, 81):
            row: dict[str, object] = {
                "step": s,
                TITLE_KEY: 1.0 / s,
                "x" + HOSTILE[1] + "y": 0.5,
                "c1" + HOSTILE[2] + HOSTILE[3] + "key": s,
                "note": HOSTILE[1] + "v" + HOSTILE[2],
            }
            if vital:
                row.update(reward=0.1 + 0.005 * s, acc=0.2 + 0.004 * s, entropy=1.0 - 0.002 * s, kl=0.001 * s)
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        fh.write("garbage " + "".join(HOSTILE) + " line\n")
    return path


def run_cli(capsys, *argv: str) -> tuple[int, bytes, bytes]:
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out.encode("utf-8"), cap.err.encode("utf-8")


@pytest.mark.parametrize(
    "argv",
    [
        ["vitals"],
        ["vitals", "--format", "json"],
        ["diagnose"],
        ["diagnose", "--format", "markdown"],
        ["diagnose", "--format", "json"],
        ["vitals", "--map", "loss=" + TITLE_KEY],
        ["diagnose", "--map", "loss=" + TITLE_KEY],
        ["diagnose", "--map", "reward=" + TITLE_KEY, "--format", "markdown"],
        ["watch", "--once"],
    ],
)
def test_every_command_and_format_shows_controls_escaped(capsys, tmp_path, argv):
    log = write_hostile(tmp_path)
    code, out, err = run_cli(capsys, argv[0], str(log), *argv[1:])
    assert code == 0, err
    assert raw_controls(out) == [] and raw_controls(err) == [], (out[:400], err[:400])
    if "json" in argv:
        json.loads(out)  # still valid JSON


def test_json_keeps_the_value_of_a_key(capsys, tmp_path):
    log = write_hostile(tmp_path)
    code, out, _ = run_cli(capsys, "vitals", str(log), "--format", "json", "--map", "loss=" + TITLE_KEY)
    assert code == 0 and raw_controls(out) == []
    back = json.loads(out)
    assert back["mapping"]["loss"] == TITLE_KEY and back["name"] == "run" + HOSTILE[1]  # same value, escaped in transit


@pytest.mark.parametrize("command", ["diagnose", "vitals"])
def test_the_one_line_error_quotes_keys_escaped(capsys, tmp_path, command):
    log = write_hostile(tmp_path, vital=False)
    code, out, err = run_cli(capsys, command, str(log))
    assert code == 2
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rlvitals: error: ")
    assert raw_controls(err) == [] and raw_controls(out) == []
    assert "\\u001b]0;TITLE\\u0007loss" in lines[0]  # shown, not emitted


def test_real_process_bytes_with_colour_forced(tmp_path):
    """A real terminal session (colours on): our own colour codes are the only escapes written."""
    log = write_hostile(tmp_path)
    env = {**os.environ, "PYTHONPATH": SRC, "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    code = "import sys; sys.stdout.isatty = lambda: True; from rlvitals.cli import main; sys.exit(main(sys.argv[1:]))"
    p = subprocess.run(
        [sys.executable, "-c", code, "diagnose", str(log), "--map", "loss=" + TITLE_KEY],
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert b"\x1b[" in p.stdout  # colour is on
    stripped = p.stdout
    for sgr in (
        b"\x1b[1;31m",
        b"\x1b[1;32m",
        b"\x1b[1;33m",
        b"\x1b[1;35m",
        b"\x1b[1;36m",
        b"\x1b[33m",
        b"\x1b[1m",
        b"\x1b[0m",
    ):
        stripped = stripped.replace(sgr, b"")
    assert raw_controls(stripped) == [] and raw_controls(p.stderr) == []


def test_the_rule_itself():
    assert escape_controls("a\tb\nc\x1b[2J\x07\x7f\x9b\u202e") == "a\tb\nc\\u001b[2J\\u0007\\u007f\\u009b\\u202e"
    assert escape_controls("a\tb\nc", keep_layout=False) == "a\\u0009b\\u000ac"
    assert escape_controls("plain 中文 text") == "plain 中文 text"
    # a forged colour mark from a file is escaped; only marks painted by us become colour
    forged = "\ufdd0" + "31\ufdd1red"
    assert "\x1b" not in colours(forged)
    assert colours(paint("ok", "31")) == "\x1b[31mok\x1b[0m"
    assert colours("\x1b[31m" + paint("ok", "1")) == "\\u001b[31m\x1b[1mok\x1b[0m"


def test_lab_script_lines_are_echoed_escaped(capsys, tmp_path):
    script = tmp_path / "answers.txt"
    script.write_text("answer " + HOSTILE[0] + " l\n" + HOSTILE[1] + "\nscore\n", encoding="utf-8")
    code, out, err = run_cli(
        capsys, "lab", "--script", str(script), "--state", str(tmp_path / "p.json"), "--plain", "--lang", "en"
    )
    assert code == 0 and raw_controls(out) == [] and raw_controls(err) == []
    assert "\\u001b[2J" in out.decode()
