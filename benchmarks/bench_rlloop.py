"""Speed of the RL-loop engine: every scenario x 1 seed x 300 steps.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_rlloop.py [--steps 300] [--seed 0] [--workers 2]

Prints wall and CPU seconds per scenario (one process), the total, and the wall time of the whole
set spread over `--workers` processes.  Target: the whole set in a few seconds on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

from rlvitals.simulate.rlloop import SCENARIOS, simulate_rl


def one(args: tuple[str, int, int]) -> tuple[str, float, float]:
    name, seed, steps = args
    w, c = time.perf_counter(), time.process_time()
    simulate_rl(name, seed=seed, steps=steps)
    return name, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    jobs = [(n, a.seed, a.steps) for n in SCENARIOS]
    one(jobs[0])  # warm the imports
    tw = tc = 0.0
    for job in jobs:
        name, w, c = one(job)
        tw += w
        tc += c
        print(f"{name:24s} wall {w:6.3f} s   cpu {c:6.3f} s")
    print(f"{'total (1 process)':24s} wall {tw:6.3f} s   cpu {tc:6.3f} s   ({len(jobs)} scenarios x {a.steps} steps)")
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=a.workers) as ex:
        list(ex.map(one, jobs))
    print(
        f"{'total (' + str(a.workers) + ' processes)':24s} wall {time.perf_counter() - t0:6.3f} s   "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
