"""SwanLab runs: `run-<id>.swanlab`, the same record log as W&B's (`wandb_store.Decoder`), read
without swanlab.

The header is `:SWL`, magic 0xE1D6, then the 32 KiB blocks of CRC-32 chunks of a `.wandb` file.
Each record is a `swanlab.record.v1.Record`; a scalar is one record of its own:

    Record        scalar=13 (ScalarRecord)
    ScalarRecord  key=1, step=2 (int64), value=5 (ScalarValue: number=1, a double)

Scalars of one step arrive together: a row is one step's scalars (a key seen again starts a new
row).  Media, columns and console lines are not metrics.  A corrupt chunk is skipped and counted,
an unfinished record at the end (a live run) is left out and said, as for W&B.

The config is the run folder's `files/config.yaml` (scalars), its context read as from a W&B
config.  A path may be the file, its run folder, or a folder holding run folders (SwanLab's `swanlog/`);
several runs are the folder's runs, in name order (the name starts with the time), `--run K`.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import NotAFile
from ..i18n import Msg
from ..run import Run
from .base import Format
from .builder import RunBuilder, link_runs
from .tfrecord import iter_fields, read_varint, skip_field
from .wandb_runs import context
from .wandb_store import READ_SIZE, Decoder, WandbRowParser, read_rows

__all__ = ["FORMAT", "MAGIC", "SwanlabRowParser", "read_swanlab", "scalar_record", "swanlab_files"]

MAGIC = b":SWL\xd6\xe1"
_DOUBLE = __import__("struct").Struct("<d").unpack_from


def is_swanlab(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def swanlab_files(path: Path) -> list[Path]:
    """The `.swanlab` files a path names, in run order; empty when there is none."""
    path = Path(path)
    if path.is_file():
        return [path] if is_swanlab(path) else []
    if not path.is_dir():
        return []
    for pattern in ("run-*.swanlab", "*/run-*.swanlab", "swanlog/*/run-*.swanlab"):
        found = sorted(
            (f for f in path.glob(pattern) if f.is_file() and not f.parent.is_symlink()),
            key=lambda f: (f.parent.name, f.name),
        )
        if found:
            return found
    return []


def scalar_record(buf: bytes) -> tuple[str, int, float] | None:
    """(key, step, value) of a Record holding a scalar, else None."""
    pos, n = 0, len(buf)
    while pos < n:
        tag, pos = read_varint(buf, pos)
        if tag & 7 != 2:
            pos = skip_field(buf, pos, tag & 7)
            continue
        size, pos = read_varint(buf, pos)
        if tag >> 3 != 13:
            pos += size
            continue
        key, step, value = "", 0, None
        for f, wt, a, b in iter_fields(buf, pos, pos + size):
            if f == 1 and wt == 2:
                key = buf[a:b].decode("utf-8", "replace")
            elif f == 2 and wt == 0:
                step = a - (1 << 64) if a >= 1 << 63 else a
            elif f == 5 and wt == 2:
                value = next(
                    (_DOUBLE(buf, va)[0] for vf, vwt, va, _ in iter_fields(buf, a, b) if vf == 1 and vwt == 1), 0.0
                )
        return (key, step, value) if value is not None else None
    return None


def read_one(path: Path, name: str) -> Run:
    b = RunBuilder(name, "swanlab")
    b.split_runs = False
    dec = Decoder(MAGIC)
    row: dict[str, float] = {}
    cur: int | None = None
    rows = 0
    try:
        with open(path, "rb") as f:
            while chunk := f.read(READ_SIZE):
                for rec in dec.feed(chunk):
                    try:
                        got = scalar_record(rec)
                    except (ValueError, IndexError):
                        b.skip("malformed SwanLab record")
                        continue
                    if got is None:
                        continue
                    key, step, value = got
                    if step != cur or key in row:
                        if row and cur is not None:
                            rows += 1
                            b.add_row(cur, row, rows)
                        row, cur = {}, step
                    row[key] = value
    except OSError as e:
        raise NotAFile(f"{path}: cannot be read ({e.strerror or e}).") from None
    except ValueError:
        raise NotAFile(f"{path}: not a SwanLab run file (no `:SWL` header).") from None
    if row and cur is not None:
        b.add_row(cur, row, rows + 1)
    if dec.corrupt:
        b.skip("corrupt SwanLab chunk (bad checksum)", dec.corrupt)
        b.note(Msg("ingest.note.wandb_corrupt", n=dec.corrupt, kind="SwanLab"))
    if dec.pending:
        b.skip("unfinished SwanLab record at the end", 1)
        b.note(Msg("ingest.note.wandb_cut", n=dec.pending, kind="SwanLab"))
    b.meta["swanlab"] = {"file": str(path)}
    return b.build()


def _config(run_dir: Path) -> dict[str, object]:
    """`files/config.yaml` as swanlab writes it (`key:` then an indented `value: …`), without a YAML
    library: scalars only (a nested value is left out)."""
    out: dict[str, object] = {}
    try:
        text = (run_dir / "files" / "config.yaml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    key = None
    for line in text.splitlines()[:5000]:
        if line and not line[0].isspace() and line.rstrip().endswith(":"):
            key = line.rstrip()[:-1].strip().strip("'\"")
        elif key is not None and line.startswith("  value: "):
            raw = line[len("  value: ") :].strip().strip("'\"")
            try:
                out[key] = float(raw)
            except ValueError:
                out[key] = raw
            key = None
    return out


def read_swanlab(path: Path, name: str) -> Run:
    files = swanlab_files(path)
    if not files and Path(path).is_file() and not is_swanlab(Path(path)):
        return read_rows(Path(path), name, SwanlabRowParser)  # -F swanlab on text: watch's rows
    if not files:
        raise NotAFile.of("ingest.err.swanlab_none", path=path)
    runs = []
    for f in files:
        run = read_one(f, f.stem if Path(path).is_file() else f.parent.name)
        cfg = _config(f.parent)
        if cfg:
            run.meta["config"] = cfg
            ctx = context(cfg)
            if ctx:
                run.meta["context"] = ctx
        runs.append(run)
    return link_runs(runs, Msg("ingest.note.folder_holds", n=len(runs), kind="SwanLab"), lambda r: r.name)


class SwanlabRowParser(WandbRowParser):
    """`watch`'s view of a SwanLab run: the JSON rows `watch.wandb_follow.SwanlabFollower` makes."""

    format_name = "swanlab"


FORMAT = Format(
    "swanlab",
    "SwanLab runs, read without swanlab: run-<id>.swanlab, its run folder or swanlog/ "
    "(--run K), e.g. `rlvitals diagnose swanlog/`",
    lambda text: 0.0,
    reader=read_swanlab,
    parser=SwanlabRowParser,
)
