"""W&B offline runs: `run-<id>.wandb`, read without the `wandb` package.

A `.wandb` file is W&B's own record log.  After a 7-byte header (`:W&B`, magic 0xBEE1, version 0)
it is cut into 32 KiB blocks of chunks, LevelDB-log style:

    uint32 crc | uint16 length | uint8 type (1 full, 2 first, 3 middle, 4 last) | data[length]

The crc is zlib's CRC-32 of the type byte and the data.  A chunk never crosses a block; fewer than 7
bytes left in a block are zero padding.  A record (FIRST, MIDDLE…, LAST joined) is one protobuf
`Record`; we decode only the fields a run's metrics need (field numbers from W&B's own .proto):

    Record         history=2, summary=3, config=5, run=17 (RunRecord: run_id=1, project=3,
                   config=4, display_name=8, telemetry=19 { cli_version=5 })
    HistoryRecord  item=1 (repeated), step=2 { num=1 }
    HistoryItem / SummaryItem / ConfigItem   key=1, nested_key=2 (repeated), value_json=16

W&B up to 0.17 writes `key` and a nested dict as one JSON object; later versions write the path
in `nested_key` and a `step`.  Both are read; nested keys join with "/" (as the JSONL reader
flattens).  `_step` is the step; other `_`-keys (`_runtime`, `_timestamp`) are W&B's own.
Strings, booleans and media objects (a dict with `_type`: histograms, tables) are not metrics:
counted as dropped values.  A chunk whose checksum fails is skipped with the rest of its block
and counted; an unfinished record at the end (a live run) is left for later and its size said.

`wandb_files` finds the runs of a folder: a run folder, or a `wandb/` folder holding several
(`offline-run-*`, `run-*`, in the order they started); each is one of the file's runs (`--run K`).
"""

from __future__ import annotations

import struct
import zlib
from collections import deque
from pathlib import Path

from ..errors import NotAFile
from ..i18n import Msg
from ..run import Run
from .base import Format
from .builder import RunBuilder, link_runs
from .jsonl import JsonlParser
from .progress import tick
from .values import OUT_OF_RANGE
from .wandb_records import history_items, history_row, json_value, number_value, proto_fields, top_record
from .wandb_runs import MAGIC, context, is_wandb, wandb_files

__all__ = ["FORMAT", "MAGIC", "Decoder", "context", "is_wandb", "read_wandb", "wandb_files"]

HEADER = 7
BLOCK = 32768
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
_SEED = [zlib.crc32(bytes([t])) for t in range(5)]
_CHUNK = struct.Struct("<IHB").unpack_from
READ_SIZE = 128 * BLOCK  # read 4 MiB at a time: memory stays bounded on a huge run
SUMMARY_KEPT = 64  # summary records applied (W&B >= 0.2x writes one per log call)
CONFIG_KEYS = 200  # config entries kept on the run


class Decoder:
    """Incremental reader of the record log: `feed(data)` with the file's bytes in order (from
    byte 0), get back the complete records (protobuf payloads) found so far.  What is left
    unfinished waits for the next feed; `pending` says how many bytes that is."""

    def __init__(self, magic: bytes = MAGIC) -> None:
        self.magic = magic  # the header's first 6 bytes (SwanLab writes the same log with its own)
        self.buf = b""
        self.at = 0  # file offset of buf[0]
        self.parts: list[bytes] = []  # a FIRST (and MIDDLEs) waiting for their LAST
        self.corrupt = 0  # chunks skipped: bad checksum, type or length
        self.header = False
        self._resume = 0  # after a bad chunk: the offset of the next block
        self._resync = False  # … where the tail of a record it cut is no new damage

    @property
    def pending(self) -> int:
        return len(self.buf) + sum(map(len, self.parts))

    def feed(self, data: bytes) -> list[bytes]:
        buf = self.buf + data if self.buf else data
        at, pos, n = self.at, 0, len(buf)
        out: list[bytes] = []
        if self._resume > at:
            pos = min(self._resume - at, n)
        if not self.header:
            if n < HEADER:
                self.buf = buf
                return out
            if buf[:6] != self.magic:
                raise ValueError("not a record log of this kind")
            self.header, pos = True, HEADER
        parts, seed, unpack, crc32 = self.parts, _SEED, _CHUNK, zlib.crc32
        while True:
            left = BLOCK - (at + pos) % BLOCK
            if left < HEADER:  # block trailer: zero padding
                if pos + left > n:
                    break
                pos += left
                continue
            if pos + HEADER > n:
                break
            crc, length, kind = unpack(buf, pos)
            end = pos + HEADER + length
            if HEADER + length > left or not 1 <= kind <= 4:
                bad = True  # a length or type no writer produces
            elif end > n:
                break  # the chunk is still being written
            else:
                bad = crc32(buf[pos + HEADER : end], seed[kind]) != crc
            if bad:  # skip the rest of the block: its lengths are suspect
                self.corrupt += 1
                parts.clear()
                self._resume = at + pos + left
                self._resync = True
                pos = min(pos + left, n)
                continue
            payload = buf[pos + HEADER : end]
            pos = end
            resync = self._resync
            self._resync = resync and kind == MIDDLE
            if kind == FULL:
                if parts:
                    self.corrupt += 1  # a record whose LAST never came
                    parts.clear()
                out.append(payload)
            elif kind == FIRST:
                if parts:
                    self.corrupt += 1
                parts[:] = [payload]
            elif parts:
                parts.append(payload)
                if kind == LAST:
                    out.append(b"".join(parts))
                    parts.clear()
            elif not resync:
                self.corrupt += 1  # a MIDDLE or LAST without its FIRST
        self.buf, self.at = buf[pos:], at + pos
        return out


class RecordReader:
    """Records -> a RunBuilder's rows, plus the run's config, summary and identity."""

    def __init__(self, name: str) -> None:
        self.b = RunBuilder(name, "wandb")
        self.b.split_runs = False  # one run per file; a resumed run's steps go on
        self.config: dict[str, object] = {}
        self.summary: deque[tuple[bytes, int, int]] = deque(maxlen=SUMMARY_KEPT)
        self.info: dict[str, str] = {}
        self.records = self.history = self.no_step = 0
        self._row_no = -1

    def feed(self, records: list[bytes]) -> int:
        """Rows added from these records."""
        before = self.b.rows
        for payload in records:
            self.records += 1
            try:
                field, a, z = top_record(payload)
                if field == 2:
                    self._history(payload, a, z)
                elif field == 3:
                    self.summary.append((payload, a, z))
                elif field == 5:
                    self._config(payload, a, z)
                elif field == 17:
                    self._run(payload, a, z)
            except (IndexError, ValueError):
                self.b.skip("malformed W&B record")
        return self.b.rows - before

    def _history(self, buf: bytes, pos: int, end: int) -> None:
        self.history += 1
        step, row, dropped = history_row(buf, pos, end)
        self._row_no += 1
        if step is None:
            step = self._row_no
            self.no_step += 1
        self.b.add_parsed(step, row, self.history, dropped=dropped, empty_reason="W&B history row without metrics")

    def _config(self, buf: bytes, pos: int, end: int) -> None:
        for key, value in history_items(buf, pos, end):
            if key.startswith("_wandb") or (len(self.config) >= CONFIG_KEYS and key not in self.config):
                continue
            self.config[key] = json_value(value)

    def _run(self, buf: bytes, pos: int, end: int) -> None:
        f = proto_fields(buf, pos, end)
        for num, name in ((1, "run_id"), (3, "project"), (8, "display_name")):
            if num in f:
                self.info[name] = buf[f[num][0] : f[num][1]].decode("utf-8", "replace")
        if 4 in f:
            self._config(buf, *f[4])
        if 19 in f:  # telemetry { cli_version=5 }
            tel = proto_fields(buf, *f[19])
            if 5 in tel:
                self.info["wandb_version"] = buf[tel[5][0] : tel[5][1]].decode("utf-8", "replace")

    def finish(self, cut: int, corrupt: int) -> Run:
        b = self.b
        summary: dict[str, float] = {}
        for buf, a, z in self.summary:
            for key, value in history_items(buf, a, z):
                v = number_value(value)
                if key[:1] != "_" and v is not None and v is not OUT_OF_RANGE:
                    summary[key] = v
        if corrupt:
            b.skip("corrupt W&B chunk (bad checksum)", corrupt)
            b.note(Msg("ingest.note.wandb_corrupt", n=corrupt, kind="W&B"))
        if cut:
            b.skip("unfinished W&B record at the end", 1)
            b.note(Msg("ingest.note.wandb_cut", n=cut, kind="W&B"))
        if self.no_step:
            b.meta["step_inferred"] = True
        b.meta["wandb"] = dict(self.info, records=self.records, history=self.history)
        if self.config:
            b.meta["config"] = self.config
        if summary:
            b.meta["summary"] = dict(list(summary.items())[:CONFIG_KEYS])
        ctx = context(self.config)
        if ctx:
            b.meta["context"] = ctx
        return b.build()


def read_one(path: Path, name: str) -> Run:
    """One `.wandb` file, read a batch of blocks at a time (memory stays bounded) by the bulk
    decoder (wandb_fast.py), up to its last whole record."""
    from .wandb_fast import BulkDecoder

    reader = RecordReader(name)
    bulk = BulkDecoder(reader)
    try:
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                raise NotAFile(f"{path}: not a W&B run file (no `:W&B` header).")
            f.seek(0)
            while chunk := f.read(READ_SIZE):
                bulk.feed(chunk)
                tick(f.tell())
    except OSError as e:
        raise NotAFile(f"{path}: cannot be read ({e.strerror or e}).") from None
    return reader.finish(bulk.cut + sum(map(len, bulk.parts)), bulk.corrupt)


def read_slow(path: Path, name: str) -> Run:
    """The same with the incremental Python decoder (what `watch` uses; tests compare the two)."""
    dec, reader = Decoder(), RecordReader(name)
    with open(path, "rb") as f:
        while chunk := f.read(READ_SIZE):
            reader.feed(dec.feed(chunk))
    return reader.finish(dec.pending, dec.corrupt)


def read_wandb(path: Path, name: str) -> Run:
    """A `.wandb` file, a run folder, or a `wandb/` folder of runs: the last run started, the
    others in `file_runs` (`--run K`)."""
    files = wandb_files(path)
    if not files and Path(path).is_file() and not is_wandb(Path(path)):
        return read_rows(Path(path), name)  # -F wandb on text: the rows `watch` makes of a run
    if not files:
        raise NotAFile.of("ingest.err.wandb_none", path=path)
    runs = []
    for f in files:
        # a run's own name: its folder (offline-run-<time>-<id>), not "wandb" or "latest-run"
        run = read_one(f, f.stem if Path(path).is_file() else f.resolve().parent.name)
        run.meta["wandb"]["file"] = str(f)
        runs.append(run)
    return link_runs(
        runs,
        Msg("ingest.note.folder_holds", n=len(runs), kind="W&B"),
        lambda r: r.meta["wandb"].get("run_id") or r.name,
    )


class WandbRowParser(JsonlParser):
    """`watch`'s view of a W&B run: the JSON rows `watch.wandb_follow.WandbFollower` makes of its
    history records, and a `{"_config": {…}}` line kept as the run's config and context."""

    format_name = "wandb"

    def parse(self, line: str, lineno: int) -> None:
        if line.startswith('{"_config": '):
            cfg = json_value(line.encode())
            cfg = cfg.get("_config") if isinstance(cfg, dict) else None
            if isinstance(cfg, dict):
                self.builder.meta["config"] = cfg
                ctx = context(cfg)
                if ctx:
                    self.builder.meta["context"] = ctx
            return
        super().parse(line, lineno)


def read_rows(path: Path, name: str, kind: type[WandbRowParser] | None = None) -> Run:
    parser = (kind or WandbRowParser)(name)
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        for line in f:
            if line.endswith(("\n", "\r")):
                parser.feed(line)
            else:
                parser.feed_last(line)
    return parser.finish()


def sniff_path(path: Path) -> float:
    return 1.0 if wandb_files(path) else 0.0


FORMAT = Format(
    "wandb",
    "W&B offline runs, read without wandb: a run folder, its run-<id>.wandb, or a wandb/ "
    "folder of runs (--run K), e.g. `rlvitals diagnose wandb/latest-run`",
    lambda text: 0.0,
    reader=read_wandb,
    parser=WandbRowParser,
)
