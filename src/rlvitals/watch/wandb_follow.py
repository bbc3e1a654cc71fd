"""Follow a W&B run while it trains: `rlvitals watch wandb/latest-run` (or the `.wandb` file, or a
`wandb/` folder: its newest run); a SwanLab run (`swanlog/`) the same way (`SwanlabFollower`).

`WandbFollower` has `Follower`'s interface (`poll()` → lines and events, `flush`, `close`,
`more_pending`), so `watch_file` drives it unchanged.  It reads the bytes the trainer appended
since the last poll into the incremental record decoder (`ingest.wandb_store.Decoder`): a record
still being written waits for its last chunk.  Each history record becomes one JSON line
`{"_step": N, "key": value, …}` (NaN as NaN) and the run's config one `{"_config": {…}}` line;
`ingest.wandb_store.WandbRowParser` (the `wandb` format's line parser) reads them back, so the Watcher sniffs and
parses nothing W&B-specific.

Events: `waiting` / `appeared` as for a text log; the file shrinking is `truncated` (read again
from byte 0 as a new run); a newer run appearing in a `wandb/` folder is `wandb_run` (followed
from its start as a new run).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import BinaryIO

from ..ingest.swanlab_store import MAGIC as SWANLAB_MAGIC
from ..ingest.swanlab_store import scalar_record, swanlab_files
from ..ingest.values import OUT_OF_RANGE
from ..ingest.wandb_records import history_row, record_kind
from ..ingest.wandb_store import Decoder, RecordReader, wandb_files
from .follow import FollowEvent
from .handle import CHUNK

__all__ = ["SwanlabFollower", "WandbFollower", "is_wandb_target", "record_follower"]


def is_wandb_target(path: Path) -> bool:
    """True when `path` is a `.wandb` file, a W&B run folder or a `wandb/` folder of runs."""
    return bool(wandb_files(path))


class WandbFollower:
    """Poll-based follower of the newest `.wandb` file under `path` (or `path` itself)."""

    def __init__(self, path: Path, from_start: bool = True, chunk: int = CHUNK, **_: object) -> None:
        self.path = Path(path)
        self.from_start = from_start
        self.chunk = chunk
        self.more_pending = False
        self.lines_read = self.bytes_read = 0
        self._file: Path | None = None
        self._fh: BinaryIO | None = None
        self._pos = 0
        self._said_wait = False
        self._first = True
        self._reset()

    def _reset(self) -> None:
        self._dec = Decoder()
        self._cfg = RecordReader("")
        self._said_cfg: dict[str, object] = {}

    def _target(self) -> Path | None:
        files = wandb_files(self.path)
        return files[-1] if files else None

    def poll(self) -> tuple[list[str], list[FollowEvent]]:
        events: list[FollowEvent] = []
        self.more_pending = False
        first, self._first = self._first, False
        target = self._target()
        if target is None:
            if not self._said_wait:
                events.append(FollowEvent("waiting"))
                self._said_wait = True
            return [], events
        if target != self._file:
            if self._file is not None:
                events.append(FollowEvent("wandb_run", detail=str(target)))
            elif self._said_wait:
                events.append(FollowEvent("appeared"))
            self.close()
            self._file, self._pos = target, 0
            self._reset()
            if first and not self.from_start:
                self._skip_to_end(target)
        try:
            size = os.path.getsize(target)
            if size < self._pos:
                events.append(FollowEvent("truncated", old=self._pos, new=size))
                self._pos = 0
                self._reset()
            fh = self._fh
            if fh is None:
                fh = self._fh = open(target, "rb")
            fh.seek(self._pos)
            data = fh.read(self.chunk)
        except OSError as e:
            events.append(FollowEvent("unreadable", detail=e.strerror or type(e).__name__))
            return [], events
        self._pos += len(data)
        self.bytes_read += len(data)
        self.more_pending = len(data) == self.chunk
        try:
            records = self._dec.feed(data)
        except ValueError:  # not (yet) a W&B header: wait for it
            self._pos = 0
            self._reset()
            return [], events
        lines = self._lines(records)
        self.lines_read += len(lines)
        return lines, events

    def _skip_to_end(self, target: Path) -> None:
        """--tail: decode what is there (config, framing state) but emit no history from it."""
        with open(target, "rb") as fh:
            while data := fh.read(self.chunk):
                self._pos += len(data)
                for rec in self._dec.feed(data):
                    kind, a, z = record_kind(rec)
                    if kind in ("config", "run"):
                        self._cfg.feed([rec])

    def _lines(self, records: list[bytes]) -> list[str]:
        out: list[str] = []
        for rec in records:
            try:
                kind, a, z = record_kind(rec)
                if kind == "history":
                    step, row, _ = history_row(rec, a, z)
                    clean = {k: v for k, v in row.items() if v is not OUT_OF_RANGE}
                    if clean:
                        out.append(json.dumps({"_step": step, **clean} if step is not None else clean))
                elif kind in ("config", "run"):
                    self._cfg.feed([rec])
                    if self._cfg.config != self._said_cfg:
                        self._said_cfg = dict(self._cfg.config)
                        out.append(json.dumps({"_config": self._said_cfg}, default=str))
            except (ValueError, IndexError):
                continue  # a record that does not parse: never fatal here
        return out

    def flush(self) -> list[str]:
        return []  # an unfinished record is no row

    def close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:
                pass
            self._fh = None

    def __del__(self) -> None:
        self.close()


class SwanlabFollower(WandbFollower):
    """The same for SwanLab's `run-<id>.swanlab` (W&B's record log, SwanLab's header): each scalar
    record becomes a row `{"_step": N, "key": value}` (rows of one step merge in the builder)."""

    def _reset(self) -> None:
        super()._reset()
        self._dec = Decoder(SWANLAB_MAGIC)

    def _target(self) -> Path | None:
        files = swanlab_files(self.path)
        return files[-1] if files else None

    def _skip_to_end(self, target: Path) -> None:
        with open(target, "rb") as fh:
            while data := fh.read(self.chunk):
                self._pos += len(data)
                self._dec.feed(data)

    def _lines(self, records: list[bytes]) -> list[str]:
        out: list[str] = []
        for rec in records:
            try:
                got = scalar_record(rec)
            except (ValueError, IndexError):
                continue
            if got is not None:
                key, step, value = got
                out.append(json.dumps({"_step": step, key: value}))
        return out


def record_follower(path: Path, fmt: str | None) -> tuple[str, type[WandbFollower]] | None:
    """(format, follower class) when `path` is a run of a record log (W&B, SwanLab) or `fmt` names
    one; None for a text log."""
    if fmt in ("wandb", "w&b") or (fmt is None and is_wandb_target(path)):
        return "wandb", WandbFollower
    if fmt == "swanlab" or (fmt is None and bool(swanlab_files(path))):
        return "swanlab", SwanlabFollower
    return None
