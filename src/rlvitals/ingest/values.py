"""Tolerant value parsing, and the one definition of an acceptable step and value.

Values: `0.5`, `-1.5e-05`, `21.1%` (→ 0.211), `nan`, `NaN`, `inf`, `-Infinity`, `np.float64(0.12)`,
`np.float32(nan)`, `tensor(0.4375, device='cuda:0')`, `'0.0123'` (SkyRL quotes its floats),
`True`/`False` (→ 1/0).  `None`/`null` and anything else non-numeric give `None`: the caller
decides whether that is a gap or a skipped value.  Wrappers are peeled in a loop (at most
`MAX_LAYERS` of them), never by recursion, so `np.float64(` nested a thousand times costs nothing.

Ranges (checked by `RunBuilder`, the one place every reader's rows pass through):

- a **step** is an integer with 0 ≤ step < 2**53 (`STEP_LIMIT`: every such integer is exact in a
  float64, which is what plots and numpy arithmetic see); anything else is skipped and counted
  ("step out of range", "step not an integer");
- a **value** is anything a float64 holds, NaN and ±inf included (a logged NaN is evidence); a
  number too large for a float64 (`1e400`, a 400-digit integer) is not an infinity that was logged:
  it comes back as `OUT_OF_RANGE` and is skipped and counted ("value out of range").
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = [
    "MAX_DEPTH",
    "OUT_OF_RANGE",
    "STEP_LIMIT",
    "WRAPPED",
    "OutOfRange",
    "as_float",
    "checked_float",
    "is_skip_flag",
    "parse_step",
    "parse_value",
    "steps_ok",
]

STEP_LIMIT = 2**53
MAX_DEPTH = 64  # nesting a reader follows (dicts in dicts); deeper input is skipped and counted
MAX_LAYERS = 8  # wrappers around one value: quotes, %, np.float64(…), tensor(…)

WRAPPED = re.compile(r"^(?:np\.)?(?:numpy\.)?(?:float|int|uint|bfloat)\d*\((.*)\)$|^tensor\(([^,)]*+)(?:,.*)?\)$")
_SPECIAL = {
    "nan": math.nan,
    "-nan": math.nan,
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-infinity": -math.inf,
    "true": 1.0,
    "false": 0.0,
}
_INFS = (math.inf, -math.inf)
# an optimizer's flag, or count, of updates it did not apply at a step: a loss scaler meeting an
# overflow (DeepSpeed / torch.amp fp16), a guard refusing a huge grad norm, Megatron's count of
# skipped iterations.  Read as numbers by every reader (a JSON `true` too): numeric_instability judges them
SKIP_FLAGS = frozenset(
    {
        "update_skipped",
        "updates_skipped",
        "skipped_update",
        "skipped_updates",
        "step_skipped",
        "skipped_step",
        "skipped_steps",
        "skip_step",
        "optimizer_skipped",
        "optimizer_step_skipped",
        "skipped_iterations",
        "skipped_iters",
        "grad_overflow",
        "overflow",
        "found_inf",
    }
)


def is_skip_flag(key: str) -> bool:
    """A key whose values say the optimizer skipped its update at that step (`update_skipped`,
    `train/skipped_iterations`, `overflow`): SKIP_FLAGS by its last part."""
    return key.rsplit("/", 1)[-1].lower() in SKIP_FLAGS


class OutOfRange(float):
    """A number too large for a float64: a marker (it compares as +inf) that `RunBuilder` skips and
    counts as "value out of range" instead of storing."""

    def __repr__(self) -> str:
        return "OUT_OF_RANGE"


OUT_OF_RANGE = OutOfRange("inf")


def checked_float(s: str) -> float:
    """float(s) (ValueError when it is no number), but OUT_OF_RANGE when finite digits overflow
    (`1e400`, 400 digits): ±inf only when spelled."""
    v = float(s)
    if v in _INFS and "n" not in s and "N" not in s:
        return OUT_OF_RANGE
    return v


def parse_value(text: str) -> float | None:
    """A float from one logged value (OUT_OF_RANGE when it overflows), or None when it is not a number."""
    try:
        plain = float(text)  # the common case, fastest path: a finite number (float() ignores the blanks)
    except ValueError:
        pass
    else:
        if plain - plain == 0:
            return plain
    s = text.strip()
    if not s:
        return None
    try:
        return checked_float(s)  # nan/inf spellings, and digits that overflow
    except ValueError:
        pass
    pct = 0
    for _ in range(MAX_LAYERS):
        if s[0] in "'\"" and s[-1] == s[0]:
            s = s[1:-1].strip()
        elif s.endswith("%"):
            s = s[:-1].strip()
            pct += 1
        else:
            m = WRAPPED.match(s)
            if m is None:
                v = _SPECIAL.get(s.lower())
                break
            s = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
        if not s:
            return None
        try:
            v = checked_float(s)
            break
        except ValueError:
            continue
    else:
        return None  # wrapped deeper than any logger writes
    if v is None or v is OUT_OF_RANGE:
        return v
    for _ in range(pct):
        v /= 100.0
    return v


def as_float(v: int | float) -> float:
    """A JSON/Python number as a float: OUT_OF_RANGE for an integer beyond float64's range."""
    try:
        return float(v)
    except OverflowError:
        return OUT_OF_RANGE


def parse_step(x: object) -> int | str:
    """The step as an int when 0 ≤ step < STEP_LIMIT, else the reason it is skipped (a str).

    Accepts ints, integral floats (`12.0`) and their text (`"12"`, `"0012"`, `"12.0"`); digit
    strings of any length are rejected by their length, never converted (no 5,000-digit `int()`)."""
    if type(x) is int:
        return x if 0 <= x < STEP_LIMIT else "step out of range"
    if isinstance(x, (str, bytes)):
        s = x.strip() if isinstance(x, str) else x.decode("ascii", "replace").strip()
        if s.isascii() and s.isdigit():
            s = s.lstrip("0") or "0"
            if len(s) > 16:
                return "step out of range"
            n = int(s)
            return n if n < STEP_LIMIT else "step out of range"
        if len(s) > 64:
            return "step out of range"
        v = parse_value(s)
        if v is None:
            return "unreadable step"
        x = v
    if isinstance(x, bool):
        return "unreadable step"
    if isinstance(x, (int, np.integer)):
        n = int(x)
        return n if 0 <= n < STEP_LIMIT else "step out of range"
    try:
        f = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return "unreadable step"
    if not 0.0 <= f < STEP_LIMIT:
        return "step out of range"  # also NaN and ±inf
    if f != math.floor(f):
        return "step not an integer"
    return int(f)


def steps_ok(steps: np.ndarray) -> np.ndarray:
    """parse_step's rule on an array at once: a bool mask of the acceptable steps."""
    steps = np.asarray(steps)
    if steps.dtype.kind in "iu":
        return (steps >= 0) & (steps < STEP_LIMIT)
    if steps.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            whole: np.ndarray = (steps >= 0) & (steps < STEP_LIMIT) & (steps == np.floor(steps))
            return whole
    return np.fromiter((not isinstance(parse_step(s), str) for s in steps.tolist()), dtype=bool, count=steps.size)
