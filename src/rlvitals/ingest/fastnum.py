"""Numbers out of a byte buffer, many at once, with numpy (the fast readers' engine).

Python's `float()` costs a few hundred nanoseconds a call; a million-step log has ten million values.
Here a buffer holds number characters and blanks; `token_bounds` finds every token at the byte level,
and `parse_numbers` reads them by *shape*: tokens printed alike (`0.412`, `-1.05e-05`, `152`) share a
length, a sign, a dot position and an exponent position, so one numpy pass per shape reads them all,
however they are written: plain decimals, scientific notation (`3.33333e-10`, `1E+5`), signs,
long `repr` digits (`0.0019507111584004392`).  The speed does not depend on the spelling.

Exactness (the same float64 `float()` gives for the same text, bit for bit):

- the digits form an integer mantissa M, exact in float64 up to 15 digits, in uint64 up to 19;
- M < 2**53 and a power of ten 10**k with |k| <= 22 are both exact, so the one multiplication or
  division rounds correctly (Clinger's fast path);
- a longer mantissa (17-digit `repr`) goes through numpy's extended `longdouble` where it has a
  64-bit significand (x86-64): M and 10**k (|k| <= 27) are exact there, one operation rounds to 64
  bits, and the second rounding to float64 is right unless the 64-bit result sits exactly half-way
  between two float64 (checked on its low 11 bits: those few go to `float()`);
- everything else (rare shapes, > 32 bytes, exponents beyond the fast range, a platform without an
  extended longdouble) goes to `float()` one by one.  Those `float()` rejects, and digits too many
  for a float64 (an inf nobody wrote), come back with `ok=False`, so the caller can send their line
  to its careful path (where values.py counts them).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "KEEP_NUMERIC",
    "PAD",
    "WIDTH",
    "numeric_buffer",
    "parse_numbers",
    "parse_tokens",
    "read_rows",
    "token_bounds",
]

KEEP_NUMERIC = frozenset(b"0123456789.+-eE")
WIDTH = 32  # longest token read at once; longer tokens go one by one
PAD = WIDTH  # blank bytes after the text, so a token's window never runs off the end
_POW10 = 10.0 ** np.arange(23)
_LD_OK = np.finfo(np.longdouble).nmant == 63 and np.dtype(np.longdouble).itemsize == 16 and np.little_endian
_LD_POW10 = np.longdouble(10) ** np.arange(28, dtype=np.longdouble) if _LD_OK else None
_TWO53 = float(2**53)
_TINY = 2.2250738585072014e-308  # smallest normal float64: below it, double rounding is not checked


def numeric_buffer(text: bytes, table: bytes | None = None, delete: bytes = b"") -> np.ndarray:
    """`text.translate(table, delete)` as a uint8 array, padded with PAD blanks (the parsers need them)."""
    return np.frombuffer(text.translate(table, delete) + b" " * PAD, dtype=np.uint8)


def read_rows(
    lines: list[bytes], per_line: int, step: int, cols: list[int]
) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """(steps, values) of `lines`: the number at token `step` of each line, and the numbers at token
    positions `cols` as columns (`values[j]`: token `cols[j]` of every line), when every line has
    exactly `per_line` blank-separated tokens and each of `cols` a finite number (the caller
    checks the steps: `values.steps_ok`); else None (the caller's careful path decides, line by line).

    `lines` hold number characters and blanks only (a `numeric_buffer` split at its newlines), so
    numpy's C text reader (`np.loadtxt`) splits them as `token_bounds` does, and reads each number
    with Python's own correctly rounded conversion: the float64 `float()` gives, bit for bit, in
    ~30-60 ns a value, one pass over the text.  A structured dtype makes it check every line's
    token count; the tokens read by no one (what a key's letters leave behind) take one byte."""
    if not lines:
        return np.zeros(0), [np.zeros(0) for _ in cols]
    # (the step as a float: numpy < 2 reads "1.5" as the integer 1; the caller checks it is whole)
    kind = {c: np.float64 for c in cols} | {step: np.float64}
    dt = np.dtype([(f"t{i}", kind.get(i, "S1")) for i in range(per_line)])
    try:
        got = np.loadtxt(lines, dtype=dt, comments=None, ndmin=1, encoding="latin1")
    except (ValueError, OverflowError):  # a token count, or a token the line parser must see
        return None
    if got.shape != (len(lines),):
        return None
    # one array per column: a key's blocks are freed on their own when the run is built
    values = [np.ascontiguousarray(got[f"t{c}"]) for c in cols]
    if not all(np.isfinite(v).all() for v in values):  # 1e400 is inf for both: values.py counts it
        return None
    return np.ascontiguousarray(got[f"t{step}"]), values


def token_bounds(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the blank-separated tokens of a padded buffer (bytes <= 32 are blanks)."""
    inside = a > 32
    edges = np.flatnonzero(inside[1:] != inside[:-1]) + 1
    if inside[0]:
        edges = np.concatenate(([0], edges))
    return edges[0::2], edges[1::2]  # the buffer ends with blanks: every start has its end


def parse_tokens(a: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of the tokens `a[starts[i]:ends[i]]` and a mask of those that are numbers."""
    return parse_numbers(a, starts, ends - starts)


def parse_numbers(a: np.ndarray, starts: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of the tokens `a[starts[i]:starts[i] + length[i]]` and a mask of those that are numbers.
    `a` must end with PAD blank bytes (see `numeric_buffer`)."""
    n = int(starts.size)
    out: np.ndarray = np.full(n, np.nan)
    ok: np.ndarray = np.zeros(n, dtype=bool)
    if n == 0:
        return out, ok
    length = np.asarray(length)
    width = int(min(max(int(length.max()), 1), WIDTH))
    x = np.lib.stride_tricks.sliding_window_view(a, width)[starts]  # (n, width): one copy
    slow: list[np.ndarray] = []
    long = length > width
    if long.any():
        slow.append(np.flatnonzero(long))
    # the shape of each token: length, sign, first dot, first e (each "none" when past the token)
    head = x[:, 0]
    sign = (head == 45).view(np.int8) + 2 * (head == 43).view(np.int8)
    dot = (x == 46).argmax(axis=1)
    dot = np.where((x[np.arange(n), dot] == 46) & (dot < length), dot, width + 1)
    e_at = (x | 32) == 101
    ep = e_at.argmax(axis=1)
    ep = np.where(e_at[np.arange(n), ep] & (ep < length), ep, width + 1)
    esign = np.zeros(n, dtype=np.int8)
    has_e = np.flatnonzero(ep <= width)
    if has_e.size:
        nxt = x[has_e, np.minimum(ep[has_e] + 1, width - 1)]
        nxt = np.where(ep[has_e] + 1 < length[has_e], nxt, 48)
        esign[has_e] = (nxt == 45).view(np.int8) + 2 * (nxt == 43).view(np.int8)
    b = width + 2
    code = (((np.minimum(length, b - 1) * b + dot) * b + ep) * 3 + sign) * 3 + esign
    if long.any():
        code[long] = -1
    counts = np.bincount(code[code >= 0]) if not long.all() else np.zeros(0, np.int64)
    present = np.flatnonzero(counts)
    if present.size == 1 and not long.any():
        got = _shape(x, *_unpack(int(present[0]), b))
        if got is None:
            slow.append(np.arange(n))
        else:
            out, ok = got
            if not ok.all():
                slow.append(np.flatnonzero(~ok))
    else:
        # one sort by shape (16-bit keys: a radix sort, O(n)) and one gather: each shape is a slice
        lut = np.zeros(counts.size + 1, dtype=np.uint16)
        lut[present] = np.arange(1, present.size + 1, dtype=np.uint16)
        dense = lut[code]  # 0 for the long tokens
        order = np.argsort(dense, kind="stable")
        ends = np.cumsum(np.bincount(dense, minlength=present.size + 1)).tolist()
        xs = x[order]
        outs, oks = np.full(n, np.nan), np.zeros(n, dtype=bool)
        for j, c in enumerate(present.tolist()):
            lo, hi = ends[j], ends[j + 1]
            got = _shape(xs[lo:hi], *_unpack(c, b))
            if got is None:
                slow.append(order[lo:hi])
            else:
                outs[lo:hi], oks[lo:hi] = got
                if not got[1].all():
                    slow.append(order[lo:hi][~got[1]])
        out[order] = outs
        ok[order] = oks
    for i in np.concatenate(slow).tolist() if slow else ():
        try:
            v = float(a[starts[i] : starts[i] + length[i]].tobytes())
        except ValueError:
            out[i] = np.nan
            ok[i] = False
            continue
        out[i] = v
        # digits beyond float64 (400 of them) give inf, and so do nan/inf spelled out: not ok, the
        # caller's careful path tells them apart (values.OUT_OF_RANGE)
        ok[i] = v - v == 0
    return out, ok


def _unpack(code: int, b: int) -> tuple[int, int, int, int, int]:
    """(size, sign, dot, e, exponent sign) of a shape code."""
    code, es = divmod(code, 3)
    code, s = divmod(code, 3)
    code, e = divmod(code, b)
    size, d = divmod(code, b)
    return size, s, d, e, es


def _shape(rows: np.ndarray, size: int, s: int, d: int, e: int, es: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, read) of the tokens of one shape (`rows`: their windows); None: all go to float()."""
    m_end = min(e, size)
    first = 1 if s else 0
    mcols = [j for j in range(first, m_end) if j != d]
    ecols = list(range(e + 1 + (1 if es else 0), size)) if e < size else []
    if not mcols or (e < size and not ecols) or len(ecols) > 4:
        return None
    dig = rows[:, mcols] - np.uint8(48)  # uint8 wraps: a non-digit is > 9
    bad = dig.max(axis=1) > 9
    nd = len(mcols)
    frac = (m_end - d - 1) if d < m_end else 0
    if nd <= 15:
        mant = dig.astype(np.float64) @ _POW10[nd - 1 :: -1]
        big = None
    else:
        lead = nd - 19
        big = np.zeros(dig.shape[0], dtype=bool)
        if lead > 0:  # only leading zeros may go past 19 digits
            big |= dig[:, :lead].any(axis=1)
            dig = dig[:, lead:]
        hi = dig[:, :-15].astype(np.float64) @ _POW10[dig.shape[1] - 16 :: -1]
        lo = dig[:, -15:].astype(np.float64) @ _POW10[14::-1]
        with np.errstate(invalid="ignore", over="ignore"):
            mant_u = hi.astype(np.uint64) * np.uint64(10**15) + lo.astype(np.uint64)
        mant = mant_u.astype(np.float64)
    if ecols:
        ed = rows[:, ecols] - np.uint8(48)
        bad |= ed.max(axis=1) > 9
        k = ed.astype(np.float64) @ _POW10[len(ecols) - 1 :: -1]
        k = (-k if es == 1 else k) - frac
    else:
        k = np.full(dig.shape[0], -float(frac))
    fast = (np.abs(k) <= 22) & (mant < _TWO53) & ~bad
    if big is not None:
        fast &= ~big
    p = _POW10[np.minimum(np.abs(k), 22).astype(np.intp)]
    val = np.where(k >= 0, mant * p, mant / p)
    rest = ~fast & ~bad
    if rest.any() and _LD_OK and big is not None:
        # 16-19 digit mantissas: one rounding in the 64-bit significand, then a checked second one
        ld = rest & ~big & (np.abs(k) <= 27)
        j = np.flatnonzero(ld)
        if j.size:
            mm = mant_u[j].astype(np.longdouble)
            kk = k[j]
            pp = _LD_POW10[np.abs(kk).astype(np.intp)]  # type: ignore[index]
            r = np.where(kk >= 0, mm * pp, mm / pp)
            low = r.view(np.uint64)[0::2] & np.uint64(0x7FF)
            got = r.astype(np.float64)
            good = (low != np.uint64(0x400)) & (got >= _TINY) & np.isfinite(got)
            val[j[good]] = got[good]
            fast[j[good]] = True
    return (-val if s == 1 else val), fast  # what is not fast, float() decides
