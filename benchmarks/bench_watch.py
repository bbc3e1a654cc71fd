"""How fast `rlvitals watch` raises the alarm, how quiet it stays on healthy runs, what it costs.

    python benchmarks/bench_watch.py                 # every scenario x 20 seeds, CPU, Monitor cost
    python benchmarks/bench_watch.py --seeds 3 --skip-cpu

1. Detection delay.  Every simulated scenario x N seeds is written in a line-based log format
   (`write_run`, default: the lesson's format when it exists) and streamed line by line through
   `rlvitals.watch.Watcher`, the object `rlvitals watch` runs: format sniffing, the incremental
   parser, the check cadence, the real `diagnose`, the two-check persistence, the 1% CPU cap.  The
   clock advances one second per line (`--step-seconds`: a trainer logging once a second, faster
   than real RL steps), so the time-based rules act as they would.
   Per scenario: how many runs alerted the expected finding, the delay in steps from the true onset
   to that alert (median, worst), runs whose first alert named another finding, and whether the
   first alert names the offline diagnosis' top finding of the whole log.  Scenarios that should
   stay silent (healthy*, and the info-only ones: batch_noise, plateau) must raise no alert at all.
2. CPU.  A child `rlvitals watch` follows a file that grows by one line a second; its CPU time
   (utime+stime from /proc) over the measuring window, as a share of one core.
3. Monitor.  Cost per `Monitor.log` step, amortised, with the default cadence and with log only.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from rlvitals.diagnose import diagnose  # noqa: E402
from rlvitals.ingest import FORMATS, WRITABLE, read_text, write_run  # noqa: E402
from rlvitals.simulate import SCENARIOS, simulate  # noqa: E402
from rlvitals.watch import Monitor, Watcher  # noqa: E402

PREFERRED = ("lesson", "verl-console", "verl-jsonl", "jsonl", "openrlhf", "primerl-console")


def stream_format() -> str:
    line_based = [n for n in WRITABLE if FORMATS[n].parser is not None]
    for name in PREFERRED:
        if name in line_based:
            return name
    if not line_based:
        sys.exit("no line-based writable log format is registered yet")
    return line_based[0]


def silent_expected(name: str) -> bool:
    sc = SCENARIOS[name]
    return sc.finding is None or sc.severity == "info"


def one_run(args: tuple[str, int, int, str, float]) -> dict:
    """Stream one simulated run through a Watcher; what it alerted, when, and the offline answer."""
    name, seed, steps, fmt, step_seconds = args
    run = simulate(name, seed=seed, steps=steps)
    truth = run.meta["truth"]
    buf = io.StringIO()
    write_run(run, fmt, buf)
    text = buf.getvalue()
    now = [0.0]

    def clock() -> float:
        return now[0]

    w = Watcher(name=name, clock=clock)
    alerts = []
    t0 = time.process_time()
    for line in text.splitlines():
        now[0] += step_seconds
        w.feed([line])
        alerts += w.check()
    # the trainer is done and the log goes quiet: after max_wait the watcher takes a last look
    now[0] += w.max_wait
    alerts += w.check()
    cpu = time.process_time() - t0
    offline = diagnose(read_text(text, fmt, name))
    top = offline.top
    top_id = top.id if top is not None and top.severity != "info" else None
    return {
        "scenario": name, "seed": seed, "truth": truth,
        "alerts": [(a.id, a.severity, a.step) for a in alerts],
        "offline_top": top_id, "checks": w.checks, "errors": len(w.errors), "cpu": cpu,
        "lines": len(text.splitlines()),
    }


def delay_table(results: list[dict]) -> None:
    by: dict[str, list[dict]] = {}
    for r in results:
        by.setdefault(r["scenario"], []).append(r)
    print("\n## Detection delay (steps after the true onset), line by line through Watcher\n")
    print("| scenario | expected | runs | alerted it | median delay | worst delay | other alert first "
          "| first alert = offline top |")
    print("|---|---|---|---|---|---|---|---|")
    silent_rows = []
    all_delays = []
    for name in SCENARIOS:
        rs = by.get(name, [])
        if not rs:
            continue
        sc = SCENARIOS[name]
        if silent_expected(name):
            loud = [r for r in rs if r["alerts"]]
            silent_rows.append((name, len(rs), len(loud), sorted({a[0] for r in loud for a in r["alerts"]})))
            continue
        delays, hit, other_first, agree = [], 0, 0, 0
        for r in rs:
            onset = r["truth"]["onset_step"] or 0
            mine = [a for a in r["alerts"] if a[0] == sc.finding]
            if mine:
                hit += 1
                delays.append(mine[0][2] - onset)
            if r["alerts"] and r["alerts"][0][0] != sc.finding:
                other_first += 1
            if r["alerts"] and r["alerts"][0][0] == r["offline_top"]:
                agree += 1
        all_delays += delays
        med = f"{statistics.median(delays):.0f}" if delays else "—"
        worst = f"{max(delays)}" if delays else "—"
        print(f"| {name} | {sc.finding} | {len(rs)} | {hit}/{len(rs)} | {med} | {worst} | {other_first} "
              f"| {agree}/{len(rs)} |")
    if all_delays:
        print(f"\nall failure scenarios: median delay {statistics.median(all_delays):.0f} steps, "
              f"worst {max(all_delays)} (negative = alerted before the simulator's onset step)")
    print("\n## Silence where there is nothing to say (no alert expected)\n")
    print("| scenario | runs | runs with any alert | alerted ids |")
    print("|---|---|---|---|")
    for name, n, loud, ids in silent_rows:
        print(f"| {name} | {n} | {loud} | {', '.join(ids) or '—'} |")
    checks = sum(r["checks"] for r in results)
    cpu = sum(r["cpu"] for r in results)
    errs = sum(r["errors"] for r in results)
    print(f"\n{len(results)} runs, {checks} checks, {cpu:.1f} s CPU in Watcher ({1000 * cpu / max(checks, 1):.1f} ms "
          f"per check), {errs} diagnosis errors caught")


def cpu_follow(seconds: int, fmt: str) -> None:
    """A child `rlvitals watch` follows a file growing by one line a second; its CPU share."""
    run = simulate("healthy", seed=0, steps=max(200, seconds + 20))
    buf = io.StringIO()
    write_run(run, fmt, buf)
    lines = buf.getvalue().splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "live.log"
        path.write_text("".join(lines[:5]))
        proc = subprocess.Popen([sys.executable, "-m", "rlvitals", "watch", str(path), "--interval", "1"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        tick = os.sysconf("SC_CLK_TCK")

        def cpu() -> float:
            f = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
            return (int(f[11]) + int(f[12])) / tick

        time.sleep(3)  # imports and the first read are start-up, not following
        c0, t0 = cpu(), time.monotonic()
        k = 5
        while time.monotonic() - t0 < seconds:
            with open(path, "a") as fh:
                fh.write(lines[k % len(lines)])
            k += 1
            time.sleep(1.0)
        c1, t1 = cpu(), time.monotonic()
        proc.send_signal(2)
        proc.wait(30)
    share = (c1 - c0) / (t1 - t0)
    print(f"\n## CPU of `rlvitals watch` following a file growing by one line a second ({fmt})\n")
    print(f"{k - 5} lines over {t1 - t0:.0f} s: {c1 - c0:.2f} s CPU = {100 * share:.2f}% of one core "
          f"(target < 1%; /proc resolution {1 / tick:.2f} s)")


def monitor_cost(steps: int) -> None:
    run = simulate("healthy", seed=0, steps=steps)
    keys = {"reward": "reward", "acc": "rewards/accuracy_reward/mean", "entropy": "entropy", "kl": "kl",
            "clip_frac": "clip_ratio/region_mean", "len": "completions/mean_length", "gnorm": "grad_norm",
            "trunc": "completions/clipped_ratio", "lr": "learning_rate"}
    rows = []
    for i in range(steps):
        rows.append({fw: float(run.series[c].values[i]) for c, fw in keys.items() if c in run.series})
    print(f"\n## Monitor cost per step ({steps} steps, {len(keys)} TRL keys, real diagnose)\n")
    print("The training loop is simulated: a clock advancing `step time` per step (the 1% cap acts on it);")
    print("the cost is the real time spent inside Monitor.log.\n")
    print("| setting | step time | checks | cost per step (amortised) | slowest check |")
    print("|---|---|---|---|---|")
    for label, every, step_s, cap in (("log only (no check)", 10 ** 9, 1.0, 0.01),
                                      ("check_every=10, no cap", 10, 1.0, 0.0),
                                      ("check_every=10, 1% cap (default)", 10, 1.0, 0.01),
                                      ("check_every=10, 1% cap (default)", 10, 10.0, 0.01)):
        now = [0.0]
        mon = Monitor(stream=None, check_every=every, max_overhead=cap, clock=lambda now=now: now[0])
        worst, total = 0.0, 0.0
        for i, row in enumerate(rows):
            now[0] += step_s
            t0 = time.perf_counter()
            mon.log(row, i)
            dt = time.perf_counter() - t0
            total += dt
            worst = max(worst, dt)
        print(f"| {label} | {step_s:g} s | {mon.checks} | {1e6 * total / steps:.0f} µs | {1e3 * worst:.0f} ms |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--format", default=None, help="log format to stream (default: lesson if available)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--step-seconds", type=float, default=1.0,
                    help="simulated seconds between log lines (the 1%% CPU cap acts on this clock)")
    ap.add_argument("--cpu-seconds", type=int, default=30)
    ap.add_argument("--skip-cpu", action="store_true")
    ap.add_argument("--skip-delay", action="store_true")
    ap.add_argument("--scenarios", default=None, help="comma-separated subset")
    args = ap.parse_args()
    fmt = args.format or stream_format()
    names = args.scenarios.split(",") if args.scenarios else list(SCENARIOS)
    print(f"# bench_watch: {len(names)} scenarios x {args.seeds} seeds x {args.steps} steps, format {fmt}, "
          f"one line per {args.step_seconds:g} s")
    if not args.skip_delay:
        t0 = time.perf_counter()
        jobs = [(n, s, args.steps, fmt, args.step_seconds) for n in names for s in range(args.seeds)]
        with ProcessPoolExecutor(max_workers=args.jobs) as ex:
            results = list(ex.map(one_run, jobs, chunksize=4))
        delay_table(results)
        print(f"(wall {time.perf_counter() - t0:.0f} s on {args.jobs} processes)")
    monitor_cost(1000)
    if not args.skip_cpu:
        cpu_follow(args.cpu_seconds, fmt)


if __name__ == "__main__":
    main()
