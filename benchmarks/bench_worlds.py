"""How right the diagnosis is on each world, and with each world held out of calibration.

    python benchmarks/bench_worlds.py [--worlds sim,rl,peers,real] [--seeds 5] [--steps 300]
                                      [--calibrate] [--passes 1] [--jobs 2] [--show-misses]
    python benchmarks/bench_worlds.py --holdout [--peers-dir 'DIR*'] [--cache DIR] [--md OUT.md]
    python benchmarks/bench_worlds.py --worlds rl --seed-offset 1000 --steps 150,600 --formats

For each world (benchmarks/worlds.py says what they are): the share of runs named right (verdict and
top finding, each also alone), warnings on healthy runs, and the misses.

Runs nobody tuned on (each a *variant*, scored and tabled on its own):
  --seed-offset N   the simulators from seed N (sim) and 1000+N (rl) instead of 0 and 1000;
  --steps A,B,...   one variant per length (default: sim 200, rl 300 steps);
  --formats [F,..]  each simulated run written in every writable format (or those listed) and read
                    back, as a user would meet it; a format that lacks a metric the truth needs is
                    not scored on that run (counted and shown), nor is a run the diagnosis calls
                    "not learning -- cause undetermined" with the right verdict, naming as deciding
                    a metric the run had and the format dropped (worlds._lost_to_format);
  (--every, --reward-affine and --step-offset apply to every world given, files included)
  --every N         logged every N steps, each value the mean over its window (TRL's logging_steps);
  --reward-affine A,B  the reward logged as A*reward+B (components scaled by A): scale-free rules
                    should not move;
  --step-offset K   every step number + K (a log starting at step K+1);
  --peers-dir DIR   a peers' set regenerated elsewhere (benchmarks/peers/generate.py --seed N --out DIR),
                    scored with tests/fixtures/peers/truth.json (a glob; repeatable);
  --holdout         the held-out preset: sim seeds 100.., rl seeds 2000.. (--seeds, default 10) at
                    their usual length and at 150, 600, 1000 steps; both through every format (2 seeds);
                    logged every 10 steps (1000 steps and usual length) and every 5 (usual length); the reward
                    mapped to 2r-1 and to r+3; steps numbered from 5001; the peers' files and the real
                    logs logged every 10 and with the reward as 2r-1; plus any --peers-dir.
  --cache DIR       simulated runs pickled under DIR (keyed by the simulator's source), so a re-run
                    after a diagnosis change only re-diagnoses.
  --md FILE         the tables and misses as Markdown (for the team's notes).
  --group-misses    the misses grouped by scenario and mistake, most runs first.

--calibrate: the thresholds that carry a `grid` in rlvitals.diagnose.thresholds.TABLE are chosen by
coordinate descent (each in turn set to the grid value that maximises the objective, `--passes`
times; `--grid a,b` for only those) on a set of worlds, and scored on a world -- the labelled real
corpus counts one world per repository, so each repository is held out on its own:
  * held out: for each world X, chosen on every world but X, scored on X (the honest number);
  * in sample: chosen on all worlds, scored on each (for comparison only);
  * as shipped: the table's own values.
Objective on a set of worlds: the mean over worlds of the share named right, minus twice the mean
share of healthy runs that drew a warning (a false alarm costs more than a late one).
"""

from __future__ import annotations

import argparse
import glob
import multiprocessing as mp
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import worlds as W  # noqa: E402
from worlds import WORLDS, Case, Score, cases, peer_cases, score  # noqa: E402

_CASES: list[Case] = []
_RUNS: list = []  # filled only for --calibrate (the runs are re-diagnosed many times)


def _noload():  # a case sent back from a worker carries no closure
    raise RuntimeError("not loadable here")


def _score_one(args: tuple[int, dict[str, float]]) -> Score:
    """Score case i in a worker (the cases were listed before the fork; the run is built here)."""
    i, overrides = args
    run = _RUNS[i] if _RUNS else None
    if overrides:
        from rlvitals.diagnose import thresholds

        with thresholds.using(overrides):
            s = score(_CASES[i], run)
    else:
        s = score(_CASES[i], run)
    return replace(s, case=replace(s.case, load=_noload))


def evaluate(idx: list[int], overrides: dict[str, float], pool) -> list[Score]:
    work = [(i, overrides) for i in idx]
    return pool.map(_score_one, work, chunksize=4) if pool else [_score_one(w) for w in work]


def summarise(scores: list[Score]) -> dict[str, dict[str, float]]:
    by: dict[str, list[Score]] = defaultdict(list)
    for s in scores:
        by[s.case.label].append(s)
    out = {}
    for w, all_ss in by.items():
        ss = [s for s in all_ss if not s.skipped] or all_ss
        # false alarms: a warning on a healthy run, or (the labelled corpus) a finding its label calls one
        healthy = [s for s in ss if s.case.healthy or s.case.meta.get("findings_bad")]
        out[w] = {
            "n": len(ss),
            "skipped": len(all_ss) - len(ss),
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


def calibrate(
    idx: list[int], grid: dict[str, tuple[float, ...]], start: dict[str, float], passes: int, pool
) -> tuple[dict[str, float], float]:
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


def with_groups(summary: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The summary with one more row per group of labels "group:part" (the corpus per repository):
    the group as a whole, its shares weighted by runs."""
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for w, v in summary.items():
        if ":" in w:
            groups[w.split(":")[0]].append(v)
    out = dict(summary)
    for g, rows in groups.items():
        n = sum(r["n"] for r in rows)
        out[f"{g} (all)"] = {
            "n": n,
            "skipped": sum(r["skipped"] for r in rows),
            **{k: sum(r[k] * r["n"] for r in rows) / max(n, 1) for k in ("right", "finding", "verdict")},
            "healthy": sum(r["healthy"] for r in rows),
            "healthy_warn": sum(r["healthy_warn"] for r in rows),
        }
    return out


def table(title: str, summary: dict[str, dict[str, float]]) -> None:
    summary = with_groups(summary)
    print(f"\n{title}")
    width = max([7, *(len(w) for w in summary)])
    print(f"  {'world':<{width}} {'runs':>5} {'right':>7} {'finding':>8} {'verdict':>8} {'healthy warned':>15}")
    for w, v in summary.items():
        skip = (
            (
                f"   ({int(v['skipped'])} not scored: a format lacks a needed metric, cannot carry the run, "
                "or drops the metric the diagnosis names as deciding)"
            )
            if v.get("skipped")
            else ""
        )
        print(
            f"  {w:<{width}} {int(v['n']):>5} {v['right']:>7.1%} {v['finding']:>8.1%} {v['verdict']:>8.1%} "
            f"{int(v['healthy_warn']):>7} / {int(v['healthy']):<5}{skip}"
        )


def miss_line(s: Score) -> str:
    """`world/scenario#seed (variant): want V F, got V F [other findings]`."""
    want = "/".join(s.case.verdicts) + " " + "/".join(str(f) for f in s.case.findings)
    where = f" ({s.case.variant})" if s.case.variant and s.case.variant != s.case.world else ""
    extra = f" [{s.others}]" if s.others else ""
    return f"{s.case.world}/{s.case.name}{where}: want {want}, got {s.got_verdict} {s.got_finding}{extra} {s.error}".rstrip()


def misses(scores: list[Score]) -> list[Score]:
    return [s for s in scores if not s.skipped and (not s.ok or s.healthy_warning)]


def grouped_misses(scores: list[Score]) -> list[str]:
    """The misses grouped by (world/scenario, truth, what came instead), most runs first, each with
    where it happened (variant, seed, format or transform): one line per distinct mistake."""
    groups: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for s in misses(scores):
        base = s.case.name.split("#")[0].split("@")[0].split("~")[0]
        want = "/".join(s.case.verdicts) + " " + "/".join(str(f) for f in s.case.findings)
        where = (s.case.variant or s.case.world) + s.case.name[len(base) :]
        groups[(f"{s.case.world}/{base}", want, f"{s.got_verdict} {s.got_finding}")].append(where)
    return [
        f"{len(w):>4}  {k[0]}: want {k[1]}, got {k[2]}  <- {', '.join(w[:12])}{' …' if len(w) > 12 else ''}"
        for k, w in sorted(groups.items(), key=lambda kv: -len(kv[1]))
    ]


def per_format(scores: list[Score]) -> dict[str, dict[str, list[int]]]:
    """variant -> format -> [right, scored, not scored]."""
    out: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for s in scores:
        if s.case.fmt:
            cell = out[s.case.label][s.case.fmt]
            if s.skipped:
                cell[2] += 1
            else:
                cell[0] += s.ok
                cell[1] += 1
    return out


def markdown(summary: dict[str, dict[str, float]], scores: list[Score]) -> str:
    lines = [
        "| variant | runs | right | finding | verdict | healthy warned | not scored |",
        "|---|---|---|---|---|---|---|",
    ]
    for w, v in summary.items():
        lines.append(
            f"| {w} | {int(v['n'])} | {v['right']:.1%} | {v['finding']:.1%} | {v['verdict']:.1%} | "
            f"{int(v['healthy_warn'])} / {int(v['healthy'])} | {int(v.get('skipped', 0))} |"
        )
    for label, fm in per_format(scores).items():
        lines.append("")
        lines.append(
            f"{label}, per format (right / scored): "
            + ", ".join(f"{f} {ok}/{n}" + (f" (+{sk} not scored)" if sk else "") for f, (ok, n, sk) in fm.items())
        )
    lines += ["", "Misses:", ""] + [f"- {miss_line(s)}" for s in misses(scores)]
    return "\n".join(lines) + "\n"


@dataclass
class Variant:
    label: str
    world: str
    seeds: int = 5
    first: int | None = None
    steps: int | None = None
    fmts: tuple[str, ...] = ()
    peers_dir: Path | None = None
    transform: tuple | None = None

    def cases(self) -> list[Case]:
        if self.peers_dir is not None:
            return W.with_transform(peer_cases(self.peers_dir, variant=self.label), self.transform)
        if self.world not in ("sim", "rl"):
            got = cases(self.world, variant=self.label, transform=self.transform)
            return W.through_formats(got, self.fmts) if self.fmts else got
        kw: dict[str, Any] = {
            "seeds": self.seeds,
            "steps": self.steps,
            "first_seed": self.first,
            "variant": self.label,
            "transform": self.transform,
        }
        if not self.fmts:
            return cases(self.world, **kw)
        per = [cases(self.world, fmt=f, **kw) for f in self.fmts]
        return [c for group in zip(*per) for c in group]  # each run's formats side by side


def _sim_label(
    world: str, seeds: int, first: int, steps: int, fmts: tuple[str, ...], transform: tuple | None = None
) -> str:
    via = f" x{len(fmts)} formats" if len(fmts) > 1 else (f" via {fmts[0]}" if fmts else "")
    how = f" {W.transform_tag(transform)}" if transform else ""
    return f"{world} s{first}-{first + seeds - 1} {steps}st{how}{via}"


def variants(a: argparse.Namespace) -> list[Variant]:
    from rlvitals.ingest import WRITABLE

    worlds = [w for w in a.worlds.split(",") if w]
    fmts: tuple[str, ...] = ()
    if a.formats is not None:
        fmts = tuple(WRITABLE) if a.formats == "all" else tuple(f for f in a.formats.split(",") if f)
    steps = [int(x) for x in a.steps.split(",") if x] if a.steps else []
    base = {"sim": W.SIM_SEED0, "rl": W.RL_SEED0}
    usual = {"sim": W.SIM_STEPS, "rl": W.RL_STEPS}
    out: list[Variant] = []
    if a.holdout:
        seeds = a.seeds or 10
        for w, first in (("sim", 100 + a.seed_offset), ("rl", 2000 + a.seed_offset)):
            for n in (usual[w], 150, 600, 1000):
                out.append(Variant(_sim_label(w, seeds, first, n, ()), w, seeds, first, n))
            fs = fmts or tuple(WRITABLE)
            out.append(Variant(_sim_label(w, 2, first, usual[w], fs), w, 2, first, usual[w], fs))
            for n, tr in (
                (1000, ("every", 10)),
                (usual[w], ("every", 10)),
                (usual[w], ("every", 5)),
                (usual[w], ("affine", 2.0, -1.0)),
                (usual[w], ("affine", 1.0, 3.0)),
                (usual[w], ("offset", 5000)),
            ):
                out.append(Variant(_sim_label(w, seeds, first, n, (), tr), w, seeds, first, n, transform=tr))
        for w in ("peers", "real"):
            for tr in (("every", 10), ("affine", 2.0, -1.0)):
                out.append(Variant(f"{w} {W.transform_tag(tr)}", w, transform=tr))
            fs = fmts or tuple(WRITABLE)
            out.append(Variant(f"{w} x{len(fs)} formats", w, fmts=fs))
    else:
        transform: tuple | None = None
        if a.every:
            transform = ("every", a.every)
        elif a.reward_affine:
            ab = [float(x) for x in a.reward_affine.split(",")]
            transform = ("affine", ab[0], ab[1])
        elif a.step_offset:
            transform = ("offset", a.step_offset)
        plain = not steps and not fmts and a.seed_offset == 0 and transform is None
        for w in worlds:
            if w in base and not plain:
                first = base[w] + a.seed_offset
                for n in steps or [usual[w] if w == "sim" else (a.rl_steps or usual[w])]:
                    out.append(
                        Variant(
                            _sim_label(w, a.seeds or 5, first, n, fmts, transform),
                            w,
                            a.seeds or 5,
                            first,
                            n,
                            fmts,
                            transform=transform,
                        )
                    )
            elif w in base:
                n = usual[w] if w == "sim" else (a.rl_steps or usual[w])
                out.append(Variant(w, w, a.seeds or 5, None, n))
            elif transform or fmts:
                via = f" x{len(fmts)} formats" if len(fmts) > 1 else (f" via {fmts[0]}" if fmts else "")
                out.append(
                    Variant(f"{w} {W.transform_tag(transform)}".rstrip() + via, w, transform=transform, fmts=fmts)
                )
            else:
                out.append(Variant(w, w))
    for pattern in a.peers_dir:
        dirs = sorted(glob.glob(pattern)) or [pattern]
        for d in dirs:
            out.append(Variant(f"peers {Path(d).name}", "peers", peers_dir=Path(d)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worlds", default=",".join(WORLDS))
    ap.add_argument("--seeds", type=int, default=None, help="seeds per simulator (default 5; --holdout 10)")
    ap.add_argument(
        "--steps",
        default=None,
        help="a comma list of lengths: one variant per length for both simulators (a single "
        "number without other variant flags keeps the old meaning: the RL loop's length)",
    )
    ap.add_argument("--seed-offset", type=int, default=0)
    ap.add_argument("--formats", nargs="?", const="all", default=None)
    ap.add_argument("--peers-dir", action="append", default=[])
    ap.add_argument("--every", type=int, default=None, help="log every N steps (each value the window's mean)")
    ap.add_argument("--reward-affine", default=None, help="A,B: the reward logged as A*reward+B")
    ap.add_argument("--step-offset", type=int, default=None, help="every step number + K (a resumed run)")
    ap.add_argument("--holdout", action="store_true")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--md", type=Path, default=None)
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument(
        "--grid",
        default="",
        help="with --calibrate: only these thresholds (comma-separated; default every one with a grid)",
    )
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--group-misses", action="store_true", help="the misses grouped by scenario and mistake")
    a = ap.parse_args(argv)
    a.rl_steps = None
    if (
        a.steps
        and "," not in a.steps
        and a.seed_offset == 0
        and a.formats is None
        and not a.holdout
        and not a.every
        and not a.reward_affine
        and not a.step_offset
    ):
        a.rl_steps, a.steps = int(a.steps), None  # the old --steps N: the RL loop's length
    W.CACHE = a.cache

    t0 = time.perf_counter()
    for v in variants(a):
        got = v.cases()
        if not got:
            print(f"{v.label}: not available here (no runs found) — not scored")
        _CASES.extend(got)
    if a.calibrate:  # calibration re-diagnoses every run many times: build them once
        for c in _CASES:
            try:
                _RUNS.append(c.load())
            except Exception as exc:  # scored as a miss by score(); the reason is shown with the misses
                _RUNS.append(None)
                print(f"  cannot read {c.world}/{c.name}: {type(exc).__name__}: {exc}"[:160])
        print(f"{len(_CASES)} runs built in {time.perf_counter() - t0:.1f} s")
    else:
        print(f"{len(_CASES)} runs listed")

    ctx = mp.get_context("fork")
    pool = ctx.Pool(a.jobs) if a.jobs > 1 else None
    every = list(range(len(_CASES)))
    shipped = evaluate(every, {}, pool)
    summary = summarise(shipped)
    table("As shipped (the table's own values)", summary)
    for label, fm in per_format(shipped).items():
        print(
            f"  {label}, per format (right / scored): "
            + ", ".join(f"{f} {ok}/{n}" + (f" (+{sk} not scored)" if sk else "") for f, (ok, n, sk) in fm.items())
        )
    if a.show_misses:
        for s in misses(shipped):
            print(f"  miss {miss_line(s)}")
        unwritable = [s for s in shipped if s.skipped.startswith("unwritable")]
        for s in unwritable:
            print(f"  not written {s.case.world}/{s.case.name}: {s.skipped}")
        for s in shipped:
            if s.skipped.startswith("undetermined"):
                print(f"  undetermined {s.case.world}/{s.case.name}: got {s.got_verdict} {s.got_finding}; {s.skipped}")
    if a.group_misses:
        print("\n  misses grouped (runs, scenario, mistake, where):")
        for line in grouped_misses(shipped):
            print("  " + line)
    if a.md:
        a.md.write_text(markdown(summary, shipped), encoding="utf-8")
        print(f"  tables and misses written to {a.md}")

    if a.calibrate:
        try:
            from rlvitals.diagnose import thresholds
        except ImportError:
            print("\nno threshold table (rlvitals.diagnose.thresholds): nothing to calibrate")
            return 0
        grid = {k: t.grid for k, t in thresholds.TABLE.items() if t.grid and (not a.grid or k in a.grid.split(","))}
        start = {k: thresholds.TABLE[k].value for k in grid}
        print(f"\ncalibrating {len(grid)} thresholds: {', '.join(grid)}")
        present = list(dict.fromkeys(c.label for c in _CASES))
        held: dict[str, dict[str, float]] = {}
        for w in present:
            train = [i for i, c in enumerate(_CASES) if c.label != w]
            test = [i for i, c in enumerate(_CASES) if c.label == w]
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
