"""A second simulator: a real RL loop (GRPO with a clipped importance ratio) on a toy task, in numpy.

    from rlvitals.simulate.rlloop import simulate_rl, SCENARIOS
    run = simulate_rl("sync_failure", seed=2)                 # a Run; run.meta["truth"] says what is wrong
    run = simulate_rl("healthy", seed=0, temperature=0.5)     # turn a knob and watch what it does

Nothing here draws a curve: a softmax policy is trained on verifier rewards (task.py, policy.py,
loop.py) and each failure is a cause -- a knob -- that the loop turns into curves
(scenarios.py).  It shares no mechanism with the dice simulator (`rlvitals.simulate.simulate`).
Same (scenario, seed, steps, knobs) -> same run.
"""

from __future__ import annotations

import zlib
from dataclasses import replace
from typing import Any

import numpy as np

from ...errors import RlvitalsError
from ...i18n import Listing, Msg, Text
from ...run import Run, Series
from .knobs import KNOB_HELP, RUN_LEVEL, BadKnob, Knobs, check_knobs
from .loop import VITALS_LOGGED, Trace, train
from .scenarios import SCENARIOS, RLScenario, UnknownRLScenario, derived_onset, get_rl_scenario

__all__ = [
    "KNOB_HELP",
    "SCENARIOS",
    "BadKnob",
    "Knobs",
    "RLScenario",
    "UnknownRLScenario",
    "listing",
    "simulate_rl",
    "simulate_rl_cli",
    "simulate_rl_samples",
]

MIN_STEPS = 20
COMPONENT_KINDS = {"verifier": "correctness", "format": "format", "length": "length"}


def _rng(name: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(f"rlloop:{name}".encode()), int(seed)])


def _check(seed: object, steps: object) -> tuple[int, int]:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise RlvitalsError(f"the seed must be a non-negative integer, not {seed!r}.")
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < MIN_STEPS:
        raise RlvitalsError(f"an RL-loop run needs at least {MIN_STEPS} steps (got {steps!r}).")
    return int(seed), int(steps)


def configure(sc: RLScenario, steps: int, knobs: dict[str, Any], rng: np.random.Generator) -> tuple[Knobs, int | None]:
    """The knobs for the run and the cause's 0-based onset index (None for derived / healthy).

    The knobs you pass replace the scenario's; `onset=S` moves the scenario's cause to step S (for
    `healthy`, it makes the knobs you pass take effect at step S).
    """
    knobs = dict(knobs)
    user_onset = knobs.pop("onset", None)
    if user_onset is not None and user_onset > steps:
        raise BadKnob(f"knob onset={user_onset} is after the last step ({steps}).")
    cause = dict(sc.cause)
    start = dict(sc.start)
    if user_onset is not None and not cause:
        fixed = sorted(k for k in start if k in RUN_LEVEL)
        if fixed:
            raise BadKnob(f"{sc.name}'s cause ({', '.join(fixed)}) holds for the whole run; onset cannot move it.")
        # no mid-run cause of its own: what it sets from step one (and what you set) starts at `onset`
        cause = {k: v for k, v in {**start, **knobs}.items() if k not in RUN_LEVEL}
        start = {k: v for k, v in start.items() if k in RUN_LEVEL}
        knobs = {k: v for k, v in knobs.items() if k in RUN_LEVEL}
    for k in list(knobs):
        if k in cause:
            cause[k] = knobs.pop(k)
    start.update(knobs)
    onset: int | None = None
    if cause and (sc.onset == "mid" or user_onset is not None):
        onset = user_onset - 1 if user_onset is not None else int(rng.integers(int(0.3 * steps), int(0.6 * steps) + 1))
    elif cause:  # "start": the cause holds from step one
        start.update(cause)
        cause = {}
        onset = 0
    elif sc.onset == "start":
        onset = 0
    base = replace(Knobs(), steps=steps, **start)
    if cause:
        base = replace(base, late={k: v for k, v in cause.items() if k not in RUN_LEVEL}, late_from=onset)
    return base, onset


def _simulate(
    scenario: str, seed: object, steps: object, knobs: dict[str, Any], record: tuple[int, int] | None = None
) -> tuple[RLScenario, Trace, Knobs, int, int | None, dict[str, Any]]:
    sc = get_rl_scenario(scenario)
    seed, steps = _check(seed, steps)
    given = check_knobs(knobs)
    if "steps" in given:
        raise BadKnob("pass steps=... as the argument (or --steps), not as a knob.")
    rng = _rng(scenario, seed)
    kn, onset = configure(sc, steps, given, rng)
    tr = train(kn, rng, record=record)
    if sc.onset == "derived":
        began = derived_onset(sc.rule, tr)
        # the onset is when the cause started (yours, if you moved it); a failure that never began is not claimed
        onset = None if began is None else (onset if "onset" in given else began)
    return sc, tr, kn, seed, onset, given


def simulate_rl(scenario: str, *, seed: int = 0, steps: int = 300, **knobs: Any) -> Run:
    """Train the toy policy under `scenario` (and any knobs you turn) and return the logged run.

    `run.meta["truth"]` = {"scenario", "finding", "verdict", "severity", "onset_step", "engine": "rl"}.
    `run.components` holds the reward terms (verifier, format, length) and `run.component_kinds` their kinds.
    """
    return to_run(*_simulate(scenario, seed, steps, knobs))


def simulate_rl_samples(
    scenario: str, *, seed: int = 0, steps: int = 300, every: int = 10, prompts: int = 4, **knobs: Any
) -> list[dict[str, Any]]:
    """The rollouts behind `simulate_rl(scenario, seed=seed, steps=steps, **knobs)`: at steps 1, 1+every, ...
    the answers to the first `prompts` prompts (G each) as {step, group, prompt, response, reward}."""
    from .samples import render

    if not isinstance(every, int) or every < 1 or not isinstance(prompts, int) or prompts < 1:
        raise RlvitalsError(f"`every` and `prompts` must be positive integers (got {every!r}, {prompts!r}).")
    sc, tr, _, seed_i, _, _ = _simulate(scenario, seed, steps, knobs, record=(every, prompts))
    return render(tr.rollouts or [], sc.name, seed_i)


def to_run(sc: RLScenario, tr: Trace, kn: Knobs, seed: int, onset: int | None, given: dict[str, Any]) -> Run:
    """The logged series as a Run, as a framework would have written them."""
    T = kn.steps
    steps = np.arange(1, T + 1)
    cols: dict[str, object] = {k: tr.cols[k] for k in VITALS_LOGGED}
    run = Run.from_arrays(f"rl-{sc.name}-seed{seed}", steps, cols, format="simulated", source="simulated")
    run.series["val_acc"] = Series("val_acc", tr.val_steps + 1, tr.val_acc, "simulated")
    run.extras["frac_reward_zero_std"] = Series(
        "frac_reward_zero_std", steps, tr.cols["frac_reward_zero_std"], "simulated"
    )
    batch = np.array([kn.at(t).batch for t in range(T)], dtype=float)
    run.extras["batch_size"] = Series("batch_size", steps, batch, "simulated")
    comps: dict[str, Series] = {}
    for name, col in (("verifier", "r_correctness"), ("format", "r_format"), ("length", "r_length")):
        vals = tr.cols[col]
        if name != "verifier" and not np.any(vals):  # a term that is off is not logged
            continue
        comps[name] = Series(name, steps, vals, f"rewards/{name}/mean")
        run.extras[f"rewards/{name}/mean"] = Series(f"rewards/{name}/mean", steps, vals, "simulated")
    run.components = comps
    run.component_kinds = {k: COMPONENT_KINDS[k] for k in comps}
    truth = dict(sc.truth)
    truth["onset_step"] = None if onset is None or sc.finding is None else int(onset) + 1
    truth["engine"] = "rl"
    if sc.finding is not None and onset is None:
        # a derived failure that never began in this run (too short for it): say what did happen
        truth.update(
            finding=None,
            verdict="learning",
            severity=None,
            note=f"the cause of {sc.name} was present but the failure had not begun by step {T}",
        )
    run.meta.update(
        {
            "truth": truth,
            "simulated": True,
            "engine": "rl",
            "seed": seed,
            "steps": T,
            "batch_prompts": kn.batch,
            "group_size": kn.group,
            "max_response_length": kn.cap,
            "knobs": {k: v for k, v in given.items()},
        }
    )
    run.notes.append(Msg("sim.note.rl_scenario", name=sc.name, seed=seed, summary=Text(sc.summary, sc.summary_zh)))
    if given:
        run.notes.append(
            Msg("sim.note.knobs", knobs=Listing(tuple(f"{k}={v}" for k, v in given.items()), "note.comma_sep"))
        )
    return run


def parse_knobs(pairs: list[str]) -> dict[str, str]:
    """["lr=0.1", "temperature=0.5"] -> {"lr": "0.1", ...}; a malformed pair is a one-line error."""
    out: dict[str, str] = {}
    for p in pairs:
        name, sep, value = p.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise BadKnob(f"--knob wants NAME=VALUE, got {p!r}.")
        out[name.strip()] = value.strip()
    return out


def listing(lang: str = "en") -> str:
    """The scenarios (with their truth) and the knobs (with their defaults), for `--engine rl --list`."""
    from ...i18n import t
    from ..scenarios import truth_text

    zh = lang == "zh"
    lines = [t("sim.rl.scenarios", lang)]
    for name, sc in SCENARIOS.items():
        truth = truth_text(sc.finding, sc.verdict, lang)
        lines.append(f"  {name:22s} {sc.summary_zh if zh else sc.summary}  [{t('sim.rl.truth', lang)}: {truth}]")
    lines += ["", t("sim.rl.knobs", lang)]
    defaults = Knobs()
    for name, (en, zh_text) in KNOB_HELP.items():
        default = getattr(defaults, name, None)
        shown = "" if name == "onset" else f" [{default}]"
        lines.append(f"  {name:14s} {zh_text if zh else en}{shown}")
    lines += ["", t("sim.rl.example", lang)]
    return "\n".join(lines) + "\n"


def simulate_rl_cli(
    scenario: str | None, *, list_only: bool, seed: int, steps: int | None, knobs: list[str], lang: str = "en"
) -> Run | None:
    """What `rlvitals simulate --engine rl` does: print the listing (returns None) or run a scenario."""
    if list_only or not scenario:
        import sys

        sys.stdout.write(listing(lang))
        return None
    return simulate_rl(scenario, seed=seed, steps=300 if steps is None else steps, **parse_knobs(knobs))
