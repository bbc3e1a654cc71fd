"""The protobuf side of a W&B record log: the few fields of a `Record` that a run's metrics need,
decoded by hand (field numbers from W&B's own `wandb_internal.proto`, stable from 0.17 to 0.31):

    Record         history=2, summary=3, config=5, run=17
    HistoryRecord  item=1 (repeated), step=2 { num=1 }
    HistoryItem / SummaryItem / ConfigItem   key=1, nested_key=2 (repeated), value_json=16

W&B up to 0.17 writes `key` and a nested dict as one JSON object; later versions write the path in
`nested_key`.  Both give `outer/inner` keys.  The framing around the records is `wandb_store.py`'s.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

from .tfrecord import iter_fields, read_varint, skip_field
from .values import OUT_OF_RANGE

__all__ = ["history_row", "record_kind"]


def history_items(buf: bytes, pos: int, end: int) -> Iterator[tuple[str, bytes]]:
    """(key, value_json) of each item of a History/Summary/ConfigRecord's repeated field 1."""
    while pos < end:
        tag = buf[pos]
        if tag != 0x0A:  # not an item (step, _info, remove): skip it
            if tag >= 0x80:
                tag, pos = read_varint(buf, pos)
            else:
                pos += 1
            pos = skip_field(buf, pos, tag & 7)
            continue
        n = buf[pos + 1]
        n, p = (n, pos + 2) if n < 0x80 else read_varint(buf, pos + 1)
        pos = item_end = p + n
        key, parts, value = "", [], b""
        while p < item_end:
            t = buf[p]
            if t == 0x82 and buf[p + 1] == 0x01:  # value_json: field 16, a two-byte tag
                n = buf[p + 2]
                n, q = (n, p + 3) if n < 0x80 else read_varint(buf, p + 2)
                value = buf[q : q + n]
            elif t == 0x0A or t == 0x12:  # key, or one part of nested_key
                n = buf[p + 1]
                n, q = (n, p + 2) if n < 0x80 else read_varint(buf, p + 1)
                text = buf[q : q + n].decode("utf-8", "replace")
                if t == 0x0A:
                    key = text
                else:
                    parts.append(text)
            else:  # none/boolean/integer/number…: not what W&B writes
                t, q = read_varint(buf, p)
                p = skip_field(buf, q, t & 7)
                continue
            p = q + n
        yield ("/".join(parts) if parts else key), value


_INFS = (math.inf, -math.inf)


def number_value(value: bytes) -> float | None:
    """A JSON number (NaN and ±Infinity as W&B writes them) as a float, else None."""
    try:
        v = float(value)
    except ValueError:
        return None
    if v in _INFS and b"n" not in value:
        return OUT_OF_RANGE  # 1e400: too large, not a logged infinity
    return v


def flat_key(key: str, obj: object, row: dict[str, float]) -> int:
    """A nested dict logged by W&B <= 0.17 as one JSON object: its numbers under key/sub; the
    count of values that are not numbers (media objects, with `_type`, count as one)."""
    if isinstance(obj, dict):
        if "_type" in obj:
            return 1
        return sum(flat_key(f"{key}/{k}", v, row) for k, v in obj.items())
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        row[key] = float(obj)
        return 0
    return 1


def top_record(payload: bytes) -> tuple[int, int, int]:
    """(field, start, end) of the record's payload message: 2 history, 3 summary, 5 config, 17 run;
    (0, 0, 0) for any other record."""
    pos, n = 0, len(payload)
    while pos < n:
        tag = payload[pos]
        if tag < 0x80:
            pos += 1
        else:
            tag, pos = read_varint(payload, pos)
        if tag & 7 == 2:
            size = payload[pos]
            size, pos = (size, pos + 1) if size < 0x80 else read_varint(payload, pos)
            field = tag >> 3
            if field in (2, 3, 5, 17):
                return field, pos, pos + size
            pos += size
        else:
            pos = skip_field(payload, pos, tag & 7)
    return 0, 0, 0


def proto_fields(buf: bytes, pos: int, end: int) -> dict[int, tuple[int, int]]:
    """The length-delimited fields of a small message, field -> (start, end) (the last wins)."""
    out: dict[int, tuple[int, int]] = {}
    while pos < end:
        tag, pos = read_varint(buf, pos)
        if tag & 7 == 2:
            size, pos = read_varint(buf, pos)
            out[tag >> 3] = (pos, pos + size)
            pos += size
        else:
            pos = skip_field(buf, pos, tag & 7)
    return out


def json_value(value: bytes) -> object:
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None


def history_row(buf: bytes, pos: int, end: int) -> tuple[int | float | None, dict[str, float], int]:
    """(step, metrics, count of values that are no numbers) of the HistoryRecord at buf[pos:end];
    the step is `_step`, else the record's step field, else None."""
    row: dict[str, float] = {}
    step: float | int | None = None
    dropped = 0
    for key, value in history_items(buf, pos, end):
        if key[:1] == "_":
            if key == "_step":
                step = number_value(value)
            continue
        v = number_value(value)
        if v is not None:
            row[key] = v
        elif value[:1] == b"{":
            dropped += flat_key(key, json_value(value), row)
        else:
            dropped += 1  # a string, a boolean, a list, null
    if step is None:  # HistoryRecord.step { num }: W&B >= 0.2x
        f = proto_fields(buf, pos, end).get(2)
        if f is not None:
            step = next((v for fn, wt, v, _ in iter_fields(buf, *f) if fn == 1 and wt == 0), 0)
    if isinstance(step, float) and step.is_integer():
        step = int(step)
    return step, row, dropped


def record_kind(payload: bytes) -> tuple[str, int, int]:
    """("history" | "config" | "summary" | "run" | "", start, end) of a record's payload."""
    field, a, z = top_record(payload)
    return {2: "history", 3: "summary", 5: "config", 17: "run"}.get(field, ""), a, z
