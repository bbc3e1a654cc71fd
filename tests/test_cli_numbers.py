"""Every numeric option is checked when the command line is parsed: one line on stderr, exit 2,
never a ValueError or OverflowError traceback later."""

from __future__ import annotations

import argparse

import pytest

from rlvitals.cli import build_parser, main
from rlvitals.errors import InputError
from rlvitals.watch import watch_file

BAD = ["-1", "nan", "inf", "-inf", "1e308", "abc", "", "99999999999999999999999999"]
FLAGS = [
    ("watch", "x.log", "--interval"),
    ("simulate", "healthy", "--steps"),
    ("simulate", "healthy", "--seed"),
    ("plot", "-", "--max-points"),
    ("vitals", "-", "--run"),
    ("diagnose", "-", "--run"),
    ("plot", "-", "--run"),
    ("watch", "x.log", "--run"),
    ("lab", None, "--seed"),
]


def _numeric_actions():
    """(subcommand, option) for every option whose value is a number, found in the parser itself."""
    ap = build_parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        for a in p._actions:
            if a.type is not None and a.option_strings:
                yield name, a.option_strings[-1], a.type


def test_no_option_takes_a_bare_int_or_float():
    found = list(_numeric_actions())
    assert {(n, o) for n, o, _ in found} >= {(c, f) for c, _, f in FLAGS}
    assert [(n, o) for n, o, t in found if t in (int, float)] == []


@pytest.mark.parametrize("value", BAD)
@pytest.mark.parametrize("command,arg,flag", FLAGS)
def test_bad_numbers_are_one_line(capsys, command, arg, flag, value):
    if flag == "--run" and value == "-1":
        value = "0"  # -1 is the last run: a valid choice
    argv = [command] + ([arg] if arg else []) + [flag, value]
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "Traceback" not in err, err


def test_good_numbers_still_parse():
    ap = build_parser()
    args = ap.parse_args(["watch", "x", "--interval", "0.5", "--run", "-1"])
    assert args.interval == 0.5 and args.run == -1
    assert ap.parse_args(["plot", "--max-points", "0"]).max_points == 0
    assert ap.parse_args(["simulate", "healthy", "--steps", "300", "--seed", "7"]).steps == 300


@pytest.mark.parametrize("interval", [-1.0, float("nan"), 1e308, 0.0])
def test_watch_file_checks_its_interval_too(tmp_path, interval):
    with pytest.raises(InputError, match="--interval"):
        watch_file(tmp_path / "x.log", interval=interval, once=True)
