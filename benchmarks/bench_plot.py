"""Speed of the figure on a long run, and of the TensorBoard reader.  A script, not a test.

    python benchmarks/bench_plot.py                 # every measurement, one line each
    python benchmarks/bench_plot.py --only plot     # one of: plot, exact, envelope, tensorboard
    python benchmarks/bench_plot.py --steps 200000  # a shorter run

Each measurement runs in its own process so that its peak RSS is its own.  Targets:
plot of 1,000,000 steps × 10 metrics < 5 s; TensorBoard read of 100,000 scalars < 0.58 s (the
dependency-free reader in ecosystem-notes.md).  "exact" draws the same run undecimated (matplotlib's
own path simplification only) and reports how many pixels the min/max envelope changes.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEASUREMENTS = ("plot", "exact", "envelope", "tensorboard")
METRICS = ("reward", "acc", "entropy", "kl", "adv_std", "clip_frac", "ratio_mean", "len", "gnorm", "trunc")


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def long_run(steps: int, seed: int = 0):
    """A run of `steps` steps of the ten plotted metrics: noisy trends, a few spikes, a few NaN."""
    from rlvitals.run import Run

    rng = np.random.default_rng(seed)
    f = np.linspace(0.0, 1.0, steps)
    trend = {
        "reward": 0.4 + 0.4 * (1 - np.exp(-3 * f)),
        "acc": 0.2 + 0.37 * f,
        "entropy": 1.8 - 0.4 * f,
        "kl": 0.002 + 0.05 * f**1.5,
        "adv_std": 1.03 - 0.4 * f,
        "clip_frac": 0.04 * f,
        "ratio_mean": np.ones(steps),
        "len": 78 + 74 * f,
        "gnorm": np.full(steps, 0.8),
        "trunc": 0.02 + 0.01 * f,
    }
    noise = {"ratio_mean": 1e-4, "len": 5.0, "kl": 0.002}
    cols = {}
    for m in METRICS:
        v = trend[m] + rng.normal(0.0, noise.get(m, 0.03), steps)
        spikes = rng.integers(0, steps, 5)
        v[spikes] += 10 * np.abs(v[spikes]) + 1  # a handful of one-step spikes that must stay visible
        v[rng.integers(0, steps, 3)] = np.nan
        cols[m] = v
    return Run.from_arrays(f"bench-{steps}", np.arange(steps), cols, format="memory")


class Clock:
    """Wall and CPU seconds of a block: on a shared machine the CPU time is the steadier number."""

    def __enter__(self) -> Clock:
        self.w, self.c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall, self.cpu = time.perf_counter() - self.w, time.process_time() - self.c

    def __str__(self) -> str:
        return f"{self.wall:.2f} s (cpu {self.cpu:.2f} s)"


def measure_plot(steps: int, max_points: int, out: Path) -> Clock:
    from rlvitals.render.plot import plot

    run = long_run(steps)
    with Clock() as clock:
        plot(run, out, max_points=max_points)
    return clock


def main_one(name: str, steps: int) -> str:
    tmp = Path(tempfile.mkdtemp(prefix="rlvitals-bench-"))
    if name == "plot":
        clock = measure_plot(steps, 2000, tmp / "curves.png")
        verdict = "ok" if clock.wall < 5 or steps < 1_000_000 else "SLOW (target < 5 s)"
        return (
            f"plot: {steps:,} steps x 10 metrics, max_points=2000: {clock}, peak RSS {peak_mib():.0f} MiB  [{verdict}]"
        )
    if name == "exact":
        from matplotlib.image import imread

        clock = measure_plot(steps, 0, tmp / "exact.png")
        measure_plot(steps, 2000, tmp / "decimated.png")
        a, b = imread(tmp / "exact.png"), imread(tmp / "decimated.png")
        differ = 100.0 * float(np.mean(np.any(a != b, axis=-1)))
        return (
            f"exact: {steps:,} steps x 10 metrics, no decimation: {clock}, peak RSS {peak_mib():.0f} MiB; "
            f"min/max envelope changes {differ:.2f}% of pixels"
        )
    if name == "envelope":
        from rlvitals.render.plot import envelope

        run = long_run(steps)
        s = run.series["reward"]
        with Clock() as clock:
            x, _ = envelope(s.steps, s.values, 2000)
        return f"envelope: {steps:,} points -> {x.size} in {clock.wall * 1000:.0f} ms (cpu {clock.cpu * 1000:.0f} ms)"
    if name == "tensorboard":
        from rlvitals.ingest.tensorboard import iter_scalars, write_scalars

        n = 100_000
        rng = np.random.default_rng(1)
        tags = ("actor/entropy", "critic/score/mean", "response_length/mean", "actor/pg_clipfrac", "actor/grad_norm")
        records = [(tags[i % 5], i // 5, float(v)) for i, v in enumerate(rng.normal(size=n))]
        with Clock() as write:
            path = write_scalars(tmp, records)
        with Clock() as read:
            got = sum(1 for _ in iter_scalars(path))
        assert got == n, (got, n)
        return (
            f"tensorboard: {n:,} scalars ({path.stat().st_size / 2**20:.1f} MiB): read {read} "
            f"(bar 0.58 s), write {write}, peak RSS {peak_mib():.0f} MiB"
        )
    raise SystemExit(f"unknown measurement {name!r}; one of {', '.join(MEASUREMENTS)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=MEASUREMENTS, help="run one measurement in this process")
    ap.add_argument("--steps", type=int, default=1_000_000, help="steps of the plotted run (default 1,000,000)")
    args = ap.parse_args()
    if args.only:
        print(main_one(args.only, args.steps), flush=True)
        return 0
    status = 0
    for name in MEASUREMENTS:
        r = subprocess.run([sys.executable, __file__, "--only", name, "--steps", str(args.steps)])
        status |= r.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
