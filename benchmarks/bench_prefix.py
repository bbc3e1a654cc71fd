"""How soon does the diagnosis of a growing prefix name a failure? (a script, not a test)

    python benchmarks/bench_prefix.py [--engine sim|rl|both] [--seeds 5] [--steps 200] [--every 0.01]
                                      [--scenario NAME ...]

For every simulated scenario x seed (`--engine sim`: the first simulator, seeds 0..N-1; `rl`: the
RL-loop simulator, seeds 1000..1000+N-1 as in bench_worlds/bench_watch; `both`), `diagnose(run.upto(step))` is called on prefixes growing by
`--every` of the run (1% by default).  For a failing scenario the delay is measured from the true
onset (`run.meta["truth"]["onset_step"]`) to the first prefix whose warning-or-critical findings
include the right one, as a fraction of the run; info-level truths (batch_noise, plateau) are
not scored for delay.  For a healthy scenario every prefix that warns is counted (target: none); for a learning scenario
with an info-level truth (batch_noise, plateau) every prefix whose verdict is not `learning`.
A warning that names a *different* finding before the right one is counted as a wrong early alarm.

Targets (issue 9): delay median <= 5% of the run, worst <= 15%, no healthy prefix warns.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

import numpy as np

from rlvitals.diagnose import diagnose
from rlvitals.simulate import SCENARIOS as SIM_SCENARIOS
from rlvitals.simulate import simulate

WARN = ("warning", "critical")


def prefix_steps(run, every: float) -> list[int]:
    s = run.steps
    first, last = int(s[0]), int(s[-1])
    k = max(1, round(every * (last - first)))
    return list(range(first + k, last + 1, k)) + ([last] if (last - first) % k else [])


def engines(which: str) -> dict:
    """{engine: (make(name, seed, steps) -> Run, {name: scenario with .finding/.severity})}."""
    out: dict = {}
    if which in ("sim", "both"):
        out["sim"] = (lambda n, seed, steps: simulate(n, seed=seed, steps=steps), SIM_SCENARIOS)
    if which in ("rl", "both"):
        from rlvitals.simulate.rlloop import SCENARIOS as RL_SCENARIOS
        from rlvitals.simulate.rlloop import simulate_rl

        out["rl"] = (lambda n, seed, steps: simulate_rl(n, seed=1000 + seed, steps=steps), RL_SCENARIOS)
    return out


def scan(run, every: float) -> dict:
    truth = run.meta["truth"]
    want, onset = truth["finding"], truth["onset_step"]
    span = max(int(run.steps[-1] - run.steps[0]), 1)
    out = {"delay": None, "healthy_warns": 0, "wrong_first": None, "prefixes": 0}
    info = want is not None and truth["severity"] == "info"
    for step in prefix_steps(run, every):
        d = diagnose(run.upto(step))
        out["prefixes"] += 1
        warned = [f for f in d.findings if f.severity in WARN]
        if info:  # a learning run (small-batch noise, a plateau): any warning that turns the verdict
            bad = [f for f in warned if d.verdict != "learning"]
            out["healthy_warns"] += bool(bad)
            if bad and out["wrong_first"] is None:
                out["wrong_first"] = (step, bad[0].id)
            continue
        if want is None:
            out["healthy_warns"] += bool(warned)
            if warned and out["wrong_first"] is None:
                out["wrong_first"] = (step, warned[0].id)
            continue
        if warned and want not in {f.id for f in warned} and out["wrong_first"] is None:
            out["wrong_first"] = (step, warned[0].id)
        if want in {f.id for f in warned}:
            out["delay"] = max(0, step - (onset if onset is not None else int(run.steps[0]))) / span
            break
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=("sim", "rl", "both"), default="sim")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--every", type=float, default=0.01)
    ap.add_argument("--scenario", nargs="*", default=None)
    args = ap.parse_args()
    t0 = time.perf_counter()
    delays: list[float] = []
    per: dict[tuple[str, str], list] = defaultdict(list)
    kinds: dict[tuple[str, str], bool] = {}  # (engine, name) -> scored for delay
    healthy_warns = 0
    missed = 0
    for eng, (make, scenarios) in engines(args.engine).items():
        for name in args.scenario or list(scenarios):
            if name not in scenarios:
                continue
            sc = scenarios[name]
            kinds[eng, name] = not (sc.finding is None or sc.severity == "info")
            for seed in range(args.seeds):
                r = scan(make(name, seed, args.steps), args.every)
                if not kinds[eng, name]:
                    healthy_warns += r["healthy_warns"]
                    per[eng, name].append(("warns", r["healthy_warns"], r["wrong_first"]))
                elif r["delay"] is None:
                    missed += 1
                    per[eng, name].append(("missed", None, r["wrong_first"]))
                else:
                    delays.append(r["delay"])
                    per[eng, name].append(("delay", r["delay"], r["wrong_first"]))
    dt = time.perf_counter() - t0
    print(
        f"== prefix delays ({args.engine}): {len(kinds)} scenarios x {args.seeds} seeds x {args.steps} steps, "
        f"prefixes every {args.every:.0%} ({dt:.1f} s)"
    )
    for (eng, name), rows in per.items():
        label = f"{eng}/{name}"
        if not kinds[eng, name]:
            n = sum(r[1] for r in rows)
            firsts = [r[2] for r in rows if r[2]]
            print(f"  {label:<26} healthy prefixes that warn: {n}" + (f"  first: {firsts[:3]}" if firsts else ""))
        else:
            ds = [r[1] for r in rows if r[0] == "delay"]
            miss = sum(r[0] == "missed" for r in rows)
            wrong = [r[2] for r in rows if r[2]]
            txt = f"median {100 * np.median(ds):.1f}% worst {100 * max(ds):.1f}%" if ds else "never named"
            print(
                f"  {label:<26} {txt}"
                + (f", missed {miss}" if miss else "")
                + (f", wrong early alarms {len(wrong)} e.g. {wrong[0]}" if wrong else "")
            )
    med = float(np.median(delays)) if delays else float("nan")
    worst = float(max(delays)) if delays else float("nan")
    print(
        f"  delay onset -> first warning naming the failure: median {100 * med:.1f}%, worst {100 * worst:.1f}% "
        f"of the run; missed {missed}; healthy prefixes that warn: {healthy_warns}"
    )
    ok = delays and med <= 0.05 and worst <= 0.15 and missed == 0 and healthy_warns == 0
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
