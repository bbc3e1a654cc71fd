"""Read any supported training log into a `Run`: sniff the format, parse, map keys to canonical names.

    from rlvitals.ingest import read
    run = read("train.log")            # format sniffed; run.format says which
    run = read("train.log", format="verl-console")
    run = read("runs.jsonl", run=2)    # a file holding several runs (the step restarted at 1): the 2nd
    runs = read_all("runs.jsonl")      # every run in the file (the last one is what `read` returns)

Errors are `rlvitals.errors.InputError` subclasses with one-sentence messages.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from ..errors import InputError, NoMetrics, NotAFile, UnknownFormat
from ..i18n import Msg
from ..run import Run
from .base import Format, LineParser, clean_line
from .formats import load as _load
from .mapping import MappedParser, apply_mapping, guess_names, key_notes, require_vitals
from .mlflow_store import is_mlflow_db, mlflow_runs
from .parquet import MAGIC as PARQUET_MAGIC
from .parquet import is_run_dir
from .progress import reading, tick
from .source import open_input
from .sqlite_store import MAGIC as SQLITE_MAGIC
from .swanlab_store import MAGIC as SWANLAB_MAGIC
from .swanlab_store import swanlab_files
from .tb_format import is_tensorboard
from .tbexport import tb_exports
from .wandb_store import MAGIC as WANDB_MAGIC
from .wandb_store import wandb_files

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
    "sniff_file",
    "sniff_text",
    "write_run",
]

FORMATS: dict[str, Format] = _load()
WRITABLE: tuple[str, ...] = tuple(n for n, f in FORMATS.items() if f.writer is not None)
SNIFF_BYTES = 64 * 1024
SNIFF_MORE = 2 * 1024 * 1024


_LOG_SUFFIXES = (
    ".gz",
    ".bz2",
    ".xz",
    ".zst",
    ".log",
    ".txt",
    ".md",
    ".jsonl",
    ".json",
    ".csv",
    ".tsv",
    ".out",
    ".ipynb",
)


def run_name(path: Path) -> str:
    """The run's name from its file: known log suffixes dropped, dots inside kept ("Qwen2.5-0.5B")."""
    name = path.name
    for _ in range(3):
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
ALIASES = {
    "verl": "verl-console",
    "tb": "tensorboard",
    "tsv": "csv",
    "wandb-csv": "csv",
    "json": "jsonl",
    "w&b": "wandb",
}


def _format(name: str) -> Format:
    try:
        return FORMATS[ALIASES.get(name, name)]
    except KeyError:
        raise InputError.of("ingest.err.format_name", name=name, known=", ".join(FORMATS)) from None


def open_parser(format: str, name: str = "", mapping: Mapping[str, str] | None = None) -> LineParser:
    """An incremental parser for a line-based format (used by `watch`); with `mapping`, its
    snapshots read the user's keys as the canonical metrics they name."""
    fmt = _format(format)
    if fmt.parser is None:
        raise InputError.of("ingest.err.not_lines", name=format)
    # plain names read as the vitals they are (as `read` does), the user's keys over them
    return MappedParser(fmt.parser(name), mapping or {})  # type: ignore[return-value]


def _head(path: Path, size: int = SNIFF_BYTES) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


def sniff_file(path: Path, label: object = "") -> str:
    """The format of a UTF-8 text file (as `open_input` leaves it); UnknownFormat when none fits."""
    head = _head(path)
    format = sniff_text(head.decode("utf-8", errors="replace"))
    if format in (None, "generic") and len(head) == SNIFF_BYTES:
        # a long preamble (verl prints its whole config first): look further before giving up, or
        # before settling for the generic fallback
        format = sniff_text(_head(path, SNIFF_MORE).decode("utf-8", errors="replace")) or format
    if format is None:
        raise UnknownFormat.of("ingest.err.unknown", path=label or path, formats=", ".join(FORMATS))
    return format


def select_run(run: Run, which: int | None) -> Run:
    """Run `which` (1-based; negative counts from the end) of a file holding several runs.
    `run` is what a reader returned (the last run); None keeps it."""
    if which is None:
        return run
    runs = run.file_runs or [run]
    if which == 0 or not -len(runs) <= which <= len(runs):
        raise InputError.of("ingest.err.no_run", which=which, name=run.name, n=len(runs))
    return runs[which - 1 if which > 0 else which]


def read_all(
    path: str | Path, format: str | None = None, *, name: str | None = None, mapping: Mapping[str, str] | None = None
) -> list[Run]:
    """Every run in a log file, in file order (one element unless the step counter restarted at
    step <= 1: concatenated runs; or an rlwatch database holding several run ids)."""
    last = read(path, format, name=name)
    runs = list(last.file_runs) or [last]
    return [apply_mapping(r, mapping) for r in runs] if mapping else runs


def read(
    path: str | Path,
    format: str | None = None,
    *,
    name: str | None = None,
    mapping: Mapping[str, str] | None = None,
    run: int | None = None,
) -> Run:
    """Read a log file (or a TensorBoard directory; `-` is stdin) into a Run; the format is sniffed
    unless given.  Compressed, UTF-16 and BOM-prefixed files are opened transparently (see source.py).

    mapping: canonical name -> the log's key ({"reward": "Average Reward"}); overrides the alias table.
    run: a file holding several runs (the step counter restarted at step <= 1) gives the last one;
    `run=K` picks run K (1-based, negative from the end).  See `Run.file_runs`.
    Raises NoVitals when numbers were read but none of them is a vital (the message lists the keys)."""
    stdin = str(path) == "-"
    path = Path(path)
    if not stdin:
        if not path.exists():
            raise NotAFile.of("ingest.err.missing", path=path)
        if path.is_dir():
            fmt = format or (
                "tensorboard"
                if is_tensorboard(path)
                else "parquet"
                if is_run_dir(path)
                else "wandb"
                if wandb_files(path)
                else "mlflow"
                if mlflow_runs(path) or is_mlflow_db(path / "mlflow.db")
                else "swanlab"
                if swanlab_files(path)
                else "tensorboard-export"
                if tb_exports(path)
                else None
            )
            if fmt is None:
                raise NotAFile.of("ingest.err.dir", path=path)
            return _finish(select_run(_read_with(_format(fmt), path, name or run_name(path)), run), path, mapping)
        if not path.is_file():
            raise NotAFile.of("ingest.err.not_regular", path=path)
        if ALIASES.get(format or "", format) == "tensorboard" or (format is None and is_tensorboard(path)):
            return _finish(
                select_run(_read_with(FORMATS["tensorboard"], path, name or run_name(path)), run), path, mapping
            )
        magic = _head(path, 16) if format is None else b""
        binary = (
            "mlflow"
            if magic.startswith(SQLITE_MAGIC) and is_mlflow_db(path)
            else "rlwatch-sqlite"
            if magic.startswith(SQLITE_MAGIC)
            else "parquet"
            if magic.startswith(PARQUET_MAGIC)
            else "wandb"
            if magic.startswith(WANDB_MAGIC)
            else "swanlab"
            if magic.startswith(SWANLAB_MAGIC)
            else ALIASES.get(format or "", format)
        )
        if binary in ("rlwatch-sqlite", "parquet", "wandb", "mlflow", "swanlab"):
            return _finish(select_run(_read_with(FORMATS[binary], path, name or run_name(path)), run), path, mapping)
    with open_input(path) as src:
        name = name or src.name or run_name(path)
        chosen = _format(format or sniff_file(src.path, src.label))
        with reading(src.path, src.label):  # a progress line on a terminal for a long read
            try:
                got = _read_with(chosen, src.path, name)
            except InputError as e:
                # a JSON document not of the shape the sniffer guessed from its head: the other one's
                other = (
                    SHAPE_FALL_BACK.get(chosen.name) if format is None and e.key == "ingest.err.json_shape" else None
                )
                if other is None:
                    raise
                got = _read_with(FORMATS[other], src.path, name)
                got.notes.insert(0, Msg("ingest.note.fallback_from", format=chosen.name, reader=other))
            # the sniffer's pick found nothing -- or, for a JSONL pick, one record: a JSON document
            # written on one line, whose rows its one record holds
            if format is None and chosen.name != "generic":
                if not (got.series or got.extras) or (chosen.name in FALL_BACK and _points(got) <= 1):
                    got = _fall_back(chosen, src.path, name, got)
        for each in got.file_runs or [got]:
            src.annotate(each)  # what opening did holds for every run of the file
    return _finish(select_run(got, run), src.label, mapping)


# where a sniffed format that found nothing sends the file next: a JSONL file whose one record holds
# the rows in a list (or the steps' values in lists) is a JSON document; anything else, a hand-rolled
# log that only looks like a framework's
FALL_BACK = {"jsonl": ("trl-state", "json-columns", "generic")}
# a JSON document whose head looked like per-step lists but holds log dicts (in a section of its own,
# past the sniffed head), or the other way round
SHAPE_FALL_BACK = {"json-columns": "trl-state", "trl-state": "json-columns"}


def _fall_back(chosen: Format, path: Path, name: str, got: Run) -> Run:
    """The sniffer's pick found nothing (or one record): the next reader that finds more steps
    (FALL_BACK, then generic), with a note saying which reader was tried first; `got` when none does."""
    found = bool(got.series or got.extras)
    for other in FALL_BACK.get(chosen.name, ("generic",)):
        if other not in FORMATS or (found and other == "generic"):
            continue  # (a JSONL record read is never second to the fallback for "name: number" text)
        try:
            run = _read_with(FORMATS[other], path, name)
        except InputError:
            continue  # not that shape either
        if (run.series or run.extras) and _points(run) > _points(got):
            run.notes.insert(0, Msg("ingest.note.fallback_from", format=chosen.name, reader=other))
            return run
    return got


def _points(run: Run) -> int:
    """The most points any one of the run's metrics (a vital or not) holds."""
    return max((len(s) for s in (*run.series.values(), *run.extras.values())), default=0)


def _read_with(fmt: Format, path: Path, name: str) -> Run:
    if fmt.reader is not None:
        return fmt.reader(path, name)
    if fmt.parser is not None:
        return _read_lines(fmt.parser(name), path)
    raise InputError.of("ingest.err.write_only", name=fmt.name)


def _read_lines(parser: LineParser, path: Path) -> Run:
    """Feed a file line by line (streamed: memory stays bounded); a last line without a newline
    goes through `feed_last`, which counts it as truncated when it is cut short."""
    with open(path, "rb") as raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="") as f:
        prev = None
        for i, line in enumerate(f):
            if prev is not None:
                parser.feed(prev)
            prev = line
            if not i & 0x3FFF:  # every 16,384 lines: where the buffer has read to
                tick(raw.tell())
        if prev is not None:
            if prev.endswith(("\n", "\r")):
                parser.feed(prev)
            else:
                parser.feed_last(prev)
    return parser.finish()


def read_text(text: str, format: str | None = None, name: str = "text", run: int | None = None) -> Run:
    """Read a log held in a string (tests, pasted logs); `run` as in `read`.  Plain names are read as
    the vitals they are (`mapping.guess_names`), as `read` does."""
    return guess_names(select_run(_read_text(text, format, name), run))


def _read_text(text: str, format: str | None, name: str) -> Run:
    format = format or sniff_text(text)
    if format is None:
        raise UnknownFormat.of("ingest.err.unknown", path="text", formats=", ".join(FORMATS))
    fmt = _format(format)
    if fmt.parser is None:  # a whole-document format (trainer_state.json): via a file
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8")
            return _read_with(fmt, path, name)
    parser = fmt.parser(name)
    for line in text.splitlines(keepends=True):
        parser.feed(line)
    return parser.finish()


def _finish(run: Run, label: object, mapping: Mapping[str, str] | None = None) -> Run:
    if not run.series and not run.extras:
        raise NoMetrics.of("ingest.err.no_metrics", path=label, format=run.format)
    run = guess_names(run)  # plain names ("policy_entropy_mean") read as the vitals they are
    if mapping:
        run = apply_mapping(run, mapping)
    require_vitals(run, label)
    return key_notes(run)


def write_run(run: Run, format: str, dest: str | Path | TextIO) -> None:
    """Write `run` in a text format (round-trip tests, the simulator)."""
    fmt = _format(format)
    if fmt.writer is None:
        raise InputError.of("ingest.err.no_writer", name=format, writable=", ".join(WRITABLE))
    if not isinstance(dest, (str, Path)):
        fmt.writer(run, dest)
        return
    with open(dest, "w", encoding="utf-8", newline="\n") as f:
        fmt.writer(run, f)
