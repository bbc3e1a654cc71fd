"""Tolerant value parsing: every spelling of a number that real RL logs use.

`0.5`, `-1.5e-05`, `21.1%` (→ 0.211), `nan`, `NaN`, `inf`, `-Infinity`, `np.float64(0.12)`,
`np.float32(nan)`, `tensor(0.4375, device='cuda:0')`, `'0.0123'` (SkyRL quotes its floats),
`True`/`False` (→ 1/0).  `None`/`null` and anything else non-numeric give `None`: the caller
decides whether that is a gap or a skipped value.
"""

from __future__ import annotations

import math
import re

__all__ = ["WRAPPED", "parse_value"]

WRAPPED = re.compile(r"^(?:np\.)?(?:numpy\.)?(?:float|int|uint|bfloat)\d*\((.*)\)$|^tensor\(([^,)]*)(?:,.*)?\)$")
_SPECIAL = {"nan": math.nan, "-nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf,
            "infinity": math.inf, "+infinity": math.inf, "-infinity": -math.inf,
            "true": 1.0, "false": 0.0}


def parse_value(text: str) -> float | None:
    """A float from one logged value, or None when it is not a number."""
    s = text.strip()
    if not s:
        return None
    try:
        return float(s)          # the common case, fastest path (also handles nan/inf spellings)
    except ValueError:
        pass
    if s[0] in "'\"" and s[-1] == s[0]:
        return parse_value(s[1:-1])
    if s.endswith("%"):
        v = parse_value(s[:-1])
        return None if v is None else v / 100.0
    m = WRAPPED.match(s)
    if m:
        return parse_value(m.group(1) if m.group(1) is not None else m.group(2))
    return _SPECIAL.get(s.lower())
