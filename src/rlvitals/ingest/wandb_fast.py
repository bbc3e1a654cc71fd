"""The bulk path of the W&B reader: a whole `.wandb` file decoded with numpy, a batch of blocks at a
time, so that a million-step run reads in seconds (a Python loop per value would take minutes).

The layout is `wandb_store.py`'s.  What is vectorised here, per batch of 32 KiB blocks:

1. the framing: every block is walked in parallel, one chunk per round (a chunk never crosses a
   block); checksums are zlib's, one C call per chunk; a bad chunk loses the rest of its block;
2. records split over blocks (FIRST, MIDDLE…, LAST) are joined in Python and put back in their place;
3. each record's top-level fields, one field per round, to find its payload: history records go to
   `wandb_history.decode_history` as one block, the few config and run records and the last
   summary records to the reader's Python path.

Anything unusual (a field of a wire type no W&B record has, a varint longer than numpy is asked to
read, a history item it does not expect) sends that batch's records through the Python decoder of
`wandb_store.py`, so the result is the same either way (a test compares both paths on clean, cut
and damaged files).
"""

from __future__ import annotations

import zlib

import numpy as np

from .wandb_history import OddRecord, RecordSink, decode_history, read_varints

__all__ = ["BulkDecoder"]

BLOCK, HEADER = 32768, 7
_SEED = [zlib.crc32(bytes([t])) for t in range(5)]


class BulkDecoder:
    """Feed whole blocks in file order (`feed(data)`, data starting at a block boundary), then
    `finish()`.  Chunks are checked and records handed to the `RecordReader`: history records decoded
    here, everything else (and anything odd) by the reader's Python path."""

    def __init__(self, reader: RecordSink) -> None:
        self.r = reader
        self.base = 0  # file offset of the next batch
        self.parts: list[bytes] = []  # a FIRST … waiting for its LAST (it may cross batches)
        self.corrupt = 0
        self.cut = 0  # bytes of an unfinished chunk or record at the end
        self._orphan_ok: set[int] = set()  # blocks whose first chunk may end a record damage cut
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
            if not valid.all():  # a length or type no writer produces
                self.corrupt += int((~valid).sum())
                self._damage += (q[~valid] + self.base).tolist()
            if (valid & ~ok).any():  # a chunk still being written: the file's end
                self.cut += int(n - q[valid & ~ok].min())
            out_s.append(q[ok])
            out_e.append(e[ok])
            out_k.append(kd[ok])
            p[act] = np.where(ok, e, lim[act])
            act = act[p[act] + HEADER <= lim[act]]
        tail = n - p[-1] if nb and p[-1] < lim[-1] and n < blk_end[-1] else 0
        if tail and not self.cut:  # fewer than 7 bytes of a header at the end
            self.cut += int(tail)
        if not out_s:
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.uint8)
        s, e, k = np.concatenate(out_s), np.concatenate(out_e), np.concatenate(out_k)
        order = np.argsort(s, kind="stable")
        return s[order], e[order], k[order]

    def feed(self, data: bytes) -> None:
        u = np.frombuffer(data, dtype=np.uint8)
        self._damage: list[int] = []  # file offsets where a block's damage begins
        s, e, k = self._chunks(u)
        keep = np.ones(s.size, dtype=bool)
        if s.size:
            stored = u[s[:, None] + np.arange(4)].copy().view("<u4").ravel()
            mv = memoryview(data)
            crc = np.fromiter(
                (zlib.crc32(mv[a + HEADER : b], _SEED[t]) for a, b, t in zip(s.tolist(), e.tolist(), k.tolist())),
                dtype=np.uint32,
                count=s.size,
            )
            bad = np.flatnonzero(crc != stored)
            if bad.size:  # a bad chunk loses the rest of its block
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
        extra: list[tuple[int, bytes]] = []  # (offset in data, payload) of joined records
        for at, i in events:
            if i < 0:  # damage: what was being joined is lost
                self.parts.clear()
                self._orphan_ok.add(at // BLOCK + 1)
                continue
            t = int(k[i])
            payload = data[int(s[i]) + HEADER : int(e[i])]
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
                if t == 3:  # the tail of a record the damage cut
                    self._orphan_ok.add(at // BLOCK + 1)
            else:
                self.corrupt += 1  # a MIDDLE or LAST without its FIRST
        if self.parts:  # a FIRST whose LAST is in the next batch
            self._first_at -= len(data)
        fs, fe = s[full] + HEADER, e[full]
        u = np.frombuffer(data + bytes(16), dtype=np.uint8)  # padded: 8-byte words read at any offset
        if not extra:
            self._decode(data, u, fs, fe)
            return
        # records joined from several chunks go in their place among the others
        order = np.concatenate([s[full], np.array([a for a, _ in extra], dtype=np.int64)])
        lens = np.array([len(p) for _, p in extra], dtype=np.int64)
        js = len(data) + np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
        allbuf = data + b"".join(p for _, p in extra)
        idx = np.argsort(order, kind="stable")
        self._decode(
            allbuf,
            np.frombuffer(allbuf + bytes(16), dtype=np.uint8),
            np.concatenate([fs, js])[idx],
            np.concatenate([fe, js + lens])[idx],
        )

    def _decode(self, buf: bytes, u: np.ndarray, rs: np.ndarray, re: np.ndarray) -> None:
        """Records at buf[rs:re]: find each one's payload field; history in bulk, the rest in Python."""
        r = self.r
        if rs.size == 0:
            return
        try:
            field, fa, fz = self.top_record(u, rs, re)
        except OddRecord:
            r.feed([buf[a:b] for a, b in zip(rs.tolist(), re.tolist())])
            return
        r.records += int(rs.size)
        hist = np.flatnonzero(field == 2)
        for i in np.flatnonzero((field == 5) | (field == 17)).tolist():  # config, run: a few
            r.records -= 1
            r.feed([buf[int(rs[i]) : int(re[i])]])
        for i in np.flatnonzero(field == 3)[-(r.summary.maxlen or 1) :].tolist():
            payload = buf[int(rs[i]) : int(re[i])]
            r.summary.append((payload, int(fa[i] - rs[i]), int(fz[i] - rs[i])))
        if hist.size:
            try:
                decode_history(r, buf, u, fa[hist], fz[hist])
            except OddRecord:
                r.records -= int(hist.size)
                r.feed([buf[int(rs[i]) : int(re[i])] for i in hist.tolist()])

    @staticmethod
    def top_record(u: np.ndarray, rs: np.ndarray, re: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(field, start, end) of each record's payload: 2, 3, 5, 17; 0 for any other record."""
        n = rs.size
        field = np.zeros(n, dtype=np.int64)
        fa = np.zeros(n, dtype=np.int64)
        fz = np.zeros(n, dtype=np.int64)
        q = rs.copy()
        act = np.arange(n)
        while act.size:
            tag, after = read_varints(u, q[act])
            wt = tag & 7
            size, start = read_varints(u, after)
            nxt = np.where(wt == 2, start + size, 0)
            vint = wt == 0
            if vint.any():  # skip a varint field (num)
                p = after[vint]
                for _ in range(10):
                    cont = u[p] >= 0x80
                    if not cont.any():
                        break
                    p = p + cont
                nxt[vint] = p + 1
            nxt = np.where(wt == 1, after + 8, np.where(wt == 5, after + 4, nxt))
            if ((wt == 3) | (wt == 4) | (wt > 5)).any() or (nxt > re[act]).any():
                raise OddRecord
            hit = (wt == 2) & np.isin(tag >> 3, (2, 3, 5, 17))
            field[act[hit]] = tag[hit] >> 3
            fa[act[hit]] = start[hit]
            fz[act[hit]] = start[hit] + size[hit]
            q[act] = nxt
            act = act[~hit & (nxt < re[act])]
        return field, fa, fz
