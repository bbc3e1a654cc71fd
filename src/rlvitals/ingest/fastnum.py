"""Decimal numbers out of a byte buffer, many at once, with numpy (the fast readers' engine).

Python's `float()` costs a few hundred nanoseconds a call; a million-step log has ten million values.
Here a buffer holds only number characters and blanks; `token_bounds` finds every token, and
`parse_tokens` reads a set of tokens by *shape*: tokens printed alike (`0.412`, `-1.05`, `152`)
share a length, a sign and a dot position, so one numpy pass per digit position reads them all.

Exactness: the digits form an integer mantissa (exact in float64 up to 15 digits), and one division
by an exact power of ten rounds correctly, which is what `float()` returns for the same text.
Tokens of rare shapes, more than 15 digits, or not numbers at all go to `float()` one by one;
those `float()` rejects come back with `ok=False` so the caller can send their line elsewhere.
"""

from __future__ import annotations

import numpy as np

__all__ = ["KEEP_NUMERIC", "PAD", "numeric_buffer", "token_bounds", "token_lengths", "parse_tokens"]

KEEP_NUMERIC = frozenset(b"0123456789.+-")
PAD = 16                        # blank bytes after the text, so a 16-byte window never runs off the end
_POW10 = 10.0 ** np.arange(23)
_MAX_SHAPES = 12


def numeric_buffer(text: bytes, table: bytes | None = None, delete: bytes = b"") -> np.ndarray:
    """`text.translate(table, delete)` as a uint8 array, padded with PAD blanks (parse_tokens needs them)."""
    return np.frombuffer(text.translate(table, delete) + b" " * PAD, dtype=np.uint8)


def token_bounds(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the blank-separated tokens of a uint8 buffer that ends with blanks."""
    inside = a > 32
    starts = np.flatnonzero(inside[1:] & ~inside[:-1]) + 1
    if inside[0]:
        starts = np.concatenate(([0], starts))
    return starts, starts + token_lengths(a, starts)


def token_lengths(a: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Length of each token (up to PAD; longer tokens are found by a scan, they are rare)."""
    window = np.lib.stride_tricks.sliding_window_view(a, PAD)[starts]
    blank = window <= 32
    length = blank.argmax(axis=1)
    long = np.flatnonzero(~blank.any(axis=1))
    for i in long.tolist():                 # no blank in the first PAD bytes: a long token
        j = int(starts[i]) + PAD
        while a[j] > 32:
            j += 1
        length[i] = j - int(starts[i])
    return length


def parse_tokens(a: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of the tokens `a[starts[i]:ends[i]]` and a mask of those that are numbers.

    `a` must end with PAD blank bytes (see `numeric_buffer`)."""
    n = starts.size
    out = np.full(n, np.nan)
    ok = np.zeros(n, dtype=bool)
    if n == 0:
        return out, ok
    length = ends - starts
    window = np.lib.stride_tricks.sliding_window_view(a, PAD)[starts]   # each token's first 16 bytes
    todo: np.ndarray | None = None          # None: every token is still to do (no index arrays yet)
    slow: list[np.ndarray] = []
    for _ in range(_MAX_SHAPES):
        rows = window if todo is None else window[todo]
        lens = length if todo is None else length[todo]
        if rows.shape[0] == 0:
            break
        size = int(lens[0])
        tok = rows[0, :min(size, PAD)].tobytes()
        sign = tok[:1] if tok[:1] in (b"-", b"+") else b""
        dot = tok.find(b".")
        digits = [o for o in range(len(sign), min(size, PAD)) if o != dot]
        head = rows[:, 0]
        same = lens == size
        same &= (head == sign[0]) if sign else ((head != 45) & (head != 43))
        if dot >= 0:
            same &= rows[:, dot] == 46
        everyone = bool(same.all())
        idx = (np.arange(n) if todo is None else todo) if everyone else \
            (np.flatnonzero(same) if todo is None else todo[same])
        rest = idx[:0] if everyone else (np.flatnonzero(~same) if todo is None else todo[~same])
        if size > PAD or not digits or len(digits) > 15:
            slow.append(idx)
        else:
            # one gather of every digit of every token of this shape, then one exact dot product
            d = (rows if everyone else rows[same])[:, digits] - np.uint8(48)   # uint8 wraps: non-digit > 9
            bad = (d > 9).any(axis=1)
            val = d.astype(np.float64) @ _POW10[len(digits) - 1::-1]
            frac = size - dot - 1 if dot >= 0 else 0
            if frac:
                val /= _POW10[frac]
            out[idx] = -val if sign == b"-" else val
            ok[idx] = ~bad
            if bad.any():
                slow.append(idx[bad])
        todo = rest
        if everyone:
            break
    if todo is not None:
        slow.append(todo)
    for i in (np.concatenate(slow).tolist() if slow else ()):
        try:
            out[i] = float(a[starts[i]:ends[i]].tobytes())
            ok[i] = True
        except ValueError:
            out[i] = np.nan
            ok[i] = False
    return out, ok
