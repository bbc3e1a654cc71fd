"""Read any supported training log into a `Run`: sniff the format, parse, map keys to canonical names.

    from rlvitals.ingest import read
    run = read("train.log")            # format sniffed; run.format says which
    run = read("train.log", format="verl-console")
    run = read("runs.jsonl", run=2)    # a file holding several runs (the step restarted at 1): the 2nd
    runs = read_all("runs.jsonl")      # every run in the file (the last one is what `read` returns)

Errors are `rlvitals.errors.InputError` subclasses with one-sentence messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from ..errors import BinaryInput, EmptyInput, InputError, NoMetrics, NotAFile, UnknownFormat
from ..run import Run
from .base import Format, LineParser, clean_line
from .formats import load as _load
from .sqlite_store import MAGIC as SQLITE_MAGIC

__all__ = [
    "FORMATS",
    "WRITABLE",
    "Format",
    "LineParser",
    "example_path",
    "open_parser",
    "read",
    "read_all",
    "read_text",
    "select_run",
    "sniff_text",
    "write_run",
]

FORMATS: dict[str, Format] = _load()
WRITABLE: tuple[str, ...] = tuple(n for n, f in FORMATS.items() if f.writer is not None)
SNIFF_BYTES = 64 * 1024
SNIFF_MORE = 2 * 1024 * 1024


_LOG_SUFFIXES = (".gz", ".log", ".txt", ".md", ".jsonl", ".json", ".csv", ".tsv", ".out")


def run_name(path: Path) -> str:
    """The run's name from its file: known log suffixes dropped, dots inside kept ("Qwen2.5-0.5B")."""
    name = path.name
    for _ in range(2):
        for suffix in _LOG_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                break
    return name


def example_path() -> Path:
    """The bundled example run: the lesson's healthy 200-step run, in the lesson's format."""
    return Path(__file__).resolve().parent.parent / "data" / "example-healthy.log"


def sniff_text(text: str) -> str | None:
    """The best-matching format name for a chunk of text, or None."""
    cleaned = "\n".join(clean_line(l) for l in text.splitlines())
    best, score = None, 0.0
    for name, fmt in FORMATS.items():
        s = fmt.sniff(cleaned)
        if s > score:
            best, score = name, s
    return best if score >= 0.3 else None


# Short names people type; each maps to a registered format.
ALIASES = {"verl": "verl-console", "tb": "tensorboard", "tsv": "csv", "wandb": "csv", "json": "jsonl"}


def _format(name: str) -> Format:
    try:
        return FORMATS[ALIASES.get(name, name)]
    except KeyError:
        raise InputError(f"unknown format {name!r}; known formats: {', '.join(FORMATS)}") from None


def open_parser(format: str, name: str = "") -> LineParser:
    """An incremental parser for a line-based format (used by `watch`)."""
    fmt = _format(format)
    if fmt.parser is None:
        raise InputError(f"format {format!r} is not line-based; it can only be read whole")
    return fmt.parser(name)


def _head(path: Path, size: int = SNIFF_BYTES) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


def _decode(head: bytes, path: Path) -> str:
    if not head.strip():
        raise EmptyInput(f"{path} is empty")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", errors="replace")
    if b"\x00" in head:
        raise BinaryInput(f"{path} is a binary file, not a training log (formats: {', '.join(FORMATS)})")
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start >= len(head) - 4:         # a multi-byte character cut by the sniff window
            return head[: e.start].decode("utf-8")
        raise InputError(f"{path} is not UTF-8 text (undecodable byte at offset {e.start})") from None


def select_run(run: Run, which: int | None) -> Run:
    """Run `which` (1-based; negative counts from the end) of a file holding several runs.
    `run` is what a reader returned (the last run); None keeps it."""
    if which is None:
        return run
    runs = run.file_runs or [run]
    if which == 0 or not -len(runs) <= which <= len(runs):
        raise InputError(f"run {which} does not exist: {run.name} holds {len(runs)} run"
                         f"{'s' if len(runs) != 1 else ''} (choose 1..{len(runs)}, or -1 for the last)")
    return runs[which - 1 if which > 0 else which]


def read_all(path, format: str | None = None, *, name: str | None = None) -> list[Run]:
    """Every run in a log file, in file order (one element unless the step counter restarted at
    step <= 1: concatenated runs)."""
    run = read(path, format, name=name)
    return list(run.file_runs) or [run]


def read(path, format: str | None = None, *, name: str | None = None, run: int | None = None) -> Run:
    """Read a log file (or a TensorBoard directory) into a Run; the format is sniffed unless given.

    A file holding several runs (the step counter restarted at step <= 1) gives the last one;
    `run=K` picks run K (1-based, negative from the end).  See `Run.file_runs`."""
    return select_run(_read(path, format, name), run)


def _read(path, format: str | None, name: str | None) -> Run:
    path = Path(path)
    name = name or run_name(path)
    if not path.exists():
        raise NotAFile(f"{path} does not exist")
    if path.is_dir():
        fmt = format or ("tensorboard" if "tensorboard" in FORMATS and FORMATS["tensorboard"].sniff(str(path)) else None)
        if fmt is None:
            raise NotAFile(f"{path} is a directory with no TensorBoard event files; give a log file")
        return _finish(_format(fmt).reader(path, name), path)
    if not path.is_file():
        raise NotAFile(f"{path} is not a regular file")
    if format is None:
        head = _head(path)
        if "tensorboard" in FORMATS and FORMATS["tensorboard"].sniff(str(path)):
            format = "tensorboard"
        elif head.startswith(SQLITE_MAGIC):
            format = "rlwatch-sqlite"
        else:
            format = sniff_text(_decode(head, path))
            if format is None and len(head) == SNIFF_BYTES:
                # a long preamble (verl prints its whole config first): look further before giving up
                format = sniff_text(_decode(_head(path, SNIFF_MORE), path))
            if format is None:
                raise UnknownFormat(f"{path}: no supported log format recognised "
                                    f"(tried: {', '.join(FORMATS)}); use --input-format to choose one")
    fmt = _format(format)
    if fmt.reader is not None:
        run = fmt.reader(path, name)
    else:
        run = _read_lines(fmt.parser(name), path)
    return _finish(run, path)


def _read_lines(parser: LineParser, path: Path) -> Run:
    """Feed a file line by line (streamed: memory stays bounded); a last line without a newline
    goes through `feed_last`, which counts it as truncated when it is cut short."""
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        prev = None
        for line in f:
            if prev is not None:
                parser.feed(prev)
            prev = line
        if prev is not None:
            if prev.endswith(("\n", "\r")):
                parser.feed(prev)
            else:
                parser.feed_last(prev)
    return parser.finish()


def read_text(text: str, format: str | None = None, name: str = "text", run: int | None = None) -> Run:
    """Read a log held in a string (tests, pasted logs); `run` as in `read`."""
    return select_run(_read_text(text, format, name), run)


def _read_text(text: str, format: str | None, name: str) -> Run:
    format = format or sniff_text(text)
    if format is None:
        raise UnknownFormat(f"no supported log format recognised (tried: {', '.join(FORMATS)})")
    fmt = _format(format)
    if fmt.parser is None:                # a whole-document format (trainer_state.json): via a file
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8")
            return fmt.reader(path, name)
    parser = fmt.parser(name)
    for line in text.splitlines(keepends=True):
        parser.feed(line)
    return parser.finish()


def _finish(run: Run, path: Path) -> Run:
    if not run.series and not run.extras:
        raise NoMetrics(f"{path}: read as {run.format}, but not one metric value was found")
    return run


def write_run(run: Run, format: str, dest: str | Path | TextIO) -> None:
    """Write `run` in a text format (round-trip tests, the simulator)."""
    fmt = _format(format)
    if fmt.writer is None:
        raise InputError(f"format {format!r} has no writer; writable: {', '.join(WRITABLE)}")
    if hasattr(dest, "write"):
        fmt.writer(run, dest)
        return
    with open(dest, "w", encoding="utf-8", newline="\n") as f:
        fmt.writer(run, f)
