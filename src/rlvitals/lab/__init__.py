"""The lab (闯关): the lesson's level — six curve sets, four confusable pairs, three questions.

    rlvitals lab                      interactive, in the locale's language
    rlvitals lab --lang en --seed 7   fresh variants of every set and pair
    rlvitals lab --script cmds.txt    commands from a file (or - for stdin), plain transcript
    rlvitals lab --ref healthy        the lesson's reference material (one topic), then exit

Layers: `content` (simulator runs + the tool's diagnoses as answer key), `engine` (state machine,
scoring), `state` (progress JSON), `explain` (explanations and hints), `aliases` (every name a
failure goes by), `reference` (the lesson's reference material), `ui` (terminal I/O).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from ..errors import NotAFile, RlvitalsError
from ..i18n import t
from ..safe_text import escape_controls
from .content import LabContent, build_content
from .engine import Lab
from .reference import reference, topic_of
from .state import Progress, StateRefused, default_state_path, load_progress, save_progress
from .ui import LabUI

__all__ = ["Lab", "LabContent", "LabUI", "Progress", "build_content", "run_lab", "show_reference"]


def show_reference(topic: str | None, lang: str, stdout: TextIO | None = None, width: int | None = None) -> int:
    """Print one topic of the lesson's reference material (None: what the lesson is, and the topics).

    An unknown topic is a one-line error naming the topics (exit status 2 through the CLI).
    """
    out = stdout or sys.stdout
    tid = None
    if topic is not None:
        tid = topic_of(topic)
        if tid is None:
            raise RlvitalsError(t("lab.ref.unknown", lang, word=topic[:30]) + " " + reference(None, lang)[-1].strip())
    # a terminal gets its width (up to 120 columns, so wide tables stay tables); a pipe gets 80
    ui = LabUI(Lab(LabContent(None, (), {}), Progress(), lang), out, plain=not _isatty(out), width=width)
    ui.emit(reference(tid, lang))
    return 0


def run_lab(
    lang: str,
    seed: int | None,
    reset: bool,
    script: str | None,
    state_path: str | Path | None,
    plain: bool,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    *,
    figures: bool = True,
    content: LabContent | None = None,
    width: int | None = None,
) -> int:
    """Play the level.  Returns the exit status (0).

    script:     a file of commands, "-" for stdin, None for interactive (a non-terminal stdin is read
                as a script).  Scripted output is plain, with every command echoed.
    state_path: progress file (default: the user data dir); `reset` starts this seed's level over.
    figures:    write PNGs beside the progress file (tests turn this off for speed).
    content:    a prepared level (tests); default: generated from the simulator for `seed`.
    """
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    lines = None
    if script is not None and script != "-":
        p = Path(script)
        if not p.is_file():
            raise NotAFile(f"lab script {script} is not a readable file.")
        lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
    scripted = script is not None or not _isatty(inp)
    path = Path(state_path) if state_path else default_state_path()
    progress, note = load_progress(path, seed, reset)  # StateRefused: one line, exit 2, nothing touched
    if note:
        out.write(escape_controls(t("lab.state.bad", lang, note=note)) + "\n")

    warned: list[bool] = []

    def save(p: Progress) -> None:
        try:
            save_progress(path, p)
        except (OSError, StateRefused) as e:  # a read-only home must not end the session: say it once
            if not warned:
                warned.append(True)
                err = (e.strerror if isinstance(e, OSError) else None) or str(e) or type(e).__name__
                out.write(escape_controls(t("lab.state.nosave", lang, path=path, err=err)) + "\n")

    lab = Lab(content or build_content(seed), progress, lang, on_change=save)
    ui = LabUI(
        lab,
        out,
        plain=plain or scripted,
        echo=scripted,
        figures=path.parent / "lab-figures" if figures else None,
        width=width,
    )
    if scripted:
        ui.run_lines(lines if lines is not None else inp)
    elif stdin is None:
        ui.run_interactive(input)
    else:  # an injected terminal-like stream without input(): read lines, no echo
        ui.run_lines(inp)
    save(lab.progress)
    return 0


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
