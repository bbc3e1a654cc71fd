"""What every finding module sees: the run, each curve's shape, the samples, and small helpers.

The helpers answer the questions a practitioner asks of a curve -- "where did it start and end",
"is it still going up at the end", "is this one applicable at all" -- with robust numbers
(medians of windows, noise-scaled changes) so each rule reads like the lesson's sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..run import Run, Series
from ..shapes import Shape
from ..stats import blocks, hinge_onset, kendall_tau
from .model import RuledOut

__all__ = ["Ctx", "rnd", "ro"]


def rnd(x: float | None, digits: int = 4) -> float | None:
    """Round for evidence: 4 significant digits, NaN kept as None (JSON-safe)."""
    if x is None or not np.isfinite(x):
        return None
    if x == 0:
        return 0.0
    return float(f"{x:.{digits}g}")


def ro(lookalike: str, metric: str, value: Any, reason: str) -> RuledOut:
    """A ruled-out look-alike; numbers are rounded so the report shows the arithmetic plainly."""
    if isinstance(value, float):
        value = rnd(value)
    return RuledOut(lookalike, metric, value, reason)


@dataclass
class Ctx:
    """The run under diagnosis with cached per-metric facts."""

    run: Run
    shapes: dict[str, Shape]
    samples: Any = None
    _cache: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    _results: dict[str, Any] = field(default_factory=dict)

    def check(self, module: Any) -> Any:
        """Run a finding module's check once per diagnosis (rules consult each other)."""
        if module.ID not in self._results:
            self._results[module.ID] = module.check(self)
        return self._results[module.ID]

    # -- access -------------------------------------------------------------------------------
    def series(self, name: str) -> Series | None:
        """A canonical series, or `component:<key>` (a reward term) / `eval:<key>` (an eval metric)."""
        if name.startswith("component:"):
            return (getattr(self.run, "components", None) or {}).get(name[10:])
        if name.startswith("eval:"):
            return (getattr(self.run, "evals", None) or {}).get(name[5:])
        return self.run.series.get(name)

    def has(self, name: str) -> bool:
        """Present with enough finite points to judge."""
        sh = self.shapes.get(name)
        if sh is None and ":" in name:
            s = self.series(name)
            if s is None:
                return False
            from ..shapes import classify

            sh = self.shapes[name] = classify(s)
        return sh is not None and sh.word != "short"

    def data(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(steps, values) of the finite points."""
        if name not in self._cache:
            s = self.series(name)
            if s is None:
                self._cache[name] = (np.empty(0, np.int64), np.empty(0))
            else:
                ok = s.finite
                self._cache[name] = (s.steps, s.values) if ok.all() else (s.steps[ok], s.values[ok])
        return self._cache[name]

    def blocks(self, name: str, nblocks: int) -> tuple[np.ndarray, np.ndarray]:
        """Block centres and medians of the metric's finite points, computed once per size."""
        key = f"{name}#{nblocks}"
        if key not in self._cache:
            s, v = self.data(name)
            self._cache[key] = blocks(s, v, nblocks)
        return self._cache[key]

    def applicable(self, name: str) -> bool:
        """Logged and not identically constant (clip_frac 0 at every step = one update per batch)."""
        sh = self.shapes.get(name)
        return sh is not None and sh.word not in ("constant", "short")

    def missing(self, *names: str) -> tuple[str, ...]:
        return tuple(n for n in names if not self.has(n))

    # -- robust levels ------------------------------------------------------------------------
    def window(self, name: str, a: float, b: float) -> float:
        """Median of the values between fractions a and b of the metric's own points."""
        _, v = self.data(name)
        if v.size == 0:
            return float("nan")
        i, j = int(a * v.size), max(int(b * v.size), int(a * v.size) + 1)
        seg = v[i:j]
        if seg.size > 65536:  # a strided sample gives the same median to 3 digits, in O(1)
            seg = seg[:: seg.size // 65536]
        return float(np.median(seg))

    def start(self, name: str) -> float:
        return self.shapes[name].start if name in self.shapes else float("nan")

    def end(self, name: str) -> float:
        return self.shapes[name].end if name in self.shapes else float("nan")

    def peak(self, name: str) -> float:
        """Highest of 16 block medians (a robust maximum: one noisy step cannot set it)."""
        s, v = self.data(name)
        if v.size == 0:
            return float("nan")
        _, x = self.blocks(name, 16)
        return float(np.max(x))

    def noise(self, name: str) -> float:
        sh = self.shapes.get(name)
        return float(sh.stats.get("noise", 0.0)) if sh else 0.0

    def logged(self, name: str) -> bool:
        """Enough points to judge (`has`), or logged at one value at every step: a level with no trend,
        which "has" leaves out and a rule reading levels still needs (a KL of exactly 0, a reward of -2)."""
        return self.has(name) or self.word(name) == "constant"

    def word(self, name: str) -> str | None:
        sh = self.shapes.get(name)
        return sh.word if sh else None

    def gained(self, name: str, *, rel: float = 0.1, a: float = 0.0) -> bool:
        """Did the metric go up meaningfully from fraction a of the run to its end?

        "Meaningfully" = more than 10% of its starting level (or of its range when it starts at
        0) and more than three noise standard errors of a tenth-of-run mean.
        """
        s, v = self.data(name)
        if v.size < 10:
            return False
        i = int(a * v.size)
        tenth = max(1, v.size // 10)
        first = float(v[i : i + tenth].mean())
        last = float(v[-tenth:].mean())
        scale = max(abs(first), 0.05 * max(float(np.max(np.abs(v))), 1e-12), 1e-9)
        se = self.noise(name) * 3.0 / np.sqrt(tenth)
        return bool((last - first) > max(rel * scale, se))

    def still_rising(self, name: str, a: float = 0.5) -> bool:
        """Is the metric still climbing over the part of the run after fraction a?

        Kendall's tau of 16 block medians of that part >= 0.3 and a positive net change: a slow
        but steady late rise (a healthy run converging) counts; a flat or noisy tail does not.
        """
        s, v = self.data(name)
        i = int(a * v.size)
        if v.size - i < 8:
            return False
        t, x = blocks(s[i:], v[i:], 16)
        if x.size < 4:
            return False
        return kendall_tau(x) >= 0.3 and x[-max(1, x.size // 4) :].mean() > x[: max(1, x.size // 4)].mean()

    def late_gain(self, name: str, frac: float = 0.35) -> float:
        """Change over the last `frac` of the run, relative to the whole run's movement range."""
        s, v = self.data(name)
        if v.size < 10:
            return float("nan")
        k = int((1 - frac) * v.size)
        tenth = max(1, v.size // 10)
        seg_start = float(np.median(v[k : k + tenth]))
        seg_end = float(np.median(v[-tenth:]))
        _, x = self.blocks(name, 32)
        rng = float(np.max(x) - np.min(x)) or 1e-12
        return (seg_end - seg_start) / rng

    def onset(self, name: str, kind: str = "start", *, log: bool = False, until_peak: bool = False) -> int | None:
        """Step where the metric's behaviour changed (hinge on block medians).

        log=True fits the hinge to log10 of a positive metric, so an exponential run-away
        (a KL blow-up, an exploding length) is a straight line that starts at its true onset.
        until_peak=True fits only up to where the curve first reaches its ceiling (a length that
        hits the cap and stays there would otherwise bend the fit).
        """
        s, v = self.data(name)
        if v.size < 10:
            return None
        t, x = self.blocks(name, 64)
        if until_peak:
            top = float(np.max(v))
            lo = float(np.min(v))
            j = int(np.argmax(v >= top - 0.05 * (top - lo)))
            if j >= 10:
                t, x = blocks(s[: j + 1], v[: j + 1], 64)
        if log and np.all(x > 0):
            x = np.log10(x)
        if kind == "plateau":  # a sharp knee or a smooth approach: whichever fits better
            (k1, f1), (k2, f2) = hinge_onset(t, x, "stop"), hinge_onset(t, x, "settle")
            # a smooth approach is the usual way gains run out; call the knee sharp only when
            # that fits clearly better (a line that stops dead)
            return int(t[k1] if (1 - f1) < 0.6 * (1 - f2) else t[k2])
        k, _ = hinge_onset(t, x, kind)
        return int(t[k])

    def crossing(
        self, name: str, frac: float = 0.15, *, log: bool = False, below: float | None = None, first: bool = False
    ) -> int | None:
        """Step where the metric left its starting level for good (a ramp's onset).

        On up to 100 block medians: the threshold is `frac` of the way from the first tenth's
        level to the last tenth's (or the absolute level `below`, e.g. adv_std 0.5); the onset is
        the block after the last one still on the starting side, so noise before the change does
        not drag the answer early.  log=True works on log10 (multiplicative run-aways).
        first=True instead returns the first of 40 block medians past the threshold (when a curve
        "entered a band", as the lesson's adv_std table reads it).
        """
        s, v = self.data(name)
        if v.size < 10:
            return None
        if first:  # block means: the lesson reads a band off the smoothed curve
            m = max(1, v.size // 40)
            k = v.size // m
            t = s[: k * m].reshape(k, m).mean(axis=1)
            x = v[: k * m].reshape(k, m).mean(axis=1)
        else:
            t, x = self.blocks(name, 100)
        if log:
            if not np.all(x > 0):
                return None
            x = np.log10(x)
        k = max(1, x.size // 10)
        a, b = float(np.median(x[:k])), float(np.median(x[-k:]))
        if below is not None:
            thr, up = below, False
        else:
            if a == b:
                return None
            thr, up = a + frac * (b - a), b > a
        start_side = x < thr if up else x >= thr
        half = (t[1] - t[0]) / 2 if t.size > 1 else 0
        if first:
            past = np.nonzero(~start_side)[0]
            return int(max(s[0], round(t[past[0]] - half))) if past.size else None
        idx = np.nonzero(start_side)[0]
        if idx.size == 0:
            return int(t[0])
        j = int(idx[-1]) + 1
        if j >= x.size:
            return None
        # the first raw step of that block: block centres are means, so step back half a block
        return int(max(s[0], round(t[j] - half)))

    def first_step(self) -> int:
        """First step of any canonical series (steps rise within a series: no union needed)."""
        firsts = [int(s.steps[0]) for s in self.run.series.values() if len(s)]
        return min(firsts) if firsts else 0

    def last_step(self) -> int:
        lasts = [int(s.steps[-1]) for s in self.run.series.values() if len(s)]
        return max(lasts) if lasts else 0

    def extra(self, *keys: str) -> Series | None:
        """A framework key kept in run.extras (first one found)."""
        for k in keys:
            if k in self.run.extras:
                return self.run.extras[k]
        return None
