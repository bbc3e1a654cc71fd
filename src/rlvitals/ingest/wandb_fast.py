"""The bulk path of the W&B reader: a whole `.wandb` file decoded with numpy, a batch of blocks at a
time, so that a million-step run reads in seconds (a Python loop per value would take minutes).

The layout is `wandb_store.py`'s.  What is vectorised, per batch of 32 KiB blocks:

1. the framing: every block is walked in parallel, one chunk per round (a chunk never crosses a
   block); checksums are zlib's, one C call per chunk;
2. each record's top-level fields, one field per round, to find its payload (history, summary, …);
3. each history record's items, one item per round; inside an item its key and `value_json`;
4. keys: a 64-bit hash of their bytes, verified byte for byte, then decoded once per distinct key;
5. values: the numeric ones (`-`, digits, `NaN`, `Infinity`) parsed by numpy's bytes → float.

Anything unusual — a record split over blocks, a nested key path, a JSON object as a value, a
varint longer than numpy is asked to read, a record that does not parse — goes through the Python
decoder of `wandb_store.py` for that record or batch, so the result is the same either way (a test
compares both paths).
"""

from __future__ import annotations

import math
import zlib
from typing import TYPE_CHECKING

import numpy as np

from .values import OUT_OF_RANGE

if TYPE_CHECKING:
    from .wandb_store import _Reader

__all__ = ["BulkDecoder"]

BLOCK, HEADER = 32768, 7
_SEED = [zlib.crc32(bytes([t])) for t in range(5)]
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
    return view[at]


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


class _Odd(Exception):
    """Something the vectorised path does not handle: the batch goes the Python way."""


def _varint(u: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
                raise _Odd
            val = np.where(more2, val | (b2 << 14), val)
            size += more2
    return val, q + size


class BulkDecoder:
    """Feed whole blocks in file order (`feed(data)`, data starting at a block boundary), then
    `finish()`.  Chunks are checked and records handed to the `_Reader`: history records decoded
    here, everything else (and anything odd) by the reader's Python path."""

    def __init__(self, reader: _Reader) -> None:
        self.r = reader
        self.base = 0                 # file offset of the next batch
        self.parts: list[bytes] = []  # a FIRST … waiting for its LAST (it may cross batches)
        self.corrupt = 0
        self.cut = 0                  # bytes of an unfinished chunk or record at the end
        self._orphan_ok: set[int] = set()   # blocks whose first chunk may end a record damage cut
        self._first_at = 0

    # ---------------------------------------------------------------- framing
    def _chunks(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start, end and kind of every whole chunk of the batch, in file order."""
        n = u.size
        nb = (n + BLOCK - 1) // BLOCK
        blk_end = np.arange(1, nb + 1, dtype=np.int64) * BLOCK
        lim = np.minimum(blk_end, n)
        p = blk_end - BLOCK
        if self.base == 0:
            p[0] = HEADER
        out_s, out_e, out_k = [], [], []
        act = np.flatnonzero(p + HEADER <= lim)
        while act.size:
            q = p[act]
            ln = u[q + 4].astype(np.int64) | (u[q + 5].astype(np.int64) << 8)
            kd = u[q + 6]
            e = q + HEADER + ln
            valid = (kd >= 1) & (kd <= 4) & (e <= blk_end[act])
            ok = valid & (e <= lim[act])
            if not valid.all():                          # a length or type no writer produces
                self.corrupt += int((~valid).sum())
                self._damage += (q[~valid] + self.base).tolist()
            if (valid & ~ok).any():                      # a chunk still being written: the file's end
                self.cut += int(n - q[valid & ~ok].min())
            out_s.append(q[ok])
            out_e.append(e[ok])
            out_k.append(kd[ok])
            p[act] = np.where(ok, e, lim[act])
            act = act[p[act] + HEADER <= lim[act]]
        tail = n - p[-1] if nb and p[-1] < lim[-1] and n < blk_end[-1] else 0
        if tail and not self.cut:                        # fewer than 7 bytes of a header at the end
            self.cut += int(tail)
        if not out_s:
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.uint8)
        s, e, k = np.concatenate(out_s), np.concatenate(out_e), np.concatenate(out_k)
        order = np.argsort(s, kind="stable")
        return s[order], e[order], k[order]

    def feed(self, data: bytes) -> None:
        u = np.frombuffer(data, dtype=np.uint8)
        self._damage: list[int] = []                      # file offsets where a block's damage begins
        s, e, k = self._chunks(u)
        keep = np.ones(s.size, dtype=bool)
        if s.size:
            stored = u[s[:, None] + np.arange(4)].copy().view("<u4").ravel()
            mv = memoryview(data)
            crc = np.fromiter((zlib.crc32(mv[a + HEADER:b], _SEED[t])
                               for a, b, t in zip(s.tolist(), e.tolist(), k.tolist())), dtype=np.uint32, count=s.size)
            bad = np.flatnonzero(crc != stored)
            if bad.size:                                  # a bad chunk loses the rest of its block
                blk = s // BLOCK
                for i in bad.tolist():
                    if keep[i]:
                        keep &= ~((blk == blk[i]) & (s >= s[i]))
                        self._damage.append(int(s[i]) + self.base)
                        self.corrupt += 1
        self._records(data, s, e, k, keep)
        self.base += len(data)

    # ---------------------------------------------------------------- records
    def _records(self, data: bytes, s: np.ndarray, e: np.ndarray, k: np.ndarray, keep: np.ndarray) -> None:
        """Whole records from the chunks; FIRST…LAST joined in Python (with the damage, in order)."""
        full = (k == 1) & keep
        odd = np.flatnonzero((k != 1) & keep)
        events = sorted([(int(s[i]) + self.base, i) for i in odd.tolist()] + [(d, -1) for d in self._damage])
        extra: list[tuple[int, bytes]] = []               # (offset in data, payload) of joined records
        for at, i in events:
            if i < 0:                                     # damage: what was being joined is lost
                self.parts.clear()
                self._orphan_ok.add(at // BLOCK + 1)
                continue
            t = int(k[i])
            payload = data[int(s[i]) + HEADER:int(e[i])]
            if t == 2:
                if self.parts:
                    self.corrupt += 1
                self.parts[:] = [payload]
                self._first_at = int(s[i])
            elif self.parts:
                self.parts.append(payload)
                if t == 4:
                    extra.append((self._first_at, b"".join(self.parts)))
                    self.parts.clear()
            elif at % BLOCK == 0 and at // BLOCK in self._orphan_ok:
                if t == 3:                                # the tail of a record the damage cut
                    self._orphan_ok.add(at // BLOCK + 1)
            else:
                self.corrupt += 1                         # a MIDDLE or LAST without its FIRST
        if self.parts:                                    # a FIRST whose LAST is in the next batch
            self._first_at -= len(data)
        fs, fe = s[full] + HEADER, e[full]
        u = np.frombuffer(data + bytes(16), dtype=np.uint8)     # padded: 8-byte words read at any offset
        if not extra:
            self._decode(data, u, fs, fe)
            return
        # records joined from several chunks go in their place among the others
        order = np.concatenate([s[full], np.array([a for a, _ in extra], dtype=np.int64)])
        lens = np.array([len(p) for _, p in extra], dtype=np.int64)
        js = len(data) + np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
        allbuf = data + b"".join(p for _, p in extra)
        idx = np.argsort(order, kind="stable")
        self._decode(allbuf, np.frombuffer(allbuf + bytes(16), dtype=np.uint8),
                     np.concatenate([fs, js])[idx], np.concatenate([fe, js + lens])[idx])

    def _decode(self, buf: bytes, u: np.ndarray, rs: np.ndarray, re: np.ndarray) -> None:
        """Records at buf[rs:re]: find each one's payload field; history in bulk, the rest in Python."""
        r = self.r
        if rs.size == 0:
            return
        try:
            field, fa, fz = self._top(u, rs, re)
        except _Odd:
            r.feed([buf[a:b] for a, b in zip(rs.tolist(), re.tolist())])
            return
        r.records += int(rs.size)
        hist = np.flatnonzero(field == 2)
        for i in np.flatnonzero((field == 5) | (field == 17)).tolist():   # config, run: a few
            r.records -= 1
            r.feed([buf[int(rs[i]):int(re[i])]])
        for i in np.flatnonzero(field == 3)[-(r.summary.maxlen or 1):].tolist():
            payload = buf[int(rs[i]):int(re[i])]
            r.summary.append((payload, int(fa[i] - rs[i]), int(fz[i] - rs[i])))
        if hist.size:
            try:
                self._history(buf, u, fa[hist], fz[hist])
            except _Odd:
                r.records -= int(hist.size)
                r.feed([buf[int(rs[i]):int(re[i])] for i in hist.tolist()])

    @staticmethod
    def _top(u: np.ndarray, rs: np.ndarray, re: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(field, start, end) of each record's payload: 2, 3, 5, 17; 0 for any other record."""
        n = rs.size
        field = np.zeros(n, dtype=np.int64)
        fa = np.zeros(n, dtype=np.int64)
        fz = np.zeros(n, dtype=np.int64)
        q = rs.copy()
        act = np.arange(n)
        while act.size:
            tag, after = _varint(u, q[act])
            wt = tag & 7
            size, start = _varint(u, after)
            nxt = np.where(wt == 2, start + size, 0)
            vint = wt == 0
            if vint.any():                                   # skip a varint field (num)
                p = after[vint]
                for _ in range(10):
                    cont = u[p] >= 0x80
                    if not cont.any():
                        break
                    p = p + cont
                nxt[vint] = p + 1
            nxt = np.where(wt == 1, after + 8, np.where(wt == 5, after + 4, nxt))
            if ((wt == 3) | (wt == 4) | (wt > 5)).any() or (nxt > re[act]).any():
                raise _Odd
            hit = (wt == 2) & np.isin(tag >> 3, (2, 3, 5, 17))
            field[act[hit]] = tag[hit] >> 3
            fa[act[hit]] = start[hit]
            fz[act[hit]] = start[hit] + size[hit]
            q[act] = nxt
            act = act[~hit & (nxt < re[act])]
        return field, fa, fz

    # ---------------------------------------------------------------- history
    def _history(self, buf: bytes, u: np.ndarray, ha: np.ndarray, hz: np.ndarray) -> None:
        """History records at buf[ha:hz] → rows of the reader's builder, in order."""
        nrec = ha.size
        # 1. the items of every record (field 1), one per round; a step { num } field noted
        it_rec, it_a, it_z = [], [], []
        step_at = np.full(nrec, -1, dtype=np.int64)
        step_end = np.zeros(nrec, dtype=np.int64)
        q = ha.copy()
        act = np.arange(nrec)
        while act.size:
            tag, after = _varint(u, q[act])
            if ((tag & 7) != 2).any():
                raise _Odd
            size, start = _varint(u, after)
            end = start + size
            if (end > hz[act]).any():
                raise _Odd
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
                raise _Odd                                   # a nested key path, or another field
            size, start = _varint(u, qa + np.where(is_val, 2, 1))
            ka[act[is_key]], kl[act[is_key]] = start[is_key], size[is_key]
            va[act[is_val]], vl[act[is_val]] = start[is_val], size[is_val]
            end = start + size
            if (end > iz[act]).any():
                raise _Odd
            q[act] = end
            act = act[end < iz[act]]
        if n == 0 or (ka < 0).any() or (kl > _MAX_KEY).any():
            raise _Odd
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
            kb = buf[int(ka[i]):int(ka[i] + kl[i])]
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
        if "_step" in names:                                 # the step counter: digits, read as integers
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
            except ValueError:                               # "-x", "Nope": not numbers after all
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
        self._rows(buf, rec, inv, names, vals, num, va, vl, (step_at, step_end), nrec)

    def _rows(self, buf: bytes, rec: np.ndarray, inv: np.ndarray, names: list[str], vals: np.ndarray,
              num: np.ndarray, va: np.ndarray, vl: np.ndarray, step_field: tuple[np.ndarray, np.ndarray],
              nrec: int) -> None:
        from .tfrecord import iter_fields
        from .wandb_records import _flat, _json, _number

        r, b = self.r, self.r.b
        r.history += nrec
        internal = np.array([k[:1] == "_" for k in names], dtype=bool)
        step_key = names.index("_step") if "_step" in names else -1
        steps = np.full(nrec, np.nan)
        if step_key >= 0:
            m = inv == step_key
            steps[rec[m]] = vals[m]
        for i in np.flatnonzero(np.isnan(steps)).tolist():   # no `_step`: the step field, else the row
            at, end = int(step_field[0][i]), int(step_field[1][i])
            if at >= 0:                                       # HistoryStep { num=1 }: absent when 0
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
            raw = buf[int(va[i]):int(va[i] + vl[i])] if va[i] >= 0 else b""
            v = _number(raw) if raw[:1] not in (b"{", b"") else None
            if v is OUT_OF_RANGE:
                b.drop("value out of range")
                continue
            if v is not None:
                vals[i], num[i] = v, True
                continue
            row: dict[str, float] = {}
            dropped += _flat(names[inv[i]], _json(raw), row) if raw[:1] == b"{" else 1
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
        b.add_block(steps[whole].astype(np.int64), {k: v[whole] for k, v in cols.items()},
                    present={k: m[whole] for k, m in present.items()}, lines=lines)
