"""The `rlvitals` command: a thin shell over the library (no logic here the library lacks).

    rlvitals plot      [LOG] -o curves.png     the lesson's figure
    rlvitals vitals    [LOG]                   what was read, metric by metric
    rlvitals diagnose  [LOG]                   verdict, shapes, findings, the next knob
    rlvitals report    [LOG] -o report.html    all of it in one offline, interactive HTML file
    rlvitals compare   A B [C ...]             runs side by side (where two part ways; many: worst first)
    rlvitals simulate  SCENARIO -o FILE        a realistic run with a known failure
    rlvitals watch     LOG                     follow a live run, alert once per finding
    rlvitals lab                               the interactive level (闯关)

With no LOG, plot/vitals/diagnose use the bundled example (the lesson's healthy 200-step run).
Errors in the input are one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import __version__
from .errors import OutputError, RlvitalsError
from .i18n import default_lang
from .output import describe
from .safe_text import escape_controls

if TYPE_CHECKING:
    from .run import Run

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


class _BadArgs(SystemExit):
    """A bad command line: said in one line; `main` returns 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr (exit 2) like every other error."""

    def error(self, message: str) -> typing.NoReturn:
        m = re.match(r"argument ([^:]+): (.*)", message, re.S)
        if m and m.group(2).startswith(m.group(1).split("/")[-1] + " "):
            message = m.group(2)  # our own checks name the option and its value already
        sys.stderr.write(
            f"{self.prog}: error: {escape_controls(message, keep_layout=False)} (see `{self.prog} --help`)\n"
        )
        raise _BadArgs(2)


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


def _emit(text: str, escaped: bool = False) -> None:
    """The command's output on stdout, flushed now so that a full disk is reported here.  Control
    characters (from a log's keys or values) are shown escaped; `escaped`: the renderer did it
    already and what escape sequences remain are its own colours."""
    from .output import writing

    if not escaped:
        text = escape_controls(text)
    with writing("standard output"):
        sys.stdout.write(text)
        sys.stdout.flush()


def _quiet_stdout() -> None:
    """After stdout failed, point it at /dev/null so the interpreter's exit flush stays silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests): nothing to do
        pass


def _read(args: argparse.Namespace) -> Run:
    from .ingest import example_path, read
    from .ingest.mapping import parse_map

    path = args.log or str(example_path())
    return read(path, format=args.input_format, mapping=parse_map(args.mapping), run=getattr(args, "run", None))


def cmd_plot(args: argparse.Namespace) -> int:
    from .render.plot import plot

    run = _read(args)
    diag = None
    if not args.no_findings:
        from .diagnose import diagnose

        diag = diagnose(run)
    lang = args.lang or default_lang()
    out = plot(run, args.output, lang=lang, max_points=args.max_points, diagnosis=diag)
    _emit(f"→ {out}\n")
    if lang == "zh":  # never silently English: say what to install for Chinese labels
        from .i18n import t
        from .lab.ui import cjk_hint

        hint = cjk_hint()
        if hint:
            print(t("lab.png.nofont", lang, hint=hint), file=sys.stderr)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .diagnose import diagnose
    from .ingest.mapping import require_vitals
    from .render.html import write_report

    run = _read(args)
    require_vitals(run, args.log or run.name, strict=True)  # no verdict drawn from loss and lr alone
    out = write_report(
        run, args.output, lang=args.lang or default_lang(), diagnosis=diagnose(run), max_points=args.max_points
    )
    _emit(f"→ {out}\n")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """`rlvitals compare`: read each log, diagnose it, write the comparison (see render/compare.py)."""
    from .render.compare import load_rows, render_compare

    rows, skipped = load_rows(args.logs, fmt=args.input_format, mapping=args.mapping)
    return render_compare(rows, skipped, fmt=args.format, lang=args.lang, output=args.output)


def cmd_vitals(args: argparse.Namespace) -> int:
    from .render.vitals import render_vitals

    run = _read(args)
    _emit(render_vitals(run, fmt=args.format, lang=args.lang or default_lang()))
    return 0


def cmd_diagnose(args: argparse.Namespace) -> int:
    from .diagnose import diagnose
    from .ingest.mapping import require_vitals
    from .render import render_diagnosis

    run = _read(args)
    require_vitals(run, args.log or run.name, strict=True)  # no verdict drawn from loss and lr alone
    samples = None
    if args.samples:
        from .samples import read_samples

        samples = read_samples(args.samples)
    diag = diagnose(run, samples=samples)
    _emit(render_diagnosis(diag, fmt=args.format, lang=args.lang or default_lang(), width=None, run=run), escaped=True)
    if args.fail_on:
        from .diagnose.model import SEVERITIES

        worst = diag.worst_severity()
        if worst is not None and SEVERITIES.index(worst) >= SEVERITIES.index(args.fail_on):
            return 1
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from .simulate import simulate, write_simulated

    fmt = args.log_format
    if args.old_format is not None:
        print("rlvitals: note: `simulate --format` is deprecated; use --log-format (-F)", file=sys.stderr)
        fmt = fmt or args.old_format
    if args.engine == "rl":
        from .simulate.rlloop import simulate_rl_cli

        run = simulate_rl_cli(
            args.scenario,
            list_only=args.list,
            seed=args.seed,
            steps=args.steps,
            knobs=args.knob,
            lang=args.lang or default_lang(),
        )
        if run is None:
            return 0
    else:
        if args.knob:
            raise RlvitalsError("--knob needs --engine rl (the dice engine has no knobs).")
        if args.list or not args.scenario:
            from .simulate import listing

            _emit(listing(args.lang or default_lang()))
            return 0
        run = simulate(
            args.scenario, seed=args.seed, steps=200 if args.steps is None else args.steps, profile=args.profile
        )
    out = write_simulated(run, args.output, fmt=fmt or "lesson", samples_path=args.samples)
    print(escape_controls(f"→ {out}"), file=sys.stderr)
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    from .ingest.mapping import parse_map
    from .watch import WatchConfig, watch_file

    mapping = parse_map(args.mapping)
    config = WatchConfig(
        fmt=args.input_format,
        lang=args.lang or default_lang(),
        until=args.until,
        exec_cmd=args.exec_cmd,
        webhook=args.webhook,
        interval=args.interval,
        from_start=not args.tail,
        once=args.once,
        mapping=mapping or None,
        run=args.run,
    )
    return watch_file(args.log, config)


def cmd_lab(args: argparse.Namespace) -> int:
    from .lab import run_lab, show_reference

    if args.ref is not None:
        return show_reference(args.ref or None, args.lang or default_lang())
    return run_lab(
        lang=args.lang or default_lang(),
        seed=args.seed,
        reset=args.reset,
        script=args.script,
        state_path=args.state,
        plain=args.plain,
    )


def cmd_formats(args: argparse.Namespace) -> int:
    from .ingest import FORMATS

    if getattr(args, "keys", False):
        from .ingest.aliases import describe

        _emit("\n".join(describe()) + "\n")
        return 0
    lines = [f"{name:18s} {fmt.description}" for name, fmt in FORMATS.items()]
    lines.append(
        f"{'(any of them)':18s} also inside .gz/.bz2/.xz (.zst with zstandard), UTF-16 or BOM, or from stdin (-)"
    )
    lines.append(f"{'':18s} every framework's keys: rlvitals formats --keys")
    _emit("\n".join(lines) + "\n")
    return 0


# each subcommand's function: `main` calls the one the command line names
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "plot": cmd_plot,
    "report": cmd_report,
    "compare": cmd_compare,
    "vitals": cmd_vitals,
    "diagnose": cmd_diagnose,
    "simulate": cmd_simulate,
    "watch": cmd_watch,
    "lab": cmd_lab,
    "formats": cmd_formats,
}


def build_parser() -> argparse.ArgumentParser:
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


class _Terminated(SystemExit):
    """SIGTERM or SIGHUP: unwind (every `finally` runs, temp files go) and exit 128 + the signal."""


def _on_signal(signum: int, frame: object) -> None:
    raise _Terminated(128 + signum)


def _trap_signals() -> dict[int, object]:
    """SIGTERM and SIGHUP unwind like Ctrl-C, so that no temp byte outlives the run (only where
    they would have killed us outright, and only in the main thread; watch installs its own)."""
    import signal
    import threading

    old: dict[int, object] = {}
    if threading.current_thread() is not threading.main_thread():
        return old
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
            old[sig] = signal.signal(sig, _on_signal)
    return old


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _BadArgs:
        return 2
    if not args.command:
        parser.print_help()
        return 0
    old = _trap_signals()
    try:
        return _run(args)
    finally:
        import signal

        for sig, handler in old.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]


def _run(args: argparse.Namespace) -> int:
    func = COMMANDS[args.command]
    try:
        return func(args)
    except RlvitalsError as e:
        if isinstance(e, OutputError):
            _quiet_stdout()
        msg = escape_controls(e.localized(getattr(args, "lang", None) or default_lang()), keep_layout=False)
        print(f"rlvitals: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `rlvitals diagnose | head`: the reader left on purpose
        _quiet_stdout()
        return 0
    except OSError as e:  # the last net: an OS error we did not foresee is still one line
        _quiet_stdout()
        where = f" ({e.filename})" if e.filename else ""
        print(escape_controls(f"rlvitals: error: {describe(e)}{where}", keep_layout=False), file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
