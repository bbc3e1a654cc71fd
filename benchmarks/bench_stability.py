"""Does a growing run's verdict hold still?  Each run of each world read at K growing prefixes.

    python benchmarks/bench_stability.py [--worlds sim,rl,peers,real,corpus] [--seeds 5] [--prefixes 8]
                                         [--cache DIR] [--show N]

A run is diagnosed at K prefixes (its first 1/K, 2/K, ..., all of its step span) and the verdict
sequence read.  A change is counted between consecutive prefixes; the first prefixes, before the
goal has min_points points, say "learning, not shown yet" and are counted like any other.  The
issue's bar: at least 95% of the runs of every world change verdict at most once, none more than
twice.  Prints, per world, the share changing at most once, the most changes seen, how many healthy
runs warned at any of their prefixes (a live run alarmed for nothing), and (--show) the runs with
more than one change and their verdict sequence.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import worlds as W

_CASES: list = []


def _sequence(i: int, k: int) -> tuple[str, str, list[str], bool | None]:
    """(world, run, the verdict at each prefix, whether a healthy run warned at any prefix -- None
    when the run is not healthy)."""
    from rlvitals.diagnose import diagnose

    c = _CASES[i]
    try:
        run = c.load()
    except Exception as exc:  # an unreadable file is reported, not scored
        return c.label, c.name, [f"error:{type(exc).__name__}"], None
    if c.truth_from_run:
        c = W.with_truth(c, run.meta["truth"])
    s = run.steps
    if not len(s):
        return c.label, c.name, [], None
    first, last = int(s[0]), int(s[-1])
    cuts = sorted({first + round((last - first) * j / k) for j in range(1, k + 1)})
    ds = [diagnose(run.upto(step)) for step in cuts]
    warned = any(f.severity in W.SEVERE for d in ds for f in d.findings) if c.healthy else None
    return c.label, c.name, [d.verdict for d in ds], warned


def changes(seq: list[str]) -> int:
    return sum(a != b for a, b in zip(seq, seq[1:]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worlds", default=",".join(W.WORLDS))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--prefixes", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=None, help="simulated runs pickled here (see bench_worlds)")
    ap.add_argument("--show", type=int, default=10, help="list up to N runs with more than one change per world")
    a = ap.parse_args(argv)
    W.CACHE = a.cache
    t0 = time.perf_counter()
    for w in a.worlds.split(","):
        got = W.cases(w, seeds=a.seeds)
        # the corpus, one label per repository in bench_worlds, is one world here
        _CASES.extend(c if w != "corpus" else replace(c, variant="corpus") for c in got)
    ctx = mp.get_context("fork")
    work = [(i, a.prefixes) for i in range(len(_CASES))]
    with ctx.Pool(a.jobs) as pool:
        rows = pool.starmap(_sequence, work, chunksize=2)
    by: dict[str, list[tuple[str, list[str], bool | None]]] = defaultdict(list)
    for label, name, seq, warned in rows:
        by[label].append((name, seq, warned))
    print(f"verdict changes over {a.prefixes} growing prefixes ({len(rows)} runs, {time.perf_counter() - t0:.0f} s)")
    print(f"  {'world':<10} {'runs':>5} {'<=1 change':>11} {'max':>4} {'healthy warned at a prefix':>27}")
    for label, items in by.items():
        n = [changes(seq) for _, seq, _ in items]
        h = [w for _, _, w in items if w is not None]
        print(
            f"  {label:<10} {len(n):>5} {sum(x <= 1 for x in n) / len(n):>11.1%} {max(n):>4} {f'{sum(h)} / {len(h)}':>27}"
        )
    for label, items in by.items():
        many = [(name, seq) for name, seq, _ in items if changes(seq) > 1][: a.show]
        for name, seq in many:
            print(f"  {label}/{name}: " + " → ".join(seq))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
