"""How right the diagnosis is on each world, and with each world held out of calibration.

    python benchmarks/bench_worlds.py [--worlds sim,rl,peers,real] [--seeds 5] [--steps 300]
                                      [--calibrate] [--passes 1] [--jobs 2] [--show-misses]

For each world (benchmarks/worlds.py says what they are): the share of runs named right (verdict and
top finding, each also alone), warnings on healthy runs, and the misses.

--calibrate: the thresholds that carry a `grid` in rlvitals.diagnose.thresholds.TABLE are chosen by
coordinate descent (each in turn set to the grid value that maximises the objective, `--passes`
times) on a set of worlds, and scored on a world:
  * held out: for each world X, chosen on every world but X, scored on X (the honest number);
  * in sample: chosen on all worlds, scored on each (for comparison only);
  * as shipped: the table's own values.
Objective on a set of worlds: the mean over worlds of the share named right, minus twice the mean
share of healthy runs that drew a warning (a false alarm costs more than a late one).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from worlds import WORLDS, Case, Score, cases, score  # noqa: E402

_CASES: list[Case] = []
_RUNS: list = []


def _score_one(args: tuple[int, dict[str, float]]) -> tuple:
    """Score case i (in a worker: the runs were built before the fork); a picklable tuple back."""
    i, overrides = args
    if overrides:
        from rlvitals.diagnose import thresholds

        with thresholds.using(overrides):
            s = score(_CASES[i], _RUNS[i])
    else:
        s = score(_CASES[i], _RUNS[i])
    return s.ok_finding, s.ok_verdict, s.healthy_warning, s.got_finding, s.got_verdict, s.error


def evaluate(idx: list[int], overrides: dict[str, float], pool) -> list[Score]:
    work = [(i, overrides) for i in idx]
    rows = pool.map(_score_one, work, chunksize=8) if pool else [_score_one(w) for w in work]
    return [Score(_CASES[i], *row) for i, row in zip(idx, rows)]


def summarise(scores: list[Score]) -> dict[str, dict[str, float]]:
    by: dict[str, list[Score]] = defaultdict(list)
    for s in scores:
        by[s.case.world].append(s)
    out = {}
    for w, ss in by.items():
        healthy = [s for s in ss if s.case.healthy]
        out[w] = {
            "n": len(ss),
            "right": sum(s.ok for s in ss) / len(ss),
            "finding": sum(s.ok_finding for s in ss) / len(ss),
            "verdict": sum(s.ok_verdict for s in ss) / len(ss),
            "healthy": len(healthy),
            "healthy_warn": sum(s.healthy_warning for s in healthy),
        }
    return out


def objective(summary: dict[str, dict[str, float]]) -> float:
    if not summary:
        return 0.0
    acc = sum(v["right"] for v in summary.values()) / len(summary)
    fa = sum(v["healthy_warn"] / max(v["healthy"], 1) for v in summary.values()) / len(summary)
    return acc - 2.0 * fa


def calibrate(idx: list[int], grid: dict[str, tuple[float, ...]], start: dict[str, float], passes: int,
              pool) -> tuple[dict[str, float], float]:
    """Coordinate descent over the grid thresholds on the cases `idx`; returns (values, objective)."""
    current = dict(start)
    best = objective(summarise(evaluate(idx, current, pool)))
    for _ in range(passes):
        changed = False
        for name, values in grid.items():
            for v in values:
                if v == current[name]:
                    continue
                trial = {**current, name: v}
                obj = objective(summarise(evaluate(idx, trial, pool)))
                if obj > best + 1e-9:
                    best, current, changed = obj, trial, True
        if not changed:
            break
    return current, best


def table(title: str, summary: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    print(f"  {'world':<7} {'runs':>5} {'right':>7} {'finding':>8} {'verdict':>8} {'healthy warned':>15}")
    for w in WORLDS:
        if w in summary:
            v = summary[w]
            print(f"  {w:<7} {int(v['n']):>5} {v['right']:>7.1%} {v['finding']:>8.1%} {v['verdict']:>8.1%} "
                  f"{int(v['healthy_warn']):>7} / {int(v['healthy']):<5}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worlds", default=",".join(WORLDS))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=300, help="steps of each RL-loop run")
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show-misses", action="store_true")
    a = ap.parse_args(argv)

    t0 = time.perf_counter()
    worlds = [w for w in a.worlds.split(",") if w]
    for w in worlds:
        got = cases(w, seeds=a.seeds, steps=a.steps)
        if not got:
            print(f"world {w}: not available here (no runs found) — not scored")
        _CASES.extend(got)
    for c in _CASES:
        try:
            _RUNS.append(c.load())
        except Exception as exc:  # scored as a miss by score(); the reason is shown with the misses
            _RUNS.append(None)
            print(f"  cannot read {c.world}/{c.name}: {type(exc).__name__}: {exc}"[:160])
    print(f"{len(_CASES)} runs built in {time.perf_counter() - t0:.1f} s")

    ctx = mp.get_context("fork")
    pool = ctx.Pool(a.jobs) if a.jobs > 1 else None
    every = list(range(len(_CASES)))
    shipped = evaluate(every, {}, pool)
    table("As shipped (the table's own values)", summarise(shipped))
    if a.show_misses:
        for s in shipped:
            if not s.ok or s.healthy_warning:
                want = "/".join(str(f) for f in s.case.findings)
                print(f"  miss {s.case.world}/{s.case.name}: want {'/'.join(s.case.verdicts)} {want}, "
                      f"got {s.got_verdict} {s.got_finding} {s.error}")

    if a.calibrate:
        try:
            from rlvitals.diagnose import thresholds
        except ImportError:
            print("\nno threshold table (rlvitals.diagnose.thresholds): nothing to calibrate")
            return 0
        grid = {k: t.grid for k, t in thresholds.TABLE.items() if t.grid}
        start = {k: thresholds.TABLE[k].value for k in grid}
        print(f"\ncalibrating {len(grid)} thresholds: {', '.join(grid)}")
        present = sorted({c.world for c in _CASES}, key=WORLDS.index)
        held: dict[str, dict[str, float]] = {}
        for w in present:
            train = [i for i, c in enumerate(_CASES) if c.world != w]
            test = [i for i, c in enumerate(_CASES) if c.world == w]
            values, obj = calibrate(train, grid, start, a.passes, pool)
            held.update(summarise(evaluate(test, values, pool)))
            moved = {k: v for k, v in values.items() if v != start[k]}
            print(f"  without {w}: objective {obj:.3f}; moved {moved or 'nothing'}")
        table("Held out (chosen without the world, scored on it)", held)
        values, obj = calibrate(every, grid, start, a.passes, pool)
        table("In sample (chosen on all worlds; for comparison)", summarise(evaluate(every, values, pool)))
        print(f"  values chosen on all worlds: {values}")
    if pool:
        pool.close()
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
