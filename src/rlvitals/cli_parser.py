"""The `rlvitals` command line: its options, their checks and its --help text (no behaviour here).

`build_parser` declares every subcommand and option; a bad argument is one line on stderr and
`BadArgs` (exit 2), a number out of range is refused while parsing.  cli.py runs the commands.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import typing
from collections.abc import Callable

from . import __version__
from .safe_text import escape_controls

EPILOG = """examples:
  rlvitals diagnose                       # the bundled healthy example run
  rlvitals diagnose run.log --lang zh     # any supported log, verdict in Chinese
  rlvitals plot run.log -o curves.png     # the lesson's eight-panel figure
  rlvitals vitals run.log --format json   # what was read, for machines
  rlvitals report run.log -o report.html  # one offline HTML file to send a colleague
  rlvitals compare a.log b.log            # where two runs part ways (many: a table, worst first)
  zcat run.log.gz | rlvitals diagnose -   # from stdin (.gz/.bz2/.xz are also opened directly)
  rlvitals diagnose loop.log --map 'reward=Average Reward'   # say which key is which
  rlvitals simulate entropy_collapse --seed 3 -o ec.log
  rlvitals watch /path/to/train.log --until critical
  rlvitals lab --lang en
"""


class BadArgs(SystemExit):
    """A bad command line: said in one line; `cli.main` returns 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr (exit 2) like every other error."""

    def error(self, message: str) -> typing.NoReturn:
        m = re.match(r"argument ([^:]+): (.*)", message, re.S)
        if m and m.group(2).startswith(m.group(1).split("/")[-1] + " "):
            message = m.group(2)  # our own checks name the option and its value already
        sys.stderr.write(
            f"{self.prog}: error: {escape_controls(message, keep_layout=False)} (see `{self.prog} --help`)\n"
        )
        raise BadArgs(2)


def _number(
    kind: type[int] | type[float],
    lo: float,
    hi: float,
    what: str,
    flag: str,
    *,
    zero: bool = False,
    nonzero: bool = False,
) -> Callable[[str], int | float]:
    """An argparse `type`: a finite `kind` (int or float) in [lo, hi] (`zero`: 0 allowed too;
    `nonzero`: 0 refused), checked when the command line is parsed, never later as a traceback."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: expected {what}") from None
        if zero and value == 0:
            return value
        if not math.isfinite(value) or not lo <= value <= hi or (nonzero and value == 0):

            def show(x: float) -> str:
                return str(int(x)) if kind is int else f"{x:g}"

            span = f"{show(lo)} to {show(hi)}" + (" except 0" if nonzero else "") + (", or 0" if zero else "")
            raise argparse.ArgumentTypeError(f"{flag} {text}: expected {what} from {span}")
        return value

    parse.__name__ = what  # argparse names the type in its messages
    return parse


_RUN = _number(int, -(10**9), 10**9, "a run number", "--run", nonzero=True)
_SEED = _number(int, 0, 2**63 - 1, "a seed (an integer)", "--seed")
_MAX_POINTS = _number(int, 4, 10**9, "a number of points", "--max-points", zero=True)


def _add_input(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "log",
        nargs="?",
        help="training log (file, TensorBoard dir, .gz/.bz2/.xz/.zst, notebook; "
        "- for stdin); default: the bundled example run",
    )
    p.add_argument(
        "--input-format",
        "-F",
        dest="input_format",
        default=None,
        metavar="FMT",
        help="skip format sniffing (see `rlvitals formats`)",
    )
    _add_map(p)
    p.add_argument(
        "--lang", choices=("en", "zh"), default=None, help="language of the report (default: from the locale)"
    )
    p.add_argument(
        "--run",
        type=_RUN,
        default=None,
        metavar="K",
        help="a file holding several runs (the step counter restarted at 1): use run K "
        "(1-based, -1 = the last; default: the last; `rlvitals vitals` lists them)",
    )


def _add_drawing(p: argparse.ArgumentParser, output: str, output_help: str, points_help: str) -> None:
    """`plot` and `report`: a log in (as `_add_input`), a file out, and the points kept per curve."""
    _add_input(p)
    p.add_argument("-o", "--output", default=output, help=output_help)
    p.add_argument("--max-points", type=_MAX_POINTS, default=2000, help=points_help)


def _add_map(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--map",
        dest="mapping",
        action="append",
        default=None,
        metavar="CANON=KEY",
        help="read KEY as the metric CANON, over the alias table (repeatable), "
        "e.g. --map 'reward=Average Reward'; --map goal=KEY: KEY says whether the run learns",
    )


def build_parser() -> argparse.ArgumentParser:
    """Every subcommand and its options; `args.command` names the subcommand given (None: none),
    whose function cli.COMMANDS holds."""
    ap = _Parser(
        prog="rlvitals",
        description="Read RL fine-tuning curves like a practitioner: look at the curves before you change code.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--version", action="version", version=f"rlvitals {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "plot",
        help="draw the eight vitals (+gnorm, trunc) as the lesson asks",
        epilog="example:\n  rlvitals plot run.log -o curves.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_drawing(
        p,
        "curves.png",
        "PNG/SVG/PDF path; its directory must exist (default: curves.png)",
        "min/max-envelope decimation target per panel (0 = draw every point)",
    )
    p.add_argument(
        "--no-findings",
        action="store_true",
        help="do not diagnose the run first (by default each finding's onset is marked on its panels)",
    )

    p = sub.add_parser(
        "report",
        help="one offline HTML file: verdict, next knob, every logged vital (zoom, hover), findings",
        epilog="examples:\n  rlvitals report run.log -o report.html\n  rlvitals report run.log --lang zh",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_drawing(
        p,
        "report.html",
        "HTML path; its directory must exist (default: report.html)",
        "points kept per curve for display, a min/max envelope (0 = all; the diagnosis reads every point)",
    )

    p = sub.add_parser(
        "compare",
        help="runs side by side: where two runs part ways, or a table of many, worst first",
        epilog="examples:\n  rlvitals compare a.log b.log\n  rlvitals compare runs/*.log --format markdown"
        "\n  rlvitals compare a.log b.log -o compare.html",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("logs", nargs="+", help="two or more training logs (files, TensorBoard dirs; a folder of logs)")
    p.add_argument("--input-format", "-F", dest="input_format", default=None, metavar="FMT")
    _add_map(p)
    p.add_argument("--lang", choices=("en", "zh"), default=None, help="language (default: from the locale)")
    p.add_argument(
        "--format",
        choices=("text", "markdown", "html"),
        default=None,
        help="output (default: text, or html when -o ends in .html)",
    )
    p.add_argument("-o", "--output", default=None, help="write to this file instead of standard output")

    p = sub.add_parser(
        "vitals",
        help="what was read: format, steps, each metric's source key and range",
        epilog="example:\n  rlvitals vitals run.log --format json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input(p)
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")

    p = sub.add_parser(
        "diagnose",
        help="verdict, each vital's shape, findings with what was ruled out, the next knob",
        epilog="examples:\n  rlvitals diagnose run.log\n  rlvitals diagnose run.log --format json"
        " --fail-on warning\n  rlvitals diagnose run.log --samples rollouts/",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input(p)
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text", help="output (default: text)")
    p.add_argument(
        "--samples",
        metavar="PATH",
        help="rollout dumps (verl rollout_data_dir or JSONL of "
        "{step, group, response, reward}) used as evidence of within-group diversity",
    )
    p.add_argument(
        "--fail-on",
        choices=("warning", "critical"),
        default=None,
        help="exit 1 when a finding at or above this severity exists (for CI)",
    )

    p = sub.add_parser(
        "simulate",
        help="write a realistic simulated run with a known failure",
        epilog="examples:\n  rlvitals simulate --list\n  rlvitals simulate lr_too_high --seed 2 "
        "--log-format verl-console -o lr.log\n  rlvitals simulate --engine rl --list\n"
        "  rlvitals simulate --engine rl healthy --knob temperature=0.4 --knob kl_coef=0 -o t.log",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scenario", nargs="?", help="scenario name (see --list)")
    p.add_argument("--list", action="store_true", help="list the scenarios (and, with --engine rl, the knobs)")
    p.add_argument(
        "--engine",
        choices=("dice", "rl"),
        default="dice",
        help="dice: drawn latent curves rolled as GRPO dice (default); rl: a real GRPO loop on a toy task",
    )
    p.add_argument(
        "--knob",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="with --engine rl: set a knob (repeatable), e.g. --knob temperature=0.5 --knob onset=120",
    )
    p.add_argument("--lang", choices=("en", "zh"), default=None, help="language of --list (default: from the locale)")
    p.add_argument("--seed", type=_SEED, default=0, help="random seed (default 0)")
    p.add_argument(
        "--steps",
        type=_number(int, 20, 10**7, "a number of steps", "--steps"),
        default=None,
        help="number of training steps (default 200; --engine rl: 300)",
    )
    p.add_argument(
        "--log-format",
        "-F",
        dest="log_format",
        default=None,
        metavar="FMT",
        help="log format to write (default: lesson; see `rlvitals formats`)",
    )
    # the old spelling: `--format` is the report format everywhere else, so it is kept only as a
    # hidden, deprecated alias
    p.add_argument("--format", dest="old_format", default=None, help=argparse.SUPPRESS)
    p.add_argument("-o", "--output", default="-", help="output path, - for stdout (default)")
    p.add_argument("--samples", metavar="PATH", default=None, help="also write sampled rollouts (JSONL) here")
    p.add_argument(
        "--profile",
        choices=("default", "lab"),
        default="default",
        help="lab: drawn as the lab's stages are (the failure owns the run; docs/lab.md)",
    )

    p = sub.add_parser(
        "watch",
        help="follow a live log and alert the moment a finding appears",
        epilog="examples:\n  rlvitals watch train.log\n  rlvitals watch train.log --until critical"
        " --exec 'scancel $SLURM_JOB_ID'",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("log", help="log file to follow (may not exist yet)")
    p.add_argument("--input-format", "-F", dest="input_format", default=None, metavar="FMT")
    _add_map(p)
    p.add_argument("--lang", choices=("en", "zh"), default=None)
    p.add_argument(
        "--until",
        choices=("warning", "critical"),
        default=None,
        help="exit with status 3 on the first alert at or above this severity",
    )
    p.add_argument(
        "--exec",
        dest="exec_cmd",
        metavar="CMD",
        default=None,
        help="run CMD on each alert (RLVITALS_FINDING, RLVITALS_SEVERITY, RLVITALS_STEP, RLVITALS_JSON set)",
    )
    p.add_argument("--webhook", metavar="URL", default=None, help="POST each alert as JSON to URL")
    p.add_argument(
        "--interval",
        type=_number(float, 0.01, 86400, "seconds", "--interval"),
        default=1.0,
        help="seconds between polls, 0.01 to 86400 (default 1)",
    )
    p.add_argument("--tail", action="store_true", help="start at the end of the file instead of reading it all")
    p.add_argument("--once", action="store_true", help="read what is there, report, and exit (no following)")
    p.add_argument(
        "--run",
        type=_RUN,
        default=None,
        metavar="K",
        help="a log whose step counter restarts at 1 holds several runs: judge run K only (1-based; "
        "exits 0 with its summary when run K+1 begins). Default (-1): the run being written, "
        "each restart a new run whose alerts start afresh; -2.. from the end with --once",
    )

    p = sub.add_parser(
        "lab",
        help="the interactive level (闯关): six curve sets, four confusable pairs, three questions",
        epilog="examples:\n  rlvitals lab\n  rlvitals lab --lang en --seed 7\n"
        "  rlvitals lab --script answers.txt --plain\n  rlvitals lab --ref table",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--lang", choices=("en", "zh"), default=None)
    p.add_argument("--seed", type=_SEED, default=None, help="fresh variants of every set and pair")
    p.add_argument("--reset", action="store_true", help="forget saved progress and start over")
    p.add_argument("--script", metavar="FILE", default=None, help="read commands from FILE (- for stdin)")
    p.add_argument("--state", metavar="PATH", default=None, help="progress file (default: user data dir)")
    p.add_argument("--plain", action="store_true", help="no colour, no terminal charts wider than 80 columns")
    p.add_argument(
        "--ref",
        metavar="TOPIC",
        nargs="?",
        const="",
        default=None,
        help="print the lesson's reference material and exit: healthy, shapes, adv_std, table, pairs, "
        "plot, summary (no TOPIC: what the lesson is)",
    )

    p = sub.add_parser("formats", help="list the log formats rlvitals reads")
    p.add_argument("--keys", action="store_true", help="list every framework key read as each metric (the alias table)")
    return ap
