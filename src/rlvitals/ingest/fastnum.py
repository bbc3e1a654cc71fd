"""Decimal numbers out of a byte buffer, many at once, with numpy (the fast readers' engine).

Python's `float()` costs a few hundred nanoseconds a call; a million-step log has ten million values.
Here a buffer holds only number characters and blanks; `token_bounds` finds every token, and
`parse_tokens` reads a set of tokens by *shape*: tokens printed alike (`0.412`, `-1.05`, `152`)
share a length, a sign and a dot position, so one numpy pass per digit position reads them all.

Exactness: the digits form an integer mantissa (exact in float64: at most WIDTH digits), and one
division by an exact power of ten rounds correctly, which is what `float()` returns for the same text.
Tokens of rare shapes, longer than WIDTH bytes, or not numbers at all go to `float()` one by one;
those `float()` rejects, and digits too many for a float64 (an inf nobody wrote), come back with
`ok=False` so the caller can send their line elsewhere (where values.py counts them).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "KEEP_NUMERIC",
    "PAD",
    "WIDTH",
    "numeric_buffer",
    "parse_tokens",
    "parse_window",
    "token_bounds",
    "tokenize",
]

KEEP_NUMERIC = frozenset(b"0123456789.+-")
PAD = 16                        # blank bytes after the text, so a token's window never runs off the end
WIDTH = 8                       # bytes of each token read at once; longer tokens go one by one
_POW10 = 10.0 ** np.arange(23)
_MAX_SHAPES = 12


def numeric_buffer(text: bytes, table: bytes | None = None, delete: bytes = b"") -> np.ndarray:
    """`text.translate(table, delete)` as a uint8 array, padded with PAD blanks (the parsers need them)."""
    return np.frombuffer(text.translate(table, delete) + b" " * PAD, dtype=np.uint8)


def tokenize(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(starts, lengths, windows) of the blank-separated tokens of a padded buffer; `windows[i]` is
    the first WIDTH bytes from `starts[i]`, gathered once and shared by every later step."""
    inside = a > 32
    starts = np.flatnonzero(inside[1:] & ~inside[:-1]) + 1
    if inside[0]:
        starts = np.concatenate(([0], starts))
    window = np.lib.stride_tricks.sliding_window_view(a, WIDTH)[starts]
    length = (window <= 32).argmax(axis=1)
    # a token never starts with a blank, so argmax 0 means no blank in the window: a long token
    for i in np.flatnonzero(length == 0).tolist():
        j = int(starts[i]) + WIDTH
        while a[j] > 32:
            j += 1
        length[i] = j - int(starts[i])
    return starts, length, window


def token_bounds(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the blank-separated tokens of a padded buffer."""
    starts, length, _ = tokenize(a)
    return starts, starts + length


def parse_tokens(a: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of the tokens `a[starts[i]:ends[i]]` and a mask of those that are numbers.
    `a` must end with PAD blank bytes (see `numeric_buffer`)."""
    window = np.lib.stride_tricks.sliding_window_view(a, WIDTH)[starts]
    return parse_window(a, starts, ends - starts, window)


def parse_window(a: np.ndarray, starts: np.ndarray, length: np.ndarray,
                 window: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`parse_tokens` on tokens already found by `tokenize` (their windows are not gathered again)."""
    n = starts.size
    out: np.ndarray = np.full(n, np.nan)
    ok: np.ndarray = np.zeros(n, dtype=bool)
    if n == 0:
        return out, ok
    todo: np.ndarray | None = None          # None: every token is still to do (no index arrays yet)
    slow: list[np.ndarray] = []
    for _ in range(_MAX_SHAPES):
        rows = window if todo is None else window[todo]
        lens = length if todo is None else length[todo]
        if rows.shape[0] == 0:
            break
        size = int(lens[0])
        tok = rows[0, :min(size, WIDTH)].tobytes()
        sign = tok[:1] if tok[:1] in (b"-", b"+") else b""
        dot = tok.find(b".")
        digits = [o for o in range(len(sign), min(size, WIDTH)) if o != dot]
        head = rows[:, 0]
        same = lens == size
        same &= (head == sign[0]) if sign else ((head != 45) & (head != 43))
        if dot >= 0:
            same &= rows[:, dot] == 46
        everyone = bool(same.all())
        if everyone:
            idx = np.arange(n) if todo is None and (size > WIDTH or not digits) else todo
            rest = np.empty(0, dtype=np.int64)
        else:
            idx = np.flatnonzero(same) if todo is None else todo[same]
            rest = np.flatnonzero(~same) if todo is None else todo[~same]
        if size > WIDTH or not digits:
            slow.append(np.arange(n) if idx is None else idx)
        else:
            # one gather of every digit of every token of this shape, then one exact dot product
            d = (rows if everyone else rows[same])[:, digits] - np.uint8(48)   # uint8 wraps: non-digit > 9
            bad = np.asarray((d > 9).any(axis=1))  # the stubs allow a scalar; axis=1 never gives one
            val = d.astype(np.float64) @ _POW10[len(digits) - 1::-1]
            frac = size - dot - 1 if dot >= 0 else 0
            if frac:
                val /= _POW10[frac]
            if idx is None:                   # the common case: one shape for the whole column
                out, ok = (-val if sign == b"-" else val), np.logical_not(bad)
                if bad.any():
                    slow.append(np.flatnonzero(bad))
            else:
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
            v = float(a[starts[i]:starts[i] + length[i]].tobytes())
        except ValueError:
            out[i] = np.nan
            ok[i] = False
            continue
        out[i] = v
        # digits beyond float64 (400 of them) give inf; the buffer holds no letters, so an inf here
        # was never spelled: not ok, and the caller's careful path counts it (values.OUT_OF_RANGE)
        ok[i] = v - v == 0
    return out, ok
