"""Hand-built runs and diagnoses for the render tests and golden files.

Curves are closed-form (no random numbers), so the goldens cannot move with numpy's RNG.  The
healthy case uses the lesson's table of the L2 run (reward 0.412 → 0.847, acc 21.1% → 57.4%, ...).
"""

from __future__ import annotations

import math

import numpy as np

from rlvitals.diagnose.model import Action, Diagnosis, Finding, RuledOut
from rlvitals.run import Run, Segment, Series
from rlvitals.shapes import Shape

STEPS = np.arange(1, 201)


def _ease(a: float, b: float, tau: float = 60.0) -> np.ndarray:
    x = (STEPS - 1) / (STEPS[-1] - 1)
    k = (1 - np.exp(-x * 200 / tau)) / (1 - math.exp(-200 / tau))
    return a + (b - a) * k


def _wiggle(scale: float, period: float = 7.0) -> np.ndarray:
    return scale * np.sin(STEPS / period * 2 * math.pi) * np.cos(STEPS / 23.0)


def _shape(m: str, word: str, start: float, end: float, onset: int | None = None, **stats: float) -> Shape:
    rel = (end - start) / max(abs(start), 1e-3)
    return Shape(m, word, start, end, slope=(end - start) / 2.0, rel_change=rel, onset_step=onset, stats=stats)


def _run_dict(name: str, segments: int = 1, notes: tuple[str, ...] = (), missing: tuple[str, ...] = ()) -> dict:
    return {
        "name": name,
        "format": "lesson",
        "steps": 200,
        "first_step": 1,
        "last_step": 200,
        "segments": segments,
        "notes": list(notes),
        "missing": list(missing),
    }


def healthy() -> tuple[Diagnosis, Run]:
    cols = {
        "reward": _ease(0.412, 0.847) + _wiggle(0.01),
        "acc": _ease(0.211, 0.574) + _wiggle(0.01),
        "entropy": _ease(1.842, 1.498, 150),
        "kl": _ease(0.002, 0.045, 400),
        "adv_std": _ease(1.031, 0.664, 200),
        "clip_frac": _ease(0.0, 0.041, 300),
        "ratio_mean": np.ones(200),
        "len": _ease(78, 152, 120),
    }
    run = Run.from_arrays("run-01", STEPS, cols, format="lesson")
    shapes = {
        "reward": _shape("reward", "rising", 0.412, 0.847),
        "acc": _shape("acc", "rising", 0.211, 0.574),
        "entropy": _shape("entropy", "falling", 1.842, 1.498),
        "kl": _shape("kl", "rising", 0.002, 0.045),
        "adv_std": _shape("adv_std", "falling", 1.031, 0.664),
        "clip_frac": _shape("clip_frac", "rising", 0.0, 0.041),
        "ratio_mean": _shape("ratio_mean", "flat", 1.0, 1.0),
        "len": _shape("len", "rising", 78, 152),
    }
    watch = Finding(
        "data_too_easy",
        "info",
        120,
        evidence={"adv_std_start": 1.031, "adv_std_end": 0.664, "entropy_end": 1.498, "acc_end": 0.574},
        ruled_out=(RuledOut("entropy_collapse", "entropy", "1.842 → 1.498", "entropy_healthy"),),
        action=Action("training data", "replace", "a harder subset", "more_signal_per_batch", "DAPO arXiv 2503.14476"),
        confidence=0.6,
    )
    return Diagnosis("learning", (watch,), shapes, _run_dict("run-01")), run


def entropy_collapse() -> tuple[Diagnosis, Run]:
    cols = {
        "reward": _ease(0.30, 0.52, 30),
        "acc": _ease(0.20, 0.38, 30),
        "entropy": _ease(1.84, 0.009, 25),
        "adv_std": _ease(1.0, 0.24, 30),
        "clip_frac": np.zeros(200),
        "ratio_mean": np.ones(200),
        "len": _ease(80, 64, 40),
    }
    run = Run.from_arrays("ec-seed0", STEPS, cols, format="lesson")
    shapes = {
        "reward": _shape("reward", "flat", 0.30, 0.52, 70),
        "acc": _shape("acc", "flat", 0.20, 0.38, 70),
        "entropy": _shape("entropy", "to_zero", 1.84, 0.009, 40, tau=-0.97),
        "adv_std": _shape("adv_std", "falling", 1.0, 0.24),
        "clip_frac": _shape("clip_frac", "constant", 0.0, 0.0),
        "ratio_mean": _shape("ratio_mean", "constant", 1.0, 1.0),
        "len": _shape("len", "falling", 80, 64),
    }
    main = Finding(
        "entropy_collapse",
        "critical",
        63,
        evidence={
            "entropy_start": 1.84,
            "entropy_end": 0.009,
            "entropy_drop": 0.995,
            "reward_slope": 0.0012,
            "acc_end": 0.382,
        },
        ruled_out=(
            RuledOut("sync_failure", "ratio_mean", 1.0, "ratio_at_one"),
            RuledOut("data_too_easy", "acc", "38.2%", "acc_stuck_midway"),
        ),
        missing=("kl",),
        action=Action(
            "actor_rollout_ref.rollout.temperature",
            "raise",
            "1.0",
            "restore_exploration",
            "Skywork-OR1 arXiv 2505.22312",
        ),
        confidence=0.92,
        samples=("The answer is 42.", "The answer is 42.", "The   answer is\n42."),
    )
    second = Finding(
        "stalled",
        "warning",
        90,
        evidence={"reward_slope": 0.0012, "adv_std_end": 0.24},
        action=Action("training", "stop", "", "save_gpu_hours", "lesson L2"),
        confidence=0.7,
    )
    return Diagnosis("dead", (second, main), shapes, _run_dict("ec-seed0", missing=("kl",))), run


def sync_failure() -> tuple[Diagnosis, Run]:
    ratio = 1.0 - (1.0 - 0.5407) * (STEPS - 1) / 199.0
    ratio[100] = np.nan
    cols = {
        "reward": _ease(0.41, 0.47, 20) + _wiggle(0.02),
        "acc": _ease(0.21, 0.24, 20),
        "entropy": _ease(1.80, 1.774, 100),
        "kl": _ease(0.001, 0.004, 50),
        "adv_std": _ease(1.02, 0.98),
        "clip_frac": _ease(0.0, 0.02),
        "ratio_mean": ratio,
        "len": _ease(80, 82),
        "gnorm": 0.8 + _wiggle(0.05),
    }
    run = Run.from_arrays("sync", STEPS, cols, format="verl")
    run.segments = [Segment(1, 120, 1, 120), Segment(100, 200, 130, 101)]
    shapes = {m: _shape(m, "flat", float(np.nanmean(v[:20])), float(np.nanmean(v[-20:]))) for m, v in cols.items()}
    shapes["ratio_mean"] = _shape("ratio_mean", "drift", 1.0, 0.5407, 12, tau=-0.99)
    main = Finding(
        "sync_failure",
        "critical",
        12,
        evidence={
            "ratio_start": 1.0,
            "ratio_end": 0.5407,
            "ratio_tau": -0.99,
            "ratio_nan": 1,
            "kl_at_onset": float("nan"),
            "gnorm_max": float("inf"),
        },
        ruled_out=(
            RuledOut("entropy_collapse", "entropy", 1.774, "entropy_healthy"),
            RuledOut("data_too_hard", "adv_std", 0.98, "adv_std_healthy"),
        ),
        action=Action(
            "weight sync between trainer and rollout engine",
            "check",
            "ratio ≈ 1.0000",
            "ratio_should_stay_at_one",
            "verl docs/faq",
        ),
    )
    notes = ("the step counter restarted at line 130; later steps win where they overlap",)
    return Diagnosis("dead", (main,), shapes, _run_dict("sync", segments=2, notes=notes)), run


CASES = {"healthy": healthy, "entropy_collapse": entropy_collapse, "sync_failure": sync_failure}


def vitals_run() -> Run:
    """A run with a bit of everything `vitals` must show: proxy, NaN, constant, extras, skips, restarts."""
    adv = Series(
        "adv_std",
        STEPS,
        np.sqrt(1 - np.linspace(0.1, 0.6, 200)),
        source="frac_reward_zero_std",
        proxy=True,
        note="adv_std derived from frac_reward_zero_std",
    )
    reward = _ease(0.4, 0.8)
    reward[[10, 11]] = np.nan
    run = Run.from_arrays(
        "mixed",
        STEPS,
        {"reward": reward, "clip_frac": np.zeros(200), "adv_std": adv},
        format="trl",
        source="train/reward",
    )
    run.series["clip_frac"] = Series("clip_frac", STEPS, np.zeros(200), source="clip_ratio/region_mean")
    run.extras = {
        "completions/max_length": Series("completions/max_length", STEPS, np.full(200, 512.0), "x"),
        "train/epoch": Series("train/epoch", STEPS, STEPS / 200.0, "x"),
    }
    fmt_key = "rewards/xmlcount_reward_func/mean"
    run.components = {"xmlcount_reward_func": Series(fmt_key, STEPS, np.linspace(-0.37, 0.19, 200), fmt_key)}
    run.component_kinds = {"xmlcount_reward_func": "format"}
    run.extras[fmt_key] = run.components["xmlcount_reward_func"]
    ev_steps = STEPS[49::50]
    run.evals = {"eval/accuracy": Series("eval/accuracy", ev_steps, np.array([0.2, 0.25, 0.3, 0.32]), "eval/accuracy")}
    run.unrecognized = {"train_runtime": 1, "completions/clipped_text": 3}
    run.skipped = {"no metrics": 17, "truncated last line": 1}
    run.segments = [Segment(1, 150, 1, 150), Segment(120, 200, 160, 81)]
    run.notes = ["adv_std derived from frac_reward_zero_std", "steps inferred from logging_steps=10"]
    return run
