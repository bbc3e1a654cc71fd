"""`--format` is the report format (diagnose, vitals); the log format is `--input-format` when
reading and `--log-format` when `simulate` writes one.  The old `simulate --format` still works,
hidden from --help, with a note on stderr."""

from __future__ import annotations

import pytest

from rlvitals.cli import build_parser, main
from rlvitals.ingest import read


@pytest.mark.parametrize("flag", ["--log-format", "-F"])
def test_simulate_log_format(capsys, tmp_path, flag):
    out = tmp_path / "x.log"
    assert main(["simulate", "healthy", "--steps", "30", flag, "verl-console", "-o", str(out)]) == 0
    assert read(out).format == "verl-console"
    assert "deprecated" not in capsys.readouterr().err


def test_simulate_old_format_flag_is_a_deprecated_alias(capsys, tmp_path):
    out = tmp_path / "x.log"
    assert main(["simulate", "healthy", "--steps", "30", "--format", "csv", "-o", str(out)]) == 0
    assert read(out).format == "csv"
    assert "--log-format" in capsys.readouterr().err


def test_simulate_help_names_log_format_only(capsys):
    sub = build_parser()._subparsers._group_actions[0].choices["simulate"]
    text = sub.format_help()
    assert "--log-format" in text and "--format" not in text.replace("--log-format", "")
