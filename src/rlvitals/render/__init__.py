"""Render a diagnosis or a run for people and machines.

    render_diagnosis(diag, fmt="text"|"json"|"markdown", lang="en", width=100) -> str
    render_vitals(run, fmt="text"|"json", lang="en") -> str

Text is for the terminal (colour only on a TTY with NO_COLOR unset), markdown for a PR comment,
JSON for tools (schema in docs/json-schema.md).  `plot.py` (matplotlib) is separate and lazy.
"""

from __future__ import annotations

from ..diagnose.model import Diagnosis
from ..run import Run

__all__ = ["FORMATS", "render_diagnosis", "render_vitals"]

FORMATS: tuple[str, ...] = ("text", "json", "markdown")


def render_diagnosis(
    diag: Diagnosis,
    fmt: str = "text",
    lang: str = "en",
    width: int | None = 100,
    *,
    run: Run | None = None,
    color: bool | None = None,
) -> str:
    """The diagnosis in `fmt`.  Pass the `run` it came from to get a sparkline per vital
    (text and markdown); `width` None = the terminal's width (min 60); `color` None = auto
    (a TTY with NO_COLOR unset)."""
    if width is None:
        import shutil

        width = shutil.get_terminal_size((100, 24)).columns
    if fmt == "text":
        from .terminal import render_text

        return render_text(diag, lang, width, run=run, color=color)
    if fmt == "json":
        from .jsonout import render_json

        return render_json(diag, lang)
    if fmt in ("markdown", "md"):
        from .markdown import render_markdown

        return render_markdown(diag, lang, run=run)
    raise ValueError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")


def render_vitals(run: Run, fmt: str = "text", lang: str = "en", width: int = 100) -> str:
    """What was read from a log, metric by metric (see render/vitals.py)."""
    from .vitals import render_vitals as _render

    return _render(run, fmt=fmt, lang=lang, width=width)
