"""rlwatch's metric store: a SQLite database (`metrics.db`) read with the standard library.

rlwatch (`rlwatch.attach()`, `monitor.log_step(step, entropy=…, kl_divergence=…)`) writes every
step to `<log_dir>/metrics.db`, table `metrics`: one row per step with columns `run_id, step,
timestamp, entropy, kl_divergence, reward_mean, reward_std, reward_min, reward_max, advantage_std,
loss, learning_rate, clip_fraction, grad_norm` and `extra_json` (any other keyword, as a JSON
object).  SQLite stores a NaN as NULL, so a NULL in a column after its first value is read as NaN
(rlwatch's own `loss_nan` scenario logs `loss=nan`); NULLs before it are "not logged yet".  Its detectors' alerts sit in table `alerts`; they are counted in a note, not used.

One database can hold several runs (`run_id`); they are read in the order they started and become
the file's runs (`Run.file_runs`, `read(path, run=K)`), the last one by default.  The database is
opened read-only.
"""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

from ..errors import InputError
from ..i18n import Msg
from ..run import Run
from .base import Format
from .builder import RunBuilder, link_runs
from .values import OUT_OF_RANGE, as_float

__all__ = ["FORMAT", "read_sqlite_store"]

MAGIC = b"SQLite format 3\x00"
_MAX_STEP = 2**62  # a step beyond this is no step counter (and would overflow int64)
_SKIP_COLUMNS = frozenset({"id", "run_id", "step", "timestamp", "extra_json"})


def is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def _connect(path: Path) -> sqlite3.Connection:
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        con.execute("SELECT name FROM sqlite_master LIMIT 1")
        return con
    except sqlite3.Error as e:
        raise InputError.of("ingest.err.sqlite_open", path=path, error=e) from None


def _quote(name: str) -> str:
    """A column name as an SQL identifier (names come from the file's own schema)."""
    return '"' + name.replace('"', '""') + '"'


def _numeric(v: object) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return as_float(v)  # a JSON integer beyond float64: OUT_OF_RANGE, dropped by the builder


class _RunRows:
    """One run's rows, fed in the database's order, built into a Run at the end."""

    def __init__(self, cols: list[str], extra: bool, run_id: str | None, name: str, alerts: int) -> None:
        self.b = RunBuilder(name, "rlwatch-sqlite")
        self.b.split_runs = False
        self.cols, self.extra, self.run_id, self.alerts = cols, extra, run_id, alerts
        self.lineno = 0
        self.nulls = 0
        self.started: set[str] = set()

    def add(self, rec: tuple[object, ...]) -> None:
        b = self.b
        self.lineno += 1
        step = rec[0]
        if isinstance(step, bool) or not isinstance(step, (int, float)) or not math.isfinite(step):
            b.skip("row without a step")
            return
        if abs(step) >= _MAX_STEP:
            b.skip("step out of range")
            return
        row: dict[str, float] = {}
        dropped = 0
        for key, v in zip(self.cols, rec[1 : 1 + len(self.cols)]):
            if v is None:
                if key in self.started:  # SQLite stores NaN as NULL: a gap in a logged metric
                    row[key] = math.nan
                    self.nulls += 1
                continue  # not logged (yet)
            self.started.add(key)
            x = _numeric(v)
            if x is None:
                dropped += 1
            else:
                row[key] = x
        raw = rec[-1] if self.extra else None
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", "replace")
        if raw:
            more = None
            try:
                if not isinstance(raw, str):
                    raise TypeError("extra_json is not text")
                more = json.loads(raw)
            except (ValueError, TypeError, RecursionError):
                b.skip("malformed extra_json")
            if isinstance(more, dict):
                for key, v in more.items():
                    x = _numeric(v)
                    if x is not None and x in (math.inf, -math.inf) and isinstance(raw, str) and "Infinity" not in raw:
                        x = OUT_OF_RANGE  # json reads `1e400` as inf: not an infinity that was logged
                    if x is None:
                        dropped += 1
                    elif key not in row:
                        row[key] = x
        b.add_parsed(int(step), row, self.lineno, dropped=dropped, empty_reason="row without metrics")

    def build(self) -> Run:
        b = self.b
        if self.nulls:
            b.note(Msg("ingest.note.sqlite_nulls", n=self.nulls))
        if self.run_id is not None:
            b.meta["run_id"] = self.run_id
        if self.alerts:
            b.note(Msg("ingest.note.sqlite_alert" if self.alerts == 1 else "ingest.note.sqlite_alerts", n=self.alerts))
        return b.build()


def read_sqlite_store(path: Path, name: str) -> Run:
    """Every run of an rlwatch `metrics.db`; the last one started, with the others in `file_runs`.
    One pass over the table (rows dispatched to their run), so the cost is linear in rows + runs."""
    con = _connect(Path(path))
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "metrics" not in tables:
            raise InputError.of("ingest.err.sqlite_table", path=path, tables=", ".join(sorted(tables)) or "—")
        columns = [r[1] for r in con.execute("PRAGMA table_info(metrics)")]
        if "step" not in columns:
            raise InputError.of("ingest.err.sqlite_step", path=path)
        n_alerts: dict[str | None, int] = {}
        if "alerts" in tables:
            n_alerts = dict(con.execute("SELECT run_id, COUNT(*) FROM alerts GROUP BY run_id").fetchall())
        cols = [c for c in columns if c not in _SKIP_COLUMNS]
        extra = "extra_json" in columns
        by_run = "run_id" in columns
        select = ", ".join(
            _quote(c) for c in ["step", *cols] + (["extra_json"] if extra else []) + (["run_id"] if by_run else [])
        )
        order = "ORDER BY id" if "id" in columns else ""
        readers: dict[object, _RunRows] = {}  # in order of first row
        for rec in con.execute(f"SELECT {select} FROM metrics {order}"):  # column names quoted
            rid = rec[-1] if by_run else None
            reader = readers.get(rid)
            if reader is None:
                reader = readers[rid] = _RunRows(cols, extra, rid, name, n_alerts.get(rid, 0))
            reader.add(rec[:-1] if by_run else rec)
        seen = list(readers)
        if by_run and "runs" in tables:
            started = {r: t for r, t in con.execute("SELECT run_id, started_at FROM runs")}
            first = {r: i for i, r in enumerate(seen)}
            seen.sort(key=lambda r: (started.get(r) is None, _sortable(started.get(r)), first[r]))
        if not seen:
            readers[None] = _RunRows(cols, extra, None, name, 0)
            seen = [None]
        runs = [readers[r].build() for r in seen]
    except sqlite3.Error as e:
        raise InputError.of("ingest.err.sqlite_open", path=path, error=e) from None
    finally:
        con.close()
    return link_runs(runs, Msg("note.db_holds", n=len(runs)), lambda r: str(r.meta.get("run_id")))


def _sortable(v: object) -> tuple[int, float, str]:
    """A started_at of any type, comparable with any other (numbers before text)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, float(v), "")
    return (1, 0.0, str(v))


def sniff_path(path: Path) -> float:
    return 1.0 if is_sqlite(path) else 0.0


FORMAT = Format(
    "rlwatch-sqlite",
    "rlwatch's SQLite metric store (`metrics.db`: one row per step, several runs by run_id)",
    lambda text: 0.0,
    reader=read_sqlite_store,
)
