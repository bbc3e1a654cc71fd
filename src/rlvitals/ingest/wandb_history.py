"""The bulk path's history records: every item of a batch of `HistoryRecord`s decoded with numpy
(the layout in `wandb_records.py`), then handed to the reader's `RunBuilder` as one block of rows.

1. the items of every record (field 1), one item per round over all records;
2. inside each item its key (`key` or a one-part `nested_key`) and `value_json`, one field per round;
3. keys: an item whose key bytes equal those of the item in the same place of the record before has
   the same key (compared as 8-byte words); only where they differ is a key decoded in Python;
4. values: `_step` as digits in numpy, the metrics by `float()` (a C call each: numpy's bytes → float
   conversion is slower), JSON objects (old wandb's nested dicts) and text in Python.

Anything else (a nested key path, another field) raises `OddRecord`: `wandb_fast.py` then gives the
batch's history to the Python decoder, so the result is the same either way.
"""

from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .values import OUT_OF_RANGE

if TYPE_CHECKING:
    from .builder import RunBuilder

__all__ = ["RecordSink", "decode_history"]


class RecordSink(Protocol):
    """What the decoders write into: `wandb_store.RecordReader`, described here rather than imported
    so that the framing module can call the decoders without an import circle."""

    b: RunBuilder
    summary: deque[tuple[bytes, int, int]]
    records: int
    history: int
    no_step: int
    _row_no: int

    def feed(self, records: list[bytes]) -> int: ...


class OddRecord(Exception):
    """Something the vectorised path does not handle: the batch goes the Python way."""


def read_varints(u: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, position after) of a varint at each of `q`, at most 3 bytes (< 2**21)."""
    b0 = u[q].astype(np.int64)
    val = b0 & 0x7F
    more = b0 >= 0x80
    size = np.ones(q.size, dtype=np.int64)
    if more.any():
        b1 = u[np.minimum(q + 1, u.size - 1)].astype(np.int64)
        val = np.where(more, val | ((b1 & 0x7F) << 7), val)
        size += more
        more2 = more & (b1 >= 0x80)
        if more2.any():
            b2 = u[np.minimum(q + 2, u.size - 1)].astype(np.int64)
            if (more2 & (b2 >= 0x80)).any():
                raise OddRecord
            val = np.where(more2, val | (b2 << 14), val)
            size += more2
    return val, q + size


_NUMERIC_FIRST = np.zeros(256, dtype=bool)
_NUMERIC_FIRST[list(b"-0123456789NI")] = True
_MAX_KEY = 96
_MAX_VALUE = 40
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _number_or_none(x: bytes) -> float | None:
    try:
        return float(x)
    except ValueError:
        return None


def _words(u: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 8 bytes at each offset of `at` as a little-endian uint64 (`u` padded by 8 bytes): one
    gather from a view whose elements overlap, one byte apart."""
    view = np.ndarray(shape=(u.size - 7,), dtype="<u8", buffer=u.data, offset=0, strides=(1,))
    words: np.ndarray = view[at]
    return words


def _digits(u: np.ndarray, at: np.ndarray, size: np.ndarray) -> np.ndarray | None:
    """Non-negative integers written as digits at u[at:at+size] (W&B's `_step`), or None when one is
    anything else (then float() reads them)."""
    if at.size == 0 or int(size.max()) > 15 or int(size.min()) < 1:
        return None
    val = np.zeros(at.size, dtype=np.int64)
    for j in range(int(size.max())):
        inside = j < size
        d = u[at + j].astype(np.int64) - 48
        if ((d < 0) | (d > 9))[inside].any():
            return None
        val = np.where(inside, val * 10 + d, val)
    return val.astype(np.float64)


def decode_history(r: RecordSink, buf: bytes, u: np.ndarray, ha: np.ndarray, hz: np.ndarray) -> None:
    """History records at buf[ha:hz] → rows of the reader's builder, in order."""
    nrec = ha.size
    # 1. the items of every record (field 1), one per round; a step { num } field noted
    it_rec, it_a, it_z = [], [], []
    step_at = np.full(nrec, -1, dtype=np.int64)
    step_end = np.zeros(nrec, dtype=np.int64)
    q = ha.copy()
    act = np.arange(nrec)
    while act.size:
        tag, after = read_varints(u, q[act])
        if ((tag & 7) != 2).any():
            raise OddRecord
        size, start = read_varints(u, after)
        end = start + size
        if (end > hz[act]).any():
            raise OddRecord
        item = tag == 0x0A
        it_rec.append(act[item])
        it_a.append(start[item])
        it_z.append(end[item])
        st = tag == 0x12
        step_at[act[st]] = start[st]
        step_end[act[st]] = end[st]
        q[act] = end
        act = act[end < hz[act]]
    rounds = np.cumsum([0] + [x.size for x in it_rec])[:-1]
    rec = np.concatenate(it_rec) if it_rec else np.empty(0, np.int64)
    ia = np.concatenate(it_a) if it_a else np.empty(0, np.int64)
    iz = np.concatenate(it_z) if it_z else np.empty(0, np.int64)
    # 2. inside each item: one key (field 1 or one nested_key 2) and value_json (16)
    n = rec.size
    ka = np.full(n, -1, dtype=np.int64)
    kl = np.zeros(n, dtype=np.int64)
    va = np.full(n, -1, dtype=np.int64)
    vl = np.zeros(n, dtype=np.int64)
    q = ia.copy()
    act = np.arange(n)
    while act.size:
        qa = q[act]
        t = u[qa]
        is_key = (t == 0x0A) | (t == 0x12)
        is_val = (t == 0x82) & (u[qa + 1] == 0x01)
        if not (is_key | is_val).all() or (is_key & (ka[act] >= 0)).any():
            raise OddRecord  # a nested key path, or another field
        size, start = read_varints(u, qa + np.where(is_val, 2, 1))
        ka[act[is_key]], kl[act[is_key]] = start[is_key], size[is_key]
        va[act[is_val]], vl[act[is_val]] = start[is_val], size[is_val]
        end = start + size
        if (end > iz[act]).any():
            raise OddRecord
        q[act] = end
        act = act[end < iz[act]]
    if n == 0 or (ka < 0).any() or (kl > _MAX_KEY).any():
        raise OddRecord
    # 3. keys: an item whose key bytes equal those of the item in the same place of the record
    #    before has the same key; only where they change is a key looked at in Python
    same = np.ones(n, dtype=bool)
    same[rounds[rounds < n]] = False
    eq_len = np.empty(n, dtype=bool)
    eq_len[1:] = kl[1:] == kl[:-1]
    same &= eq_len
    small = kl < 8
    for w in range(-(-int(kl.max()) // 8)):
        off = np.where(small, 0, np.minimum(8 * w, kl - 8))
        word = _words(u, ka + off)
        word = np.where(small, word & _MASKS[np.minimum(kl, 8)], word)
        same[1:] &= word[1:] == word[:-1]
    new = np.flatnonzero(~same)
    head = np.maximum.accumulate(np.where(same, 0, np.arange(n)))
    ids: dict[bytes, int] = {}
    head_id = np.empty(new.size, dtype=np.int64)
    for j, i in enumerate(new.tolist()):
        kb = buf[int(ka[i]) : int(ka[i] + kl[i])]
        head_id[j] = ids.setdefault(kb, len(ids))
    inv = np.empty(n, dtype=np.int64)
    inv_of_head = np.zeros(n, dtype=np.int64)
    inv_of_head[new] = head_id
    inv[:] = inv_of_head[head]
    names = [kb.decode("utf-8", "replace") for kb in ids]
    # 4. values of the metrics and of `_step`: numbers by Python's float (a C call each; numpy's
    #    bytes -> float is slower), the rest (JSON objects, text) in `_rows`
    internal = np.array([k[:1] == "_" and k != "_step" for k in names], dtype=bool)
    vals = np.full(n, np.nan)
    has = (va >= 0) & ~internal[inv]
    num = has & _NUMERIC_FIRST[u[np.maximum(va, 0)]]
    parse = num.copy()
    if "_step" in names:  # the step counter: digits, read as integers
        si = np.flatnonzero(num & (inv == names.index("_step")))
        as_int = _digits(u, va[si], vl[si])
        if as_int is not None:
            vals[si] = as_int
            parse[si] = False
    idx = np.flatnonzero(parse)
    if idx.size:
        pieces = [buf[a:b] for a, b in zip(va[idx].tolist(), (va[idx] + vl[idx]).tolist())]
        try:
            got = np.fromiter(map(float, pieces), dtype=np.float64, count=idx.size)
        except ValueError:  # "-x", "Nope": not numbers after all
            parsed = [_number_or_none(x) for x in pieces]
            got = np.array([math.nan if v is None else v for v in parsed])
            num[idx[[v is None for v in parsed]]] = False
        # an infinity is spelled (Infinity, -Infinity); 1e400 is a number too large: `_rows`
        # counts it as out of range
        inf = np.isinf(got)
        if inf.any():
            spelled = np.array([b"n" in pieces[i] for i in np.flatnonzero(inf).tolist()])
            num[idx[np.flatnonzero(inf)[~spelled]]] = False
        vals[idx] = got
    _rows(r, buf, rec, inv, names, vals, num, va, vl, (step_at, step_end), nrec)


def _rows(
    r: RecordSink,
    buf: bytes,
    rec: np.ndarray,
    inv: np.ndarray,
    names: list[str],
    vals: np.ndarray,
    num: np.ndarray,
    va: np.ndarray,
    vl: np.ndarray,
    step_field: tuple[np.ndarray, np.ndarray],
    nrec: int,
) -> None:
    from .tfrecord import iter_fields
    from .wandb_records import flat_key, json_value, number_value

    b = r.b
    r.history += nrec
    internal = np.array([k[:1] == "_" for k in names], dtype=bool)
    step_key = names.index("_step") if "_step" in names else -1
    steps = np.full(nrec, np.nan)
    if step_key >= 0:
        m = inv == step_key
        steps[rec[m]] = vals[m]
    for i in np.flatnonzero(np.isnan(steps)).tolist():  # no `_step`: the step field, else the row
        at, end = int(step_field[0][i]), int(step_field[1][i])
        if at >= 0:  # HistoryStep { num=1 }: absent when 0
            steps[i] = next((v for f, wt, v, _ in iter_fields(buf, at, end) if f == 1 and wt == 0), 0)
        else:
            steps[i] = r._row_no + 1 + i
            r.no_step += 1
    r._row_no += nrec
    cols: dict[str, np.ndarray] = {}
    present: dict[str, np.ndarray] = {}
    metric = ~internal[inv]
    dropped = 0
    # values the vectorised pass left: JSON objects (flattened), text, booleans, null
    for i in np.flatnonzero(metric & ~num).tolist():
        raw = buf[int(va[i]) : int(va[i] + vl[i])] if va[i] >= 0 else b""
        v = number_value(raw) if raw[:1] not in (b"{", b"") else None
        if v is OUT_OF_RANGE:
            b.drop("value out of range")
            continue
        if v is not None:
            vals[i], num[i] = v, True
            continue
        row: dict[str, float] = {}
        dropped += flat_key(names[inv[i]], json_value(raw), row) if raw[:1] == b"{" else 1
        for key, x in row.items():
            if key not in cols:
                cols[key], present[key] = np.full(nrec, np.nan), np.zeros(nrec, dtype=bool)
            cols[key][rec[i]], present[key][rec[i]] = x, True
    ok = metric & num
    order = np.argsort(inv[ok], kind="stable")
    kinv, krec, kval = inv[ok][order], rec[ok][order], vals[ok][order]
    cuts = np.flatnonzero(np.diff(kinv)) + 1
    for lo, hi in zip(np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [kinv.size])).tolist()):
        if hi <= lo:
            continue
        key = names[int(kinv[lo])]
        if key not in cols:
            cols[key], present[key] = np.full(nrec, np.nan), np.zeros(nrec, dtype=bool)
        cols[key][krec[lo:hi]] = kval[lo:hi]
        present[key][krec[lo:hi]] = True
    if dropped:
        b.drop("non-numeric values", dropped)
    any_row = np.zeros(nrec, dtype=bool)
    for mask in present.values():
        any_row |= mask
    if not any_row.all():
        b.skip("W&B history row without metrics", int((~any_row).sum()))
    whole = (steps == np.floor(steps)) & any_row
    if not (whole | ~any_row).all():
        b.skip("step not an integer", int((~whole & any_row).sum()))
    if not whole.any():
        return
    lines = r.history - nrec + 1 + np.flatnonzero(whole)
    b.add_block(
        steps[whole].astype(np.int64),
        {k: v[whole] for k, v in cols.items()},
        present={k: m[whole] for k, m in present.items()},
        lines=lines,
    )
