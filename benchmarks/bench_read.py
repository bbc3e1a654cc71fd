"""Read speed: rlvitals against the lesson's own parser, and on a big verl console log.

    python benchmarks/bench_read.py              # 1,000,000-step lesson log + 20,000-step verl log
    python benchmarks/bench_read.py --steps 200000 --verl-steps 5000 --skip-baseline [--skip-gzip]

Generates the logs into a temporary directory (never committed), then runs each reader in its own
process, so every peak-memory figure (ru_maxrss) is that reader's alone.  One run, one line per
measurement; CPU seconds are printed beside wall seconds because a shared machine's wall clock
includes other people's work.  Targets (issue 5): lesson log ≥ 10× the baseline (20× the aim), peak < 500 MB;
verl log (~60 keys a line, ~60 MB) in < 3 s.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

_NOISE = ["WARNING: rank 3 grad_norm is not finite, skipping", "Saving checkpoint to ckpt/global_step",
          "  generating rollouts ...", "Training Progress:  12%|##        | 120/1000 [00:59<07:11,  2.04it/s]"]


def gen_lesson(path: Path, steps: int, noise: float = 0.05, seed: int = 0) -> None:
    """The lesson's line format, 10 keys, ~5% noise lines between them."""
    rng = np.random.default_rng(seed)
    t = np.arange(steps) / steps
    cols = [0.4 + 0.45 * t + rng.normal(0, 0.03, steps), 100 * (0.2 + 0.37 * t + rng.normal(0, 0.02, steps)),
            1.84 - 0.35 * t + rng.normal(0, 0.02, steps), 0.002 + 0.043 * t * rng.uniform(0.5, 1.5, steps),
            1.03 - 0.37 * t + rng.normal(0, 0.02, steps), np.abs(0.04 * t + rng.normal(0, 0.005, steps)),
            1 + rng.normal(0, 1e-4, steps), 78 + 74 * t + rng.normal(0, 5, steps),
            np.abs(rng.normal(0.8, 0.2, steps)), np.abs(100 * rng.normal(0.01, 0.005, steps))]
    noisy = rng.random(steps) < noise / (1 - noise)
    r, a, e, k, ad, c, ra, ln, g, tr = (x.tolist() for x in cols)
    with open(path, "w") as f:
        w = f.write
        for i in range(steps):
            if noisy[i]:
                w(_NOISE[i % 4] + "\n")
            w(f"[{i:>4}] reward={r[i]:.3f} acc={a[i]:.1f}% entropy={e[i]:.3f} kl={k[i]:.4f} adv_std={ad[i]:.3f} "
              f"clip={c[i]:.3f} ratio={ra[i]:.4f} len={ln[i]:.0f} gnorm={g[i]:.2f} trunc={tr[i]:.1f}%\n")


def gen_verl(path: Path, steps: int, seed: int = 0) -> None:
    """New-style verl console lines: Ray prefix, ANSI, np.float64(…), ~60 keys, full precision."""
    rng = np.random.default_rng(seed)
    keys = (["actor/entropy", "actor/pg_clipfrac", "actor/ppo_kl", "actor/pg_clipfrac_lower", "actor/pg_loss",
             "actor/grad_norm", "actor/lr", "training/global_step", "training/epoch", "critic/score/mean",
             "critic/score/max", "critic/score/min", "critic/rewards/mean", "critic/rewards/max", "critic/rewards/min",
             "critic/advantages/mean", "critic/advantages/max", "critic/advantages/min", "critic/returns/mean",
             "critic/returns/max", "critic/returns/min", "response_length/mean", "response_length/max",
             "response_length/min", "response_length/clip_ratio", "prompt_length/mean", "prompt_length/max",
             "prompt_length/min", "prompt_length/clip_ratio"]
            + [f"timing_s/{k}" for k in ("gen", "reward", "old_log_prob", "ref", "adv", "update_actor", "step",
                                          "save_checkpoint", "testing")]
            + [f"perf/{k}" for k in ("mfu/actor", "max_memory_allocated_gb", "max_memory_reserved_gb",
                                      "cpu_memory_used_gb", "total_num_tokens", "time_per_step", "throughput")]
            + [f"timing_per_token_ms/{k}" for k in ("gen", "ref", "adv", "update_actor", "old_log_prob")]
            + [f"actor/extra_{i}" for i in range(10)])
    vals = rng.normal(0.3, 0.2, (steps, len(keys)))
    with open(path, "w") as f:
        for i in range(steps):
            parts = [f"{k}:np.float64({v!r})" if j % 3 else f"{k}:{v!r}" for j, (k, v) in enumerate(zip(keys, vals[i].tolist()))]
            f.write(f"\x1b[36m(TaskRunner pid=46086)\x1b[0m step:{i + 1} - " + " - ".join(parts) + "\n")
            if i % 50 == 0:
                f.write(f"\x1b[36m(TaskRunner pid=46086)\x1b[0m \rTraining Progress:   {i // 200}%| | {i}/{steps}\n")


_CHILD = r"""
import json, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
if sys.argv[1] == "baseline":
    sys.path.insert(0, sys.argv[3])
    import lesson_baseline
    n = len(lesson_baseline.parse(sys.argv[2]))
else:
    from rlvitals.ingest import read
    run = read(sys.argv[2])
    n = max(len(s) for s in run.series.values())   # (Run.n_steps sorts every step: not part of reading)
dt, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"seconds": dt, "cpu": cpu, "rows": n,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def generate(kind: str, path: Path, steps: int) -> None:
    """Write a log in a child process: a process's peak RSS starts at its parent's size at fork,
    so the parent must stay small for the readers' peaks to be their own."""
    code = f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_read as b; b.gen_{kind}(b.Path({str(path)!r}), {steps})"
    subprocess.run([sys.executable, "-c", code], check=True)


def measure(kind: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, kind, str(path), str(HERE)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--verl-steps", type=int, default=20_000)
    ap.add_argument("--skip-baseline", action="store_true", help="do not run the (slow) lesson parser")
    ap.add_argument("--skip-gzip", action="store_true", help="do not time the gzip-compressed lesson log")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        lesson = Path(tmp) / "lesson.log"
        t = time.perf_counter()
        generate("lesson", lesson, args.steps)
        print(f"generated lesson log: {args.steps} steps, {lesson.stat().st_size / 1e6:.0f} MB "
              f"({time.perf_counter() - t:.1f} s)")
        ours = measure("rlvitals", lesson)
        print(f"rlvitals  lesson {args.steps} steps: {ours['seconds']:.2f} s wall, {ours['cpu']:.2f} s CPU, "
              f"peak {ours['peak_mb']:.0f} MB, {ours['rows']} steps read")
        if not args.skip_baseline:
            base = measure("baseline", lesson)
            again = measure("rlvitals", lesson)        # once more after the baseline: load changes
            print(f"rlvitals  lesson {args.steps} steps (again): {again['seconds']:.2f} s wall, "
                  f"{again['cpu']:.2f} s CPU, peak {again['peak_mb']:.0f} MB")
            ours = {k: min(ours[k], again[k]) for k in ("seconds", "cpu")}
            print(f"baseline  lesson {args.steps} steps: {base['seconds']:.2f} s wall, {base['cpu']:.2f} s CPU, "
                  f"peak {base['peak_mb']:.0f} MB, {base['rows']} rows")
            print(f"ratio     baseline / rlvitals (best of 2) = {base['seconds'] / ours['seconds']:.1f}x wall, "
                  f"{base['cpu'] / ours['cpu']:.1f}x CPU")
        if not args.skip_gzip:
            packed = Path(tmp) / "lesson.log.gz"
            with open(lesson, "rb") as src, gzip.open(packed, "wb", compresslevel=1) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            z = measure("rlvitals", packed)
            print(f"rlvitals  lesson {args.steps} steps, gzip ({packed.stat().st_size / 1e6:.0f} MB): "
                  f"{z['seconds']:.2f} s wall, {z['cpu']:.2f} s CPU, peak {z['peak_mb']:.0f} MB, {z['rows']} steps read")
            packed.unlink()
        lesson.unlink()
        verl = Path(tmp) / "verl.log"
        generate("verl", verl, args.verl_steps)
        v = measure("rlvitals", verl)
        print(f"rlvitals  verl console {args.verl_steps} steps ({verl.stat().st_size / 1e6:.0f} MB): "
              f"{v['seconds']:.2f} s wall, {v['cpu']:.2f} s CPU, peak {v['peak_mb']:.0f} MB, {v['rows']} steps read")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
