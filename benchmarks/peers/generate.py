"""Regenerate tests/fixtures/peers/: the scenario logs that three peer tools produce, made by their own code.

Never run in CI (it needs the peers installed).  Run it with a scratch venv's Python:

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install rldoctor==0.2.0 rlprobe==0.1.0 rlwatch==0.5.1
    /tmp/peers/bin/python benchmarks/peers/generate.py --rlwatch-src PATH/TO/rlwatch-checkout

- rldoctor: `rl_doctor.simulate.simulate(scenario)` (the generator behind `rl-doctor demo` and
  `rl-doctor selftest`, default 400 steps, seed 0), written in each file shape rl-doctor's own loader
  reads (`rl_doctor.ingest.base.load_jsonl/load_json/load_csv`): JSONL with its leading
  `{"config": …}` line, a JSON object `{"config", "history"}`, and a CSV (one column per key, empty
  cells where a key was not logged at that step).
- rlprobe: `rlprobe.testing.synth.generate_run(dir, pathology)` (the generator behind `rlprobe synth`,
  500 steps, onset at half, seed 0) writes a run directory (manifest.json, steps.parquet,
  samples/*.parquet, events.jsonl).  rlvitals' core reads no Parquet (it would need pyarrow), so the
  steps table is also exported row for row, same column names, as steps.jsonl with rlprobe's own
  reader (`RunReader(dir).steps_table().to_pylist()`); manifest.json and events.jsonl are kept, and
  the healthy run's steps.parquet too (rlvitals reads it with pyarrow installed: rlvitals[parquet]).
- rlwatch: the wheel ships no scenario generator; its repository does (tests/simulations/generators.py,
  the fixtures of its replay tests, and examples/simulate_grpo_run.py).  `--rlwatch-src` points at a
  checkout; each trace is fed through the installed rlwatch (`RLWatch.log_step`, as its replay test
  does), which writes its own SQLite store, `metrics.db` (tables runs, metrics, alerts).

Held-out sets (never written into tests/fixtures): `--seed N`, `--steps N` (both tools' length;
default each tool's own, 400 / 500), `--onset-frac F` (rlprobe's onset, default 0.5) and
`--eval-every N` (rldoctor, default 25) and `--rlprobe-algorithm ppo` (rlprobe logs a value head) are passed to the peers' own generators, e.g.

    /tmp/peers/bin/python benchmarks/peers/generate.py --seed 1 --steps 800 --out /tmp/peers-s1-800

and scored with the same labels by `bench_worlds.py --peers-dir /tmp/peers-s1-800` (the labels are
the peers' scenario names, which hold at any seed or length).

Nothing here renames a key.  Ground truth per file: tests/fixtures/peers/truth.json (by hand, from
each peer's own labels; see the README there).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib.util
import json
import math
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "peers"


def _clean(v):
    """JSON has no NaN: a non-finite float is written as null (as a JSON logger would)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def rldoctor(out: Path, seed: int = 0, steps: int | None = None, eval_every: int = 25) -> list[str]:
    from rl_doctor.simulate import SCENARIOS, simulate

    made = []
    d = out / "rldoctor"
    d.mkdir(parents=True, exist_ok=True)
    for name in SCENARIOS:
        kw = {"seed": seed, "eval_every": eval_every, **({"n_steps": steps} if steps else {})}
        records, config = simulate(name, **kw)  # defaults: n_steps=400, seed=0, eval_every=25
        with open(d / f"{name}.jsonl", "w", encoding="utf-8") as f:
            f.write(json.dumps({"config": config}) + "\n")
            for r in records:
                f.write(json.dumps({k: _clean(v) for k, v in r.items()}) + "\n")
        with open(d / f"{name}.json", "w", encoding="utf-8") as f:
            json.dump({"config": config, "history": [{k: _clean(v) for k, v in r.items()} for r in records]}, f)
        keys: list[str] = []
        for r in records:
            keys += [k for k in r if k not in keys]
        with open(d / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(records)
        made += [f"rldoctor/{name}.{ext}" for ext in ("jsonl", "json", "csv")]
    return made


def rlprobe(
    out: Path,
    scratch: Path,
    seed: int = 0,
    steps: int | None = None,
    onset_frac: float = 0.5,
    algorithm: str | None = None,
) -> list[str]:
    from rlprobe.storage import RunReader
    from rlprobe.testing.synth import PATHOLOGIES, generate_run

    made = []
    for pathology in [None, *PATHOLOGIES]:
        label = pathology or "healthy"
        run_dir = scratch / "rlprobe" / label
        shutil.rmtree(run_dir, ignore_errors=True)
        kw = {
            "seed": seed,
            "onset_frac": onset_frac,
            **({"n_steps": steps} if steps else {}),
            **({"algorithm": algorithm} if algorithm else {}),
        }
        generate_run(run_dir, pathology, **kw)  # defaults: n_steps=500, onset_frac=0.5, seed=0
        dest = out / "rlprobe" / label
        dest.mkdir(parents=True, exist_ok=True)
        rows = RunReader(run_dir).steps_table().to_pylist()
        with open(dest / "steps.jsonl", "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps({k: _clean(v) for k, v in row.items()}) + "\n")
        for name in ("manifest.json", "events.jsonl"):
            if (run_dir / name).exists():
                shutil.copyfile(run_dir / name, dest / name)
        if label == "healthy":  # one native table kept as it is (tests/ingest/test_parquet.py; needs pyarrow)
            shutil.copyfile(run_dir / "steps.parquet", dest / "steps.parquet")
        made.append(f"rlprobe/{label}/steps.jsonl")
    return made


# rlwatch's replay fixtures (tests/simulations/test_replay.py FIXTURES): name, generator, kwargs
RLWATCH_FIXTURES = (
    ("healthy_run", "healthy_run", {"n_steps": 200, "seed": 0}),
    ("entropy_collapse", "entropy_collapse", {"n_steps": 400, "collapse_start": 200, "seed": 0}),
    ("kl_spike", "kl_spike", {"n_steps": 200, "spike_at": 150, "seed": 0}),
    ("reward_variance_explosion", "reward_variance_explosion", {"n_steps": 200, "explosion_at": 120, "seed": 0}),
    ("loss_nan", "loss_nan_at", {"n_steps": 200, "nan_at": 100, "seed": 0}),
    ("gradient_norm_spike", "gradient_norm_spike", {"n_steps": 200, "spike_at": 150, "seed": 0}),
)


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rlwatch(out: Path, src: Path, seed: int = 0) -> list[str]:
    from rlwatch.config import RLWatchConfig
    from rlwatch.core import RLWatch

    gens = _load(src / "tests" / "simulations" / "generators.py", "rlwatch_generators")
    made = []
    for name, fn, kwargs in RLWATCH_FIXTURES:
        d = out / "rlwatch" / name
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        cfg = RLWatchConfig()
        cfg.storage.log_dir = str(d)
        cfg.run_id = name
        mon = RLWatch(cfg)
        mon.start()
        try:
            for row in getattr(gens, fn)(**{**kwargs, "seed": seed}):
                step = row.pop("step")
                mon.log_step(step, **row)
        finally:
            mon.stop()
        made.append(f"rlwatch/{name}/metrics.db")
    # examples/simulate_grpo_run.py writes to ./rlwatch_logs of the working directory
    ex = _load(src / "examples" / "simulate_grpo_run.py", "rlwatch_example")
    d = out / "rlwatch" / "simulate_grpo_run"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    cwd = os.getcwd()
    os.chdir(d)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            ex.simulate_grpo_run(seed=seed)
    finally:
        os.chdir(cwd)
    shutil.move(str(d / "rlwatch_logs" / "metrics.db"), str(d / "metrics.db"))
    shutil.rmtree(d / "rlwatch_logs")
    made.append("rlwatch/simulate_grpo_run/metrics.db")
    return made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/rlvitals-peers"))
    ap.add_argument(
        "--rlwatch-src",
        type=Path,
        default=None,
        help="a checkout of the rlwatch repository (its scenario generators are not in the wheel)",
    )
    ap.add_argument("--seed", type=int, default=0, help="the peers' generators' seed (held-out sets: not 0)")
    ap.add_argument("--steps", type=int, default=None, help="run length for rldoctor and rlprobe (default theirs)")
    ap.add_argument("--onset-frac", type=float, default=0.5, help="rlprobe's onset as a fraction of the run")
    ap.add_argument("--eval-every", type=int, default=25, help="rldoctor's eval cadence")
    ap.add_argument("--rlprobe-algorithm", default=None, help="rlprobe's algorithm (grpo; ppo adds a value head)")
    args = ap.parse_args()
    if args.out.resolve() == OUT.resolve() and (
        args.seed or args.steps or args.onset_frac != 0.5 or args.eval_every != 25 or args.rlprobe_algorithm
    ):
        ap.error(
            "a held-out set (another seed, length, onset or cadence) goes to --out elsewhere, "
            "not into tests/fixtures/peers (its truth.json describes the seed-0 files)"
        )
    made = rldoctor(args.out, args.seed, args.steps, args.eval_every) + rlprobe(
        args.out, args.scratch, args.seed, args.steps, args.onset_frac, args.rlprobe_algorithm
    )
    if args.rlwatch_src:
        made += rlwatch(args.out, args.rlwatch_src, args.seed)
    else:
        print("rlwatch skipped: give --rlwatch-src", file=sys.stderr)
    for m in made:
        print(m)
    # rlwatch opens its store in WAL mode; fold the log into the file and switch to a rollback
    # journal, so the database is one self-contained file and reading it creates no -wal/-shm files
    import sqlite3

    for db in args.out.rglob("*.db"):
        con = sqlite3.connect(db)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("PRAGMA journal_mode=DELETE")
        con.close()
    for side in args.out.rglob("*.db-*"):
        side.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
