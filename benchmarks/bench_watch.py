"""How early and how right `rlvitals watch` and `Monitor` raise the alarm; what they cost.

    python benchmarks/bench_watch.py                          # both simulators, 5 seeds, costs
    python benchmarks/bench_watch.py --seeds 20 --skip-cost   # the delay table only
    python benchmarks/bench_watch.py --seed-offset 5 --skip-cost   # seeds 5-9, held out of the choices
    python benchmarks/bench_watch.py --worlds sim --scenarios entropy_collapse,healthy --seeds 2

1. Delay.  Every scenario of the simulator (`rlvitals.simulate`) and of the RL-loop simulator
   (`rlvitals.simulate.rlloop.simulate_rl`, when it is installed) x N seeds is written in the
   lesson's log format and streamed line by line through `Watcher` (the object `rlvitals watch`
   runs: sniffing, the incremental parser, the shared `Scheduler`, the real `diagnose`, the alert
   rules, the 1% CPU cap) on a simulated clock (`--step-seconds` per line), and the same steps go
   through `Monitor` on the same simulated clock.  Per scenario: the first alert's step minus
   `run.meta["truth"]["onset_step"]` (in steps and in % of the run), whether the first alert names
   the true failure, median and worst; for entropy collapse, whether the alert came before entropy
   had lost 80% of its level.  Scenarios with nothing to say (healthy*, info-only) must stay silent.
2. Cost.  CPU of a child `rlvitals watch` following a file growing one line a second; time inside
   `Monitor.log` per step (amortised, slowest call); Monitor memory over a long feed (tracemalloc).

The numbers depend on the diagnosis: the header names the commit of src/rlvitals/diagnose measured.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from rlvitals.ingest import write_run  # noqa: E402
from rlvitals.run import CANONICAL  # noqa: E402
from rlvitals.simulate import SCENARIOS, simulate  # noqa: E402
from rlvitals.watch import Monitor, Watcher  # noqa: E402
from rlvitals.watch.alerts import CONFIRM, MIN_STEPS  # noqa: E402

FORMAT = "lesson"


def worlds(names: list[str]) -> dict[str, tuple[Any, dict]]:
    """world → (simulate function, scenarios)."""
    out: dict[str, tuple[Any, dict]] = {}
    if "sim" in names:
        out["sim"] = (lambda n, seed, steps: simulate(n, seed=seed, steps=steps), SCENARIOS)
    if "rl" in names:
        try:
            from rlvitals.simulate.rlloop import SCENARIOS as RL
            from rlvitals.simulate.rlloop import simulate_rl
        except ImportError:
            print("(the RL-loop simulator is not installed here: world 'rl' skipped)")
        else:
            out["rl"] = (lambda n, seed, steps: simulate_rl(n, seed=1000 + seed, steps=steps), RL)
    return out


def silent_expected(truth: dict) -> bool:
    return truth.get("finding") is None or truth.get("severity") in (None, "info")


LOSS = 0.5  # --entropy-loss: the share of its level the entropy may lose before the alert (issue 17: half)


def step80(run, onset: int | None) -> int | None:
    """First step after the onset where entropy (5-step rolling median) has lost LOSS of its
    pre-onset level (80% until stop 15; half since: the collapse alerted before half is gone)."""
    s = run.series.get("entropy")
    if s is None or onset is None:
        return None
    before = s.values[s.steps < onset]
    level = float(np.nanmedian(before[-20:] if before.size else s.values[:10]))
    v = s.values
    med = np.array([np.nanmedian(v[max(0, i - 4) : i + 1]) for i in range(v.size)])
    hit = np.flatnonzero((s.steps >= onset) & (med <= (1.0 - LOSS) * level))
    return int(s.steps[hit[0]]) if hit.size else None


def stream_watch(
    text: str, name: str, step_seconds: float, persist: int, min_steps: int, confirm: int, truth: str | None = None
) -> tuple[list, int, float, int | None]:
    """Stream `text` line by line through a Watcher; its alerts, checks, CPU, and the first step at
    which one of its checks' diagnosis named `truth` at warning or above (the diagnosis' own delay
    on the prefixes the watcher saw: what the alert policy adds is the difference)."""
    from rlvitals.diagnose import diagnose

    named: list[int] = []

    def diag(run):
        d = diagnose(run)
        if not named and truth is not None and any(f.id == truth and f.severity != "info" for f in d.findings):
            named.append(int(run.steps[-1]))
        return d

    now = [0.0]
    w = Watcher(
        name=name, clock=lambda: now[0], persist=persist, min_steps=min_steps, confirm=confirm, diagnose_fn=diag
    )
    alerts = []
    t0 = time.process_time()
    for line in text.splitlines():
        now[0] += step_seconds
        w.feed([line])
        alerts += w.check()
    now[0] += w.max_wait  # the log goes quiet: a last look
    alerts += w.check()
    return (
        [(a.id, a.severity, a.step) for a in alerts],
        w.checks,
        time.process_time() - t0,
        named[0] if named else None,
    )


def stream_monitor(run, step_seconds: float, persist: int, min_steps: int, confirm: int) -> tuple[list, int, float]:
    now = [0.0]
    # checks inside log() (not on the worker thread), so the simulated clock decides like watch's
    mon = Monitor(
        stream=None,
        clock=lambda: now[0],
        step_budget=0,
        background=False,
        persist=persist,
        min_steps=min_steps,
        confirm=confirm,
    )
    names = [c for c in CANONICAL if c in run.series]
    steps = sorted(set().union(*(run.series[c].steps.tolist() for c in names)))
    lookup = {c: dict(zip(run.series[c].steps.tolist(), run.series[c].values.tolist())) for c in names}
    alerts = []
    t0 = time.process_time()
    for step in steps:
        now[0] += step_seconds
        alerts += mon.log({c: lookup[c][step] for c in names if step in lookup[c]}, step)
    mon.close()  # the run is over: a last look, like watch's when the log goes quiet
    alerts += mon.alerts[len(alerts) :]
    return [(a.id, a.severity, a.step) for a in alerts], mon.checks, time.process_time() - t0


def one_case(args: tuple[str, str, int, int, float, bool, int, int, int]) -> dict:
    world, name, seed, steps, step_seconds, with_monitor, persist, min_steps, confirm = args
    sim, _ = worlds([world])[world]
    run = sim(name, seed, steps)
    truth = dict(run.meta["truth"])
    buf = io.StringIO()
    write_run(run, FORMAT, buf)
    w_alerts, checks, cpu, named = stream_watch(
        buf.getvalue(), name, step_seconds, persist, min_steps, confirm, truth.get("finding")
    )
    m_alerts, m_checks, m_cpu = (
        stream_monitor(run, step_seconds, persist, min_steps, confirm) if with_monitor else ([], 0, 0.0)
    )
    onset = truth.get("onset_step")
    return {
        "world": world,
        "scenario": name,
        "seed": seed,
        "truth": truth,
        "n_steps": run.n_steps,
        "first_step": int(run.steps[0]),
        "watch": w_alerts,
        "monitor": m_alerts,
        "checks": checks,
        "m_checks": m_checks,
        "cpu": cpu,
        "m_cpu": m_cpu,
        "named": named,
        "step80": step80(run, onset) if truth.get("finding") == "entropy_collapse" else None,
    }


def score(r: dict, key: str) -> dict:
    """The first alert of one run against its truth."""
    t = r["truth"]
    alerts = r[key]
    first = alerts[0] if alerts else None
    out = {"first": first, "right": bool(first and first[0] == t["finding"]), "delay": None, "pct": None}
    mine = [a for a in alerts if a[0] == t["finding"]]
    if mine:
        onset = t.get("onset_step") if t.get("onset_step") is not None else r["first_step"]
        out["delay"] = mine[0][2] - onset
        out["pct"] = 100.0 * out["delay"] / r["n_steps"]
    return out


def _both(values: list[str]) -> str:
    """One cell for watch and Monitor: "x" when they agree, "x / y" when not."""
    return values[0] if len(set(values)) == 1 else " / ".join(values)


def table(results: list[dict], keys: tuple[str, ...], label: str) -> None:
    """The delay table; with keys ("watch", "monitor") each cell shows watch's value and, where
    it differs, Monitor's after a slash.  "named" is the delay to the first check whose diagnosis
    named the failure (the diagnosis' own delay on the watcher's prefixes)."""
    by: dict[tuple[str, str], list[dict]] = {}
    for r in results:
        by.setdefault((r["world"], r["scenario"]), []).append(r)
    who = " / ".join({"watch": "watch", "monitor": "Monitor"}[k] for k in keys)
    print(
        f"\n## {label}: first alert vs the true onset"
        + (f" (cells: {who} where they differ)" if len(keys) > 1 else "")
        + "\n"
    )
    print(
        "| world | scenario | runs | first alert right | alerted it | diagnosis named it: median delay | "
        f"first alert: median delay (steps) | worst | median % of run | worst % | before {LOSS:.0%} entropy loss | "
        "later alerts naming another failure |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    silent: list[tuple] = []
    pcts: dict[str, list[float]] = {k: [] for k in keys}
    right = dict.fromkeys(keys, 0)
    total = 0
    per_world: dict[tuple[str, str], list[float]] = {}
    named_pcts: list[float] = []
    for (world, name), rs in by.items():
        if silent_expected(rs[0]["truth"]):
            cells = []
            for k in keys:
                loud = [r for r in rs if r[k]]
                cells.append((len(loud), ", ".join(sorted({a[0] for r in loud for a in r[k]})) or "—"))
            silent.append((world, name, len(rs), _both([str(c[0]) for c in cells]), _both([c[1] for c in cells])))
            continue
        total += len(rs)
        onset = [
            r["truth"].get("onset_step") if r["truth"].get("onset_step") is not None else r["first_step"] for r in rs
        ]
        nd = [r["named"] - o for r, o in zip(rs, onset) if r.get("named") is not None]
        named_pcts += [
            100.0 * (r["named"] - o) / r["n_steps"] if r.get("named") is not None else float("inf")
            for r, o in zip(rs, onset)
        ]
        cols: dict[str, list[str]] = {
            c: [] for c in ("right", "alerted", "med", "worst", "medp", "worstp", "e80", "other")
        }
        for k in keys:
            sc = [score(r, k) for r in rs]
            d = [s["delay"] for s in sc if s["delay"] is not None]
            p = [s["pct"] for s in sc if s["pct"] is not None]
            allp = p + [float("inf")] * (len(sc) - len(p))
            pcts[k] += allp
            per_world.setdefault((world, k), []).extend(allp)
            right[k] += sum(s["right"] for s in sc)
            wrong = [s["first"][0] for s in sc if s["first"] and not s["right"]]
            note = f" (first: {', '.join(sorted(set(wrong)))})" if wrong else ""
            cols["right"].append(f"{sum(s['right'] for s in sc)}/{len(rs)}{note}")
            cols["alerted"].append(f"{len(d)}/{len(rs)}")
            cols["med"].append(f"{statistics.median(d):g}" if d else "—")
            cols["worst"].append(str(max(d)) if d else "—")
            cols["medp"].append(f"{statistics.median(p):.1f}%" if p else "—")
            cols["worstp"].append(f"{max(p):.1f}%" if p else "—")
            e80 = "—"
            if rs[0]["truth"]["finding"] == "entropy_collapse":
                ok = sum(
                    1
                    for r, s in zip(rs, sc)
                    if s["delay"] is not None
                    and r["step80"] is not None
                    and s["delay"] + (r["truth"]["onset_step"] or 0) < r["step80"]
                )
                e80 = f"{ok}/{len(rs)}"
            cols["e80"].append(e80)
            # after the first alert: warnings or criticals naming something else than the truth
            other = [sorted({a[0] for a in r[k][1:] if a[0] != r["truth"]["finding"]}) for r in rs]
            names = sorted({x for o in other for x in o})
            cols["other"].append(
                f"{sum(1 for o in other if o)}/{len(rs)}" + (f" ({', '.join(names)})" if names else "")
            )
        named = (
            f"{statistics.median(nd):g}" + (f" ({len(rs) - len(nd)} never)" if len(nd) < len(rs) else "")
            if nd
            else "never"
        )
        print(
            f"| {world} | {name} | {len(rs)} | {_both(cols['right'])} | {_both(cols['alerted'])} | {named} | "
            f"{_both(cols['med'])} | {_both(cols['worst'])} | {_both(cols['medp'])} | {_both(cols['worstp'])} | "
            f"{_both(cols['e80'])} | {_both(cols['other'])} |"
        )
    for k in keys:
        if not pcts[k]:
            continue
        fin = [x for x in pcts[k] if x != float("inf")]
        print(
            f"\n{k}: first alert right {right[k]}/{total}; delay median {statistics.median(pcts[k]):.1f}% of the run, "
            f"mean {statistics.mean(fin) if fin else float('nan'):.2f}% (of those alerted), worst {max(pcts[k]):.1f}% "
            f"(target: median ≤ 5%, worst ≤ 15%; never alerted = ∞: {len(pcts[k]) - len(fin)})"
        )
        for (world, kk), wp in per_world.items():
            if kk == k:
                print(f"  {world}: median {statistics.median(wp):.1f}%, worst {max(wp):.1f}% over {len(wp)} runs")
    if named_pcts:
        fin = [x for x in named_pcts if x != float("inf")]
        print(
            f"the diagnosis on the same prefixes: named it median {statistics.median(named_pcts):.1f}% of the run after "
            f"the onset, mean {statistics.mean(fin) if fin else float('nan'):.2f}% (of those named), never {len(named_pcts) - len(fin)}"
        )
    print("\nnothing to say (no alert expected):\n")
    print("| world | scenario | runs | runs with any alert | alerted ids |")
    print("|---|---|---|---|---|")
    for world, name, n, loud, ids in silent:
        print(f"| {world} | {name} | {n} | {loud} | {ids} |")


def cpu_follow(seconds: int, preload: int = 5) -> None:
    """A child `rlvitals watch` follows a file growing by one line a second; its CPU share.
    `preload`: lines already in the file (a run further along costs more per check)."""
    run = simulate("healthy", seed=0, steps=max(200, seconds + preload + 20))
    buf = io.StringIO()
    write_run(run, FORMAT, buf)
    lines = buf.getvalue().splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "live.log"
        path.write_text("".join(lines[:preload]))
        # SIGINT back to default in the child: a benchmark started in the background (`cmd &`)
        # has it ignored, and the child would inherit that
        proc = subprocess.Popen(
            [sys.executable, "-m", "rlvitals", "watch", str(path), "--interval", "1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        tick = os.sysconf("SC_CLK_TCK")

        def cpu() -> float:
            with open(f"/proc/{proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / tick

        time.sleep(3)  # imports and the first read are start-up, not following
        c0, t0 = cpu(), time.monotonic()
        k = preload
        while time.monotonic() - t0 < seconds:
            with open(path, "a") as fh:
                fh.write(lines[k % len(lines)])
            k += 1
            time.sleep(1.0)
        c1, t1 = cpu(), time.monotonic()
        proc.send_signal(2)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:  # say so, do not leave it running
            print("(the watch did not exit within 30 s of SIGINT; killed)")
            proc.kill()
            proc.wait(10)
    print(
        f"\n## CPU of `rlvitals watch` following a file growing by one line a second\n\n"
        f"{k - preload} lines (after {preload} already there) over {t1 - t0:.0f} s: {c1 - c0:.2f} s CPU = {100 * (c1 - c0) / (t1 - t0):.2f}% of one core "
        f"(target < 1%; /proc resolution {1 / tick:.2f} s)"
    )


def monitor_cost(steps: int, mem_steps: int, real_step: float) -> None:
    import tracemalloc

    run = simulate("healthy", seed=0, steps=steps)
    keys = {
        "reward": "reward",
        "acc": "rewards/accuracy_reward/mean",
        "entropy": "entropy",
        "kl": "kl",
        "clip_frac": "clip_ratio/region_mean",
        "len": "completions/mean_length",
        "gnorm": "grad_norm",
        "trunc": "completions/clipped_ratio",
        "lr": "learning_rate",
    }
    rows = [{fw: float(run.series[c].values[i]) for c, fw in keys.items() if c in run.series} for i in range(steps)]
    print(f"\n## Monitor cost ({steps} steps, {len(keys)} TRL keys, real diagnose)\n")
    print("`in log()`: time the training loop spends inside `Monitor.log`; `checks CPU`: CPU of the")
    print("diagnoses wherever they ran (the worker thread by default), as a share of the loop's wall time.\n")
    print("| setting | step time | checks | in log() per step | slowest log() | checks CPU per step | share of wall |")
    print("|---|---|---|---|---|---|---|")
    cases = (
        ("background (default), real clock", {}, real_step, True),
        ("in log(): background=False, step_budget 0.5 ms", {"background": False}, real_step, True),
        ("in log(): background=False, no step budget", {"background": False, "step_budget": 0}, 10.0, False),
        ("no checks (log only)", {"background": False, "check_every": 10**9}, 10.0, False),
    )
    for label, kw, step_s, real in cases:
        now = [0.0]
        clock = time.monotonic if real else (lambda now=now: now[0])
        mon = Monitor(stream=None, clock=clock, **kw)
        worst = total = 0.0
        w0 = time.monotonic()
        for i, row in enumerate(rows):
            if real:
                time.sleep(step_s)  # the training step
            else:
                now[0] += step_s
            t0 = time.perf_counter()
            mon.log(row, i)
            dt = time.perf_counter() - t0
            total += dt
            worst = max(worst, dt)
        wall = time.monotonic() - w0 if real else steps * step_s
        mon.close() if mon.background else None
        print(
            f"| {label} | {step_s:g} s{'' if real else ' (simulated)'} | {mon.checks} | {1e3 * total / steps:.3f} ms | "
            f"{1e3 * worst:.1f} ms | {1e3 * mon.check_cpu / steps:.2f} ms | {100 * mon.check_cpu / wall:.2f}% |"
        )
    mon = Monitor(stream=None, check_every=10**9, background=False)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    for i in range(mem_steps):
        mon.log(rows[i % steps], i)
    cur, peak = tracemalloc.get_traced_memory()
    dt = time.perf_counter() - t0
    tracemalloc.stop()
    print(
        f"\nmemory: {mem_steps:,} steps logged → {(cur - base) / 1e6:.2f} MB held (peak {(peak - base) / 1e6:.2f} MB), "
        f"{len(mon.history):,} rows kept (stride {mon.history.stride}); {1e6 * dt / mem_steps:.1f} µs per log "
        f"under tracemalloc"
    )


def diagnosis_commit() -> str:
    try:
        return (
            subprocess.run(
                ["git", "log", "-1", "--format=%h %cs", "--", "src/rlvitals/diagnose"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            or "?"
        )
    except (OSError, subprocess.SubprocessError):
        return "?"


def main() -> None:
    global LOSS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument(
        "--seed-offset",
        type=int,
        default=0,
        help="seeds from N on (5: seeds 5-9, held out of every choice made on 0-4)",
    )
    ap.add_argument("--steps", type=int, default=200, help="steps per simulated run (both simulators)")
    ap.add_argument("--worlds", default="sim,rl")
    ap.add_argument("--scenarios", default=None, help="comma-separated subset")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument(
        "--step-seconds",
        type=float,
        default=10.0,
        help="simulated seconds per step (the 1%% CPU cap acts on this clock)",
    )
    ap.add_argument("--no-monitor", action="store_true", help="stream through Watcher only")
    ap.add_argument("--persist", type=int, default=1, help="checks a finding must hold before it alerts")
    ap.add_argument("--min-steps", type=int, default=MIN_STEPS, help="steps before a trend finding may alert")
    ap.add_argument(
        "--confirm",
        type=int,
        default=CONFIRM,
        help="checks (two steps apart or more) a warning must be named at before it alerts",
    )
    ap.add_argument("--cpu-seconds", type=int, default=30)
    ap.add_argument("--mem-steps", type=int, default=200_000)
    ap.add_argument("--monitor-steps", type=int, default=1000)
    ap.add_argument(
        "--real-step",
        type=float,
        default=0.02,
        help="seconds the cost table's training loop sleeps per step (a fast loop)",
    )
    ap.add_argument("--skip-cost", action="store_true")
    ap.add_argument(
        "--entropy-loss",
        type=float,
        default=LOSS,
        help="share of its level the entropy may lose before a collapse is alerted (default 0.5)",
    )
    ap.add_argument("--skip-delay", action="store_true")
    args = ap.parse_args()
    LOSS = args.entropy_loss
    print(
        f"# bench_watch: diagnosis at commit {diagnosis_commit()}; {args.seeds} seeds from {args.seed_offset} x {args.steps} steps, "
        f"format {FORMAT}, one step per {args.step_seconds:g} simulated s, persist {args.persist}, min_steps {args.min_steps}, confirm {args.confirm}"
    )
    if not args.skip_delay:
        jobs = []
        for world, (_, scen) in worlds(args.worlds.split(",")).items():
            names = [n for n in scen if not args.scenarios or n in args.scenarios.split(",")]
            jobs += [
                (
                    world,
                    n,
                    s,
                    args.steps,
                    args.step_seconds,
                    not args.no_monitor,
                    args.persist,
                    args.min_steps,
                    args.confirm,
                )
                for n in names
                for s in range(args.seed_offset, args.seed_offset + args.seeds)
            ]
        t0 = time.perf_counter()
        with ProcessPoolExecutor(max_workers=args.jobs) as ex:
            results = list(ex.map(one_case, jobs, chunksize=1))
        keys = ("watch",) if args.no_monitor else ("watch", "monitor")
        table(
            results,
            keys,
            "rlvitals watch (Watcher, line by line)"
            + ("" if args.no_monitor else " and Monitor (the same steps as dicts, the same simulated clock)"),
        )
        checks = sum(r["checks"] for r in results)
        cpu = sum(r["cpu"] for r in results)
        print(
            f"\n{len(results)} runs, {checks} Watcher checks, {1000 * cpu / max(checks, 1):.1f} ms CPU per check "
            f"(parse + diagnose)",
            end="",
        )
        if not args.no_monitor:
            m_checks = sum(r["m_checks"] for r in results)
            m_cpu = sum(r["m_cpu"] for r in results)
            print(f"; Monitor {m_checks} checks, {1000 * m_cpu / max(m_checks, 1):.1f} ms CPU per check", end="")
        print(f"; wall {time.perf_counter() - t0:.0f} s on {args.jobs} processes")
    if not args.skip_cost:
        monitor_cost(args.monitor_steps, args.mem_steps, args.real_step)
        for preload in (5, 400):
            cpu_follow(args.cpu_seconds, preload)


if __name__ == "__main__":
    main()
