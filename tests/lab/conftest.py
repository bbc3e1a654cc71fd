"""Fixtures for the lab: a small fake level (hand-made runs + a fake diagnosis) for fast, exact
engine and transcript tests, and the real level (simulator + diagnose) built once per session."""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

import numpy as np
import pytest

from rlvitals.diagnose.model import Action, Diagnosis, Finding, RuledOut
from rlvitals.lab import run_lab
from rlvitals.lab.content import build_content
from rlvitals.run import Run
from rlvitals.shapes import Shape


@dataclass(frozen=True)
class FakeCase:
    key: str
    run: Run
    truth: dict
    samples: list | None = None


@dataclass(frozen=True)
class FakePair:
    key: str
    left: FakeCase
    right: FakeCase
    question: str


# scenario -> (verdict, finding, the metric that carries the symptom, how it ends)
SCEN = {
    "healthy": ("learning", None),
    "reward_hacking": ("cheating", "reward_hacking"),
    "entropy_collapse": ("dead", "entropy_collapse"),
    "length_hacking": ("cheating", "length_hacking"),
    "sync_failure": ("dead", "sync_failure"),
    "lr_too_high": ("unstable", "lr_too_high"),
    "data_too_easy": ("learning", "data_too_easy"),
    "batch_noise": ("learning", "batch_noise"),
}


def fake_run(scenario: str, seed: int | None) -> Run:
    rng = np.random.default_rng([zlib.crc32(scenario.encode()), 0 if seed is None else seed + 1])
    x = np.linspace(0, 1, 60)
    cols = {
        "reward": 0.4 + 0.4 * x + 0.02 * rng.standard_normal(60),
        "acc": 0.2 + 0.35 * x,
        "entropy": 1.8 - 0.3 * x,
        "kl": 0.002 + 0.04 * x,
        "adv_std": 1.0 - 0.3 * x,
        "clip_frac": 0.04 * x,
        "ratio_mean": np.ones(60),
        "len": 80 + 70 * x,
    }
    if scenario == "entropy_collapse":
        cols["entropy"] = 1.8 * np.exp(-6 * x)
    if scenario == "sync_failure":
        cols["ratio_mean"] = 1 - 0.45 * x
    run = Run.from_arrays(f"{scenario}-giveaway", np.arange(1, 61), cols)
    verdict, finding = SCEN[scenario]
    run.meta["truth"] = {"scenario": scenario, "verdict": verdict, "finding": finding, "onset_step": 20}
    return run


def fake_samples(scenario: str) -> list[dict]:
    same = scenario == "entropy_collapse"
    return [
        {
            "step": s,
            "group": "p1",
            "prompt": "2+2?",
            "reward": 1.0,
            "response": "The answer is 4." if same else f"Way {i}: count up, the answer is 4.",
        }
        for s in (10, 20)
        for i in range(8)
    ]


def fake_case(key: str, scenario: str, seed: int | None) -> FakeCase:
    run = fake_run(scenario, seed)
    return FakeCase(key, run, dict(run.meta["truth"]), fake_samples(scenario))


SETS = ("healthy", "reward_hacking", "entropy_collapse", "lr_too_high", "length_hacking", "sync_failure")
PAIRS = {
    "A": ("entropy_collapse", "sync_failure"),
    "B": ("data_too_easy", "entropy_collapse"),
    "C": ("healthy", "length_hacking"),
    "D": ("batch_noise", "lr_too_high"),
}


def fake_sets(seed=None):
    return [fake_case(str(i), sc, seed) for i, sc in enumerate(SETS, 1)]


def fake_pairs(seed=None):
    return {
        k: FakePair(k, fake_case(f"{k}1", a, seed), fake_case(f"{k}2", b, seed), "q") for k, (a, b) in PAIRS.items()
    }


def fake_diagnose(run: Run, samples=None) -> Diagnosis:
    """Reads the truth and dresses it as the tool would: evidence, a ruled-out look-alike, a knob."""
    truth = run.meta["truth"]
    shapes = {m: Shape(m, "rising", float(s.values[0]), float(s.values[-1])) for m, s in run.series.items()}
    if truth["scenario"] == "entropy_collapse":
        shapes["entropy"] = Shape("entropy", "falling", 1.8, 0.009)
    findings = ()
    if truth["finding"]:
        sev = "info" if truth["verdict"] == "learning" else "critical"
        findings = (
            Finding(
                truth["finding"],
                sev,
                20,
                evidence={"entropy_end": 0.009, "note": "x"},
                ruled_out=(RuledOut("sync_failure", "ratio_mean", 1.0, "ratio_steady"),),
                missing=("trunc",),
                action=Action("temperature", "raise", "1.0", truth["finding"], "DAPO"),
            ),
        )
    return Diagnosis(truth["verdict"], findings, shapes, {"name": run.name})


@pytest.fixture(scope="session")
def fake_content():
    return build_content(None, lesson_sets=fake_sets, lesson_pairs=fake_pairs, diagnose=fake_diagnose)


@pytest.fixture(scope="session")
def fake_content_seed7():
    return build_content(7, lesson_sets=fake_sets, lesson_pairs=fake_pairs, diagnose=fake_diagnose)


@pytest.fixture(scope="session")
def real_content():
    return build_content(None)


@pytest.fixture(scope="session")
def real_content_seed():
    return build_content(11)


def right_answers(content) -> list[str]:
    """The command lines a learner who reads the curves right would type, from the answer key."""
    lines = []
    for s in content.sets:
        lines += ["next", f"answer {s.verdict}" + (f" {s.failure}" if s.failure else "")]
    for p in content.pairs.values():
        side = next((s for s in (p.left, p.right) if s.answer in p.options), None)
        # a side the tool names outside the pair's two causes cannot be claimed: give the pair up
        lines += ["next", f"is {side.label} {side.answer}", "diff"] if side else ["next", "diff", "diff"]
    lines += ["quiz"] + [str(q.answer) for q in content.quiz]
    return lines


def expressible(content) -> int:
    """Pairs where the tool names at least one log as one of the pair's two causes."""
    return sum(any(s.answer in p.options for s in (p.left, p.right)) for p in content.pairs.values())


def play(content, lines, tmp_path, *, lang="en", seed=None, reset=False, state=None, width=400) -> str:
    """Run the level scripted (stdin) and return the transcript (wide, so no sentence is wrapped)."""
    out = io.StringIO()
    rc = run_lab(
        lang,
        seed,
        reset,
        "-",
        str(state or tmp_path / "p.json"),
        True,
        stdin=io.StringIO("\n".join(lines) + "\n"),
        stdout=out,
        figures=False,
        content=content,
        width=width,
    )
    assert rc == 0
    return out.getvalue()
