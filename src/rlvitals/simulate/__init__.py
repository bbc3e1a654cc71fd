"""Realistic simulated GRPO runs with known ground truth (`rlvitals simulate`).

    run = simulate("entropy_collapse", seed=3)          # a Run; run.meta["truth"] says what is wrong
    recs = simulate_samples("entropy_collapse", seed=3) # the rollouts behind it (8 per group)
    write_simulated(run, "ec.log", fmt="lesson")        # in any log format ingest can write

Every step rolls real dice (engine.py): B prompts x 8 answers with 0/1 correctness plus a format
score, so reward, acc and adv_std agree with one another; each failure bends the latent curves
its own way from a random onset (mechanisms.py).  `seed=None` gives the lesson's own numbers.
Same (name, seed, steps) -> same run.
"""

from __future__ import annotations

import json
import sys
import zlib
from typing import Any

import numpy as np

from ..errors import RlvitalsError
from ..i18n import Msg, Text
from ..output import check_output, writing
from ..run import Run, Series
from .engine import Latent, moving_mean, roll_dice
from .lesson import LabCase, LabPair, LabQuiz, apply_pins, lesson_pairs, lesson_quiz, lesson_sets
from .mechanisms import Draw, build
from .scenarios import SCENARIOS, Scenario, UnknownScenario, get_scenario, truth_text

__all__ = [
    "SCENARIOS",
    "LabCase",
    "LabPair",
    "LabQuiz",
    "Scenario",
    "UnknownScenario",
    "lesson_pairs",
    "lesson_quiz",
    "lesson_sets",
    "listing",
    "simulate",
    "simulate_samples",
    "write_simulated",
]

MIN_STEPS = 20
_NAN_METRICS = ("entropy", "kl", "adv_std", "clip_frac", "ratio_mean", "gnorm")


def _rng(name: str, seed: int | None) -> np.random.Generator:
    if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0):
        raise RlvitalsError(
            f"the seed must be a non-negative integer (or None for the lesson's numbers), not {seed!r}."
        )
    # The scenario's name is part of the seed, so two scenarios at one seed are independent draws.
    tag = zlib.crc32(name.encode())
    return np.random.default_rng([tag, 0 if seed is None else 1, 0 if seed is None else int(seed)])


def _check_steps(steps: int) -> int:
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < MIN_STEPS:
        raise RlvitalsError(f"a simulated run needs at least {MIN_STEPS} steps (got {steps!r}).")
    return int(steps)


def _derive_onset(adv: np.ndarray) -> int:
    """data_too_easy's onset: the first step where adv_std (rolling mean) sinks below 0.5."""
    w = max(3, adv.size // 40) | 1
    smooth = moving_mean(adv, w)
    below = np.flatnonzero(smooth < 0.5)
    return int(below[0]) if below.size else int(np.argmin(smooth))


PROFILES = ("default", "lab")


def _check_profile(profile: str) -> bool:
    if profile not in PROFILES:
        raise RlvitalsError(f"unknown profile {profile!r}; profiles are: {', '.join(PROFILES)}.")
    return profile == "lab"


def realise(
    name: str, seed: int | None, steps: int, profile: str = "default"
) -> tuple[Latent, int | None, dict[str, np.ndarray]]:
    """The latent state, the true onset index and the logged columns of one simulated run.

    profile="lab": the lab's stages, drawn so the lesson's table holds over the whole run (a
    failure begins in the first tenth; a cheating run's acc gives back what it gained).
    """
    sc = get_scenario(name)
    T = _check_steps(steps)
    rng = _rng(name, seed)
    lat, onset = build(name, Draw(rng, lesson=seed is None, stage=_check_profile(profile)), T)
    dice = roll_dice(lat, rng)
    cols: dict[str, np.ndarray] = {
        "reward": dice["reward"],
        "acc": dice["acc"],
        "entropy": lat.entropy,
        "kl": lat.kl,
        "adv_std": dice["adv_std"],
        "clip_frac": lat.clip,
        "ratio_mean": lat.ratio,
        "len": dice["len"],
        "gnorm": lat.gnorm,
        "trunc": dice["trunc"],
        "lr": lat.lr,
        "frac_reward_zero_std": dice["frac_zero_std"],
    }
    if sc.onset == "derived":
        onset = _derive_onset(cols["adv_std"])
    if seed is None:
        apply_pins(name, cols, onset)
    if lat.nan_from is not None:
        k = lat.nan_from
        for m in _NAN_METRICS:
            cols[m] = cols[m].copy()
            cols[m][k:] = np.nan
        cols["gnorm"][k] = np.inf  # the step it overflowed
        cols["kl"][k] = np.inf
        cols["adv_std"][k:] = np.nan
    return lat, onset, cols


def simulate(name: str, *, seed: int | None = 0, steps: int = 200, profile: str = "default") -> Run:
    """A simulated run of scenario `name` with `steps` steps (logged at steps 1..steps).

    `run.meta["truth"]` = {"scenario", "finding", "verdict", "severity", "onset_step"}.
    seed=None gives the lesson's own numbers (the healthy table, the three questions);
    profile="lab" the lab's stages (`realise`).
    """
    sc = get_scenario(name)
    lat, onset, cols = realise(name, seed, steps, profile)
    T = lat.T
    step_ids = np.arange(1, T + 1)
    zero_std = cols.pop("frac_reward_zero_std")
    run = Run.from_arrays(
        f"{name}-{'lesson' if seed is None else f'seed{seed}'}", step_ids, cols, format="simulated", source="simulated"
    )
    run.extras["frac_reward_zero_std"] = Series("frac_reward_zero_std", step_ids, zero_std, "simulated")
    run.extras["batch_size"] = Series("batch_size", step_ids, np.full(T, float(lat.B)), "simulated")
    run.meta.update(
        {
            "truth": {
                "scenario": name,
                "finding": sc.finding,
                "verdict": sc.verdict,
                "severity": sc.severity,
                "onset_step": None if onset is None else int(step_ids[onset]),
            },
            "simulated": True,
            "seed": seed,
            "steps": T,
            "profile": profile,
            "batch_prompts": lat.B,
            "group_size": 8,
            "effective_batch": lat.B,
            "max_response_length": int(lat.cap),
            "format_score": lat.w,
        }
    )
    run.notes.append(Msg("note.simulated", name=name, seed=seed, summary=Text(sc.summary, sc.summary_zh)))
    return run


def simulate_samples(
    name: str, *, seed: int | None = 0, steps: int = 200, every: int = 10, prompts: int = 4, profile: str = "default"
) -> list[dict[str, Any]]:
    """Rollout records {step, group, prompt, response, reward}, 8 per group, every `every` steps."""
    from .samples import make_samples

    if not isinstance(every, int) or every < 1 or not isinstance(prompts, int) or prompts < 1:
        raise RlvitalsError(f"`every` and `prompts` must be positive integers (got {every!r}, {prompts!r}).")
    lat, _, _ = realise(name, seed, steps, profile)
    tag = zlib.crc32(f"samples:{name}".encode())
    rng = np.random.default_rng([tag, 0 if seed is None else 1, 0 if seed is None else int(seed)])
    return make_samples(lat, rng, every=every, prompts=prompts)


def listing(lang: str = "en") -> str:
    """The dice engine's scenarios for `rlvitals simulate --list`, in `lang` (en or zh)."""
    from ..i18n import t

    zh = lang == "zh"
    lines = [t("sim.dice.scenarios", lang)]
    for name, sc in SCENARIOS.items():
        truth = truth_text(sc.finding, sc.verdict, lang)
        lines.append(f"  {name:22s} {sc.summary_zh if zh else sc.summary}  [{t('sim.rl.truth', lang)}: {truth}]")
    lines += ["", t("sim.dice.example", lang)]
    return "\n".join(lines) + "\n"


def write_simulated(run: Run, path: str, fmt: str = "lesson", samples_path: str | None = None) -> str:
    """Write `run` as a `fmt` log to `path` ("-" = stdout) and, if asked, its rollouts as JSONL.

    Returns where the log went ("<stdout>" or the path).
    """
    try:
        from ..ingest import write_run
    except ImportError:
        raise RlvitalsError("writing logs needs rlvitals.ingest.write_run, which this build lacks.") from None
    if samples_path:
        check_output(samples_path)
    if path == "-":
        with writing("standard output"):
            write_run(run, fmt, sys.stdout)
            sys.stdout.flush()
        out = "<stdout>"
    else:
        dest = check_output(path)
        with writing(dest):
            write_run(run, fmt, dest)
        out = str(path)
    if samples_path:
        truth = run.meta.get("truth") or {}
        if "scenario" not in truth:
            raise RlvitalsError("rollout samples can only be written for a simulated run.")
        if truth.get("engine") == "rl":
            from .rlloop import simulate_rl_samples

            recs = simulate_rl_samples(
                truth["scenario"],
                seed=int(run.meta.get("seed", 0)),
                steps=int(run.meta.get("steps", 300)),
                **dict(run.meta.get("knobs") or {}),
            )
        else:
            recs = simulate_samples(
                truth["scenario"],
                seed=run.meta.get("seed"),
                steps=int(run.meta.get("steps", 200)),
                profile=str(run.meta.get("profile", "default")),
            )
        with writing(samples_path), open(samples_path, "w", encoding="utf-8") as fh:
            for r in recs:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return out


# deprecated: `rlvitals.simulate(name)` still calls simulate() and warns, until 0.3 (rlvitals._deprecated)
from .._deprecated import warn_when_called  # noqa: E402

warn_when_called(__name__)
