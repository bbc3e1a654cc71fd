"""Read speed and memory on the lines real runs write, every text format, against two yardsticks.

    python benchmarks/bench_read.py                          # 100,000 and 1,000,000 steps, every format
    python benchmarks/bench_read.py --steps 100000 --formats lesson,jsonl --spellings sci
    python benchmarks/bench_read.py --with-5m                # adds 5,000,000 steps (minutes, GBs of disk)
    python benchmarks/bench_read.py --skip-baseline          # not the (slow) lesson parser
    python benchmarks/bench_read.py --repeat 3 --logs /tmp/logs --json out.json   # medians; logs kept
    python benchmarks/bench_read.py --steps 1000000 --against ../main/src   # another rlvitals, in turn

The logs are the simulator's healthy run written by rlvitals' own writers, as each framework
prints it (`rlvitals simulate -F FMT`): the lesson's `%g` numbers (`lr=3.33333e-10`, `kl=9.5e-05`),
verl's `np.float64(repr)` behind a coloured Ray prefix, TRL's dicts between tqdm bars, JSONL and CSV
with Python's `repr`. Every text format gets a tqdm bar or a warning between ~5% of its lines where
the format has noise (lesson, verl). `--spellings plain` writes the same numbers in plain decimals
(`%.12f`), so the two rows show whether speed depends on the spelling.

Each measurement is its own process (peak memory is that reader's alone); CPU seconds are the
figure (the machine is shared; wall time is printed too), the median of `--repeat` runs, each
run of a row taken in turn with its yardsticks (so a change of the machine's load hits all three).
`--logs DIR` writes the logs there once and reuses them (to measure two versions of rlvitals on
the very same files: run it again with another PYTHONPATH, or give `--against SRC`: each read is then
measured with that checkout's `src` too, right after this one's, and the ratio printed -- on a
shared machine, the one comparison that holds). Two yardsticks per row:

- naive: the lesson's own parser (`lesson_baseline.py`) on the lesson log of the same run and
  spelling -- what reading these steps costs the naive way (it reads only the lesson format);
- floor: a Python loop that splits every line of this very file (`for line in f: line.split()`).

Targets (issue 21): 1M steps, scientific notation in every line: >= 20x naive, <= 3x the floor,
peak <= 250 MB, the same within 20% in every format; 5M steps < 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FORMATS = ("lesson", "verl-console", "trl-console", "jsonl", "csv")
_SCI = re.compile(rb"(?<![\w.])(-?\d+(?:\.\d+)?[eE][-+]?\d+)")
_NOISE = [
    b"Training Progress:  12%|##        | 120/1000 [00:59<07:11,  2.04it/s]",
    b"WARNING: rank 3 grad_norm is not finite, skipping",
    b"Saving checkpoint to ckpt/global_step",
]


def generate(steps: int, out: Path, formats: list[str], spellings: list[str]) -> None:
    """Write `{fmt}.{spelling}` logs of one simulated healthy run into `out` (run in a child process,
    so the parent stays small and each reader's peak is its own)."""
    from rlvitals.ingest import write_run
    from rlvitals.simulate import simulate

    run = simulate("healthy", seed=0, steps=steps)
    for fmt in formats:
        sci = out / f"{fmt}.sci"
        write_run(run, fmt, sci)
        if fmt in ("lesson", "verl-console"):
            _add_noise(sci, colour=fmt == "verl-console")
        if "plain" in spellings:
            with open(sci, "rb") as src, open(out / f"{fmt}.plain", "wb") as dst:
                for line in src:
                    dst.write(_SCI.sub(lambda m: b"%.12f" % float(m.group(1)), line))
        if "sci" not in spellings:
            sci.unlink()


def _add_noise(path: Path, colour: bool) -> None:
    tmp = path.with_suffix(".tmp")
    with open(path, "rb") as src, open(tmp, "wb") as dst:
        for i, line in enumerate(src):
            if i % 20 == 7:
                dst.write(_NOISE[i % 3] + b"\n")
            if colour and line.startswith(b"(TaskRunner"):
                line = b"\x1b[36m(TaskRunner pid=46086)\x1b[0m" + line[len(b"(TaskRunner pid=46086)") :]
            dst.write(line)
    tmp.replace(path)


_CHILD = r"""
import json, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
kind, path = sys.argv[1], sys.argv[2]
if kind == "naive":
    sys.path.insert(0, sys.argv[3])
    import lesson_baseline
    n = len(lesson_baseline.parse(path))
elif kind == "floor":
    n = 0
    with open(path, "rb") as f:
        for line in f:
            n += len(line.split()) > 0
else:
    from rlvitals.ingest import read
    run = read(path, sys.argv[3])
    n = max(len(s) for s in run.series.values())
dt, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"wall": dt, "cpu": cpu, "rows": n,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(kind: str, path: Path, arg: str = "", src: Path | None = None) -> dict:
    env = None if src is None else {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, str(path), arg or str(HERE)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def median_of(runs: list[dict]) -> dict:
    """Each figure's median over the runs (the peak is the largest: memory is not noisy)."""
    out = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    out["peak_mb"] = max(r["peak_mb"] for r in runs)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", default="100000,1000000", help="comma-separated step counts")
    ap.add_argument("--with-5m", action="store_true", help="also 5,000,000 steps (minutes; ~1-2 GB of logs)")
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--spellings", default="sci,plain", help="sci (as the writers print), plain (%%.12f)")
    ap.add_argument("--skip-baseline", action="store_true", help="do not run the lesson's (slow) parser")
    ap.add_argument("--md", action="store_true", help="print the table as Markdown too")
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement; the median is shown")
    ap.add_argument("--logs", type=Path, default=None, help="write the logs here once and reuse them")
    ap.add_argument("--json", type=Path, default=None, help="write the rows here as JSON")
    ap.add_argument("--against", type=Path, default=None, help="another checkout's src/: each read measured in turn")
    args = ap.parse_args(argv)
    counts = [int(s) for s in args.steps.split(",")] + ([5_000_000] if args.with_5m else [])
    formats, spellings = args.formats.split(","), args.spellings.split(",")
    rows = []
    for steps in counts:
        with tempfile.TemporaryDirectory() as scratch:
            tmp = str(args.logs / str(steps)) if args.logs else scratch
            Path(tmp).mkdir(parents=True, exist_ok=True)
            t = time.perf_counter()
            need = sorted(set(formats) | ({"lesson"} if not args.skip_baseline else set()))
            need = [f for f in need if not all((Path(tmp) / f"{f}.{sp}").exists() for sp in spellings)]
            if need:
                code = (
                    f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_read as b; "
                    f"b.generate({steps}, b.Path({tmp!r}), {need!r}, {spellings!r})"
                )
                subprocess.run([sys.executable, "-c", code], check=True)
                print(f"# {steps:,} steps: logs written in {time.perf_counter() - t:.0f} s", flush=True)
            for spelling in spellings:
                naive = None
                if not args.skip_baseline:
                    naive = median_of([measure("naive", Path(tmp) / f"lesson.{spelling}") for _ in range(args.repeat)])
                    print(
                        f"  naive    lesson {spelling:5s}: {naive['cpu']:.2f} s CPU, peak {naive['peak_mb']:.0f} MB",
                        flush=True,
                    )
                for fmt in formats:
                    path = Path(tmp) / f"{fmt}.{spelling}"
                    pairs = [
                        (
                            measure("floor", path),
                            measure("read", path, fmt),
                            measure("read", path, fmt, args.against) if args.against else None,
                        )
                        for _ in range(args.repeat)
                    ]
                    floor, ours = median_of([p[0] for p in pairs]), median_of([p[1] for p in pairs])
                    theirs = median_of([p[2] for p in pairs if p[2]]) if args.against else None
                    row = {
                        "steps": steps,
                        "format": fmt,
                        "spelling": spelling,
                        "mb": path.stat().st_size / 1e6,
                        "cpu": ours["cpu"],
                        "wall": ours["wall"],
                        "peak": ours["peak_mb"],
                        "read": ours["rows"],
                        "floor": floor["cpu"],
                        "naive": naive["cpu"] if naive else None,
                    }
                    if theirs is not None:  # each pair's ratio, then their median: the load moves both
                        row["against_cpu"], row["against_peak"] = theirs["cpu"], theirs["peak_mb"]
                        row["ratio_vs"] = statistics.median(p[1]["cpu"] / p[2]["cpu"] for p in pairs if p[2])
                    rows.append(row)
                    ratio = f"{row['naive'] / row['cpu']:5.1f}x naive" if naive else "   -  naive"
                    print(
                        f"  rlvitals {fmt:12s} {spelling:5s} {row['mb']:6.0f} MB: {row['cpu']:6.2f} s CPU "
                        f"({row['wall']:.2f} wall), peak {row['peak']:5.0f} MB, {ratio}, "
                        f"{row['cpu'] / row['floor']:4.1f}x floor ({row['floor']:.2f} s), {row['read']:,} steps",
                        flush=True,
                    )
                    if theirs is not None:
                        print(
                            f"    against {args.against}: {theirs['cpu']:6.2f} s CPU, peak {theirs['peak_mb']:5.0f} MB; "
                            f"this one / that one: {row['ratio_vs']:.2f} in CPU (median of the pairs)",
                            flush=True,
                        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.md:
        print("\n| steps | format | numbers | MB | rlvitals CPU s | peak MB | × naive | × floor |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            nv = f"{r['naive'] / r['cpu']:.1f}×" if r["naive"] else "—"
            print(
                f"| {r['steps']:,} | {r['format']} | {r['spelling']} | {r['mb']:.0f} | {r['cpu']:.2f} | "
                f"{r['peak']:.0f} | {nv} | {r['cpu'] / r['floor']:.1f}× |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
