"""When to re-diagnose a growing run: one scheduler for `rlvitals watch` and `Monitor`.

A diagnosis costs O(steps), so it cannot run on every line of a long run; but an alarm is only as
early as the check that raises it.  The cadence therefore follows the run's own steps, and a CPU
budget spaces checks when they get expensive:

1. **Steps.**  A check is due once `every` new steps have arrived, where
   `every = max(min_every, ceil(fraction × steps seen at the last check))`: every step early on (default
   `min_every=1`), then about 1% of the run (every 10 steps at step 1,000, every 100 at 10,000).
   A delay of one cadence is then at most ~1% of the run: the alarm's delay is the diagnosis' own.
2. **Hard signals.**  A NaN/inf or a huge spike (a value more than `SPIKE_K` robust scales away from
   its running level) makes a check due at once, whatever the cadence; at most one such extra check
   per cadence period, so a metric that spikes on every line cannot turn the cadence off.
3. **CPU budget.**  A token bucket: CPU credit accrues at `max_overhead` (1%) of the wall time, up
   to `burst` seconds (default 1 s); a check runs only with credit left and spends its own cost.
   Over any long stretch checks take at most 1% of the wall time; a short fast stretch (a log
   replayed at 80 lines a second, the first minutes of a run) may spend the burst and be checked
   on its step cadence.  (burst=0: the wall time since the last check must be at least its
   cost / max_overhead.)  When `step_budget` is set (Monitor checking inside `log()`: 0.5 ms), at
   least `cost / step_budget` steps must also have arrived (the amortised cost per logged step
   stays under it however fast the loop).
4. **Trickle.**  Steps arriving slower than the cadence are checked anyway after `max_wait` seconds.
5. **A pending warning.**  When the last check named a warning that needs a second sighting
   (`AlertTracker`), the owner sets `soon` (its `confirm_steps`): the next check is due after that
   many new steps instead of a whole cadence period, so on a long run the confirmation costs two
   steps, not 1% of the run.

`note(n, hard)` tells it new steps arrived; `due()` asks; `ran(cost, steps)` records a check.
The clock is injectable (tests and benchmarks run on simulated time).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["SPIKE_K", "Scheduler", "SpikeWatch"]

# A value this many robust scales (EWMA of the absolute deviation) from its EWMA level is a spike.
SPIKE_K = 12.0
SPIKE_WARMUP = 8  # observations of a key before spikes in it count
SPIKE_ALPHA = 0.1  # EWMA weight of the newest observation
SPIKE_SHIFT = 3  # this many spikes in a row are a new level, not spikes: the level moves there


@dataclass
class Scheduler:
    """Decides when the next diagnosis runs (see the module docstring)."""

    min_every: int = 1
    fraction: float = 0.01
    max_overhead: float = 0.01
    step_budget: float = 0.0
    max_wait: float = 30.0
    burst: float = 1.0
    clock: Callable[[], float] = time.monotonic
    soon: int = 0  # > 0: a check is due after this many new steps (a warning awaits confirmation)
    pending: int = 0  # steps arrived since the last check
    hard: bool = False  # a hard signal arrived since the last check
    seen: int = 0  # steps arrived in all
    seen_at_check: int = 0
    last_cost: float = 0.0
    last_check: float = field(default=0.0)
    _hard_used: bool = False
    _credit: float = 0.0
    _credit_at: float = 0.0

    def __post_init__(self) -> None:
        self.min_every = max(1, int(self.min_every))
        self.last_check = self._credit_at = self.clock()
        self._credit = self.burst

    def credit(self) -> float:
        """CPU seconds the next checks may spend now (negative: in debt after an expensive one)."""
        return min(self.burst, self._credit + self.max_overhead * (self.clock() - self._credit_at))

    def note(self, steps: int = 1, hard: bool = False) -> None:
        """`steps` new steps arrived; `hard`: one of them carries a NaN/inf or a huge spike."""
        self.pending += steps
        self.seen += steps
        self.hard = self.hard or hard

    @property
    def every(self) -> int:
        """New steps needed before the next regular check."""
        k = max(self.min_every, math.ceil(self.fraction * self.seen_at_check))
        if self.soon > 0:
            k = min(k, max(self.min_every, self.soon))
        if self.step_budget > 0:
            k = max(k, int(self.last_cost / self.step_budget))
        return k

    def due(self) -> bool:
        if self.pending == 0:
            return False
        if self.hard and not self._hard_used:
            return True
        if self.max_overhead > 0 and self.credit() < 0:
            return False
        return self.pending >= self.every or self.clock() - self.last_check >= self.max_wait

    def ran(self, cost: float, taken: int | None = None) -> None:
        """A check just ran and took `cost` seconds (CPU).  `taken`: the pending steps it saw, when
        more may have arrived while it ran (a check on another thread); default: all of them."""
        taken = self.pending if taken is None else min(taken, self.pending)
        was_hard = self.hard and taken < self.every
        self._hard_used = was_hard
        self.pending -= taken
        self.hard = False
        self.seen_at_check = self.seen - self.pending
        self.last_cost = cost
        self._credit = self.credit() - cost
        self.last_check = self._credit_at = self.clock()

    def quiet_for(self) -> float:
        """Seconds since the last check."""
        return self.clock() - self.last_check

    def reset(self) -> None:
        """A new run begins (the file was truncated)."""
        self.pending = self.seen = self.seen_at_check = 0
        self.hard = self._hard_used = False
        self.soon = 0
        self.last_cost = 0.0
        self.last_check = self._credit_at = self.clock()
        self._credit = self.burst


class SpikeWatch:
    """Running level and scale per key; says when a value is non-finite or a huge spike."""

    __slots__ = ("_state", "k")

    def __init__(self, k: float = SPIKE_K) -> None:
        self.k = k
        self._state: dict[str, list[float]] = {}

    def __call__(self, key: str, x: float) -> bool:
        if not math.isfinite(x):
            return True
        st = self._state.get(key)
        if st is None:
            self._state[key] = [x, 0.0, 1.0, 0.0]
            return False
        mean, dev, n, run = st
        d = abs(x - mean)
        spike = n >= SPIKE_WARMUP and d > self.k * max(dev, 1e-3 * abs(mean), 1e-12)
        if not spike:  # a spike does not move the level it is measured against
            st[0] = mean + SPIKE_ALPHA * (x - mean)
            st[1] = dev + SPIKE_ALPHA * (d - dev)
            st[3] = 0.0
        elif run + 1 >= SPIKE_SHIFT:
            # a step change (entropy 1.5 -> 0.05 and staying there) is one hard signal, not one per
            # cadence period for the rest of the run: the level moves to it
            st[0], st[3] = x, 0.0
        else:
            st[3] = run + 1
        st[2] = n + 1
        return spike

    def reset(self) -> None:
        self._state.clear()
