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
Errors in the input are one line on stderr and exit status 2.  The options and the --help text
are declared in cli_parser.py; here each command's function, `main` and the signal handling.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from .cli_parser import BadArgs, build_parser
from .errors import OutputError, RlvitalsError
from .i18n import default_lang
from .output import describe
from .safe_text import escape_controls

if TYPE_CHECKING:
    from .run import Run

__all__ = ["COMMANDS", "build_parser", "main"]  # build_parser lives in cli_parser.py


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
        from .ingest.formats import describe_keys

        _emit("\n".join(describe_keys()) + "\n")
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
    except BadArgs:
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
