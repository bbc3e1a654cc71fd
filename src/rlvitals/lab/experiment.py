"""The experiment stage: turn one knob of a real RL loop, predict the curves, watch them, compare.

Five experiments on the RL-loop simulator (`simulate.rlloop`: a GRPO loop on a toy task, where
each failure comes from its cause), one for each of the lesson's four confusable pairs and one for
reward hacking.  Each offers two settings of a knob (the two causes of a pair, or a cause and the
untouched control), then three predictions about the curves.  The run is drawn step by step in
the terminal (`ui`), and every prediction is checked against the run's own shapes, in the words
and numbers the learner sees (`shapes.classify`), never against a hand-written answer.

    exp            list the experiments          exp E1      open one
    turn 1         choose the knob's setting     predict 2   say what the curves will do; run it
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..i18n import t
from ..shapes import Shape, shapes_of
from .content import View
from .state import StageResult

__all__ = ["CLAIMS", "EXPERIMENTS", "EXP_STEPS", "Experiment", "ExperimentMixin", "claim_holds", "run_setting"]

EXP_STEPS = 200
# reward "jitters hard": its step-to-step noise is this share of its level or more (the RL loop's
# healthy runs: about 5%; 4 prompts a step: 25-30%)
JITTER = 0.12


@dataclass(frozen=True)
class Experiment:
    """One knob, two settings (RL-loop scenario + knobs), three claims, the metrics to watch."""

    key: str
    pair: str  # "A".."D", or "hack"
    settings: tuple[tuple[str, dict[str, Any]], ...]
    claims: tuple[str, ...]
    watch: tuple[str, ...]


EXPERIMENTS: dict[str, Experiment] = {
    e.key: e
    for e in (
        Experiment(
            "E1",
            "A",
            (("sync_failure", {"onset": 5}), ("entropy_collapse", {})),
            ("ratio_drifts", "entropy_to_zero", "stays_healthy"),
            ("reward", "entropy", "ratio_mean", "adv_std"),
        ),
        Experiment(
            "E2",
            "B",
            (("data_too_easy", {}), ("entropy_collapse", {})),
            ("adv_low_entropy_normal", "adv_low_entropy_zero", "adv_stays"),
            ("acc", "entropy", "adv_std", "reward"),
        ),
        Experiment(
            "E3",
            "C",
            (("length_hacking", {"onset": 5, "len_bonus": 3.0}), ("healthy", {})),
            ("len_up_acc_not", "len_up_acc_up", "len_stays"),
            ("len", "acc", "trunc", "reward"),
        ),
        Experiment(
            "E4",
            "D",
            (("lr_too_high", {"onset": 5}), ("batch_noise", {})),
            ("jitter_clip_high", "jitter_clip_calm", "nothing_changes"),
            ("reward", "clip_frac", "gnorm", "ratio_mean"),
        ),
        Experiment(
            "E5",
            "hack",
            (("reward_hacking", {}), ("healthy", {})),
            ("reward_up_acc_not", "reward_acc_up", "reward_down"),
            ("reward", "acc", "val_acc", "len"),
        ),
    )
}


def _jitter(s: Shape) -> float:
    return s.stats.get("noise", 0.0) / max(abs(s.stats.get("level", 1.0)), 1e-9)


def _zero(s: Shape) -> bool:
    return s.word == "to_zero" or s.end < 0.3 * s.start


def _normal_entropy(s: Shape) -> bool:
    return not _zero(s) and s.end >= 0.5 * s.start


CLAIMS: dict[str, Callable[[dict[str, Shape]], bool]] = {
    "ratio_drifts": lambda sh: abs(sh["ratio_mean"].end - 1) > 0.02 and _normal_entropy(sh["entropy"]),
    "entropy_to_zero": lambda sh: _zero(sh["entropy"]) and abs(sh["ratio_mean"].end - 1) <= 0.02,
    "stays_healthy": lambda sh: _normal_entropy(sh["entropy"]) and abs(sh["ratio_mean"].end - 1) <= 0.02,
    "adv_low_entropy_normal": lambda sh: sh["adv_std"].end < 0.5 and _normal_entropy(sh["entropy"]),
    "adv_low_entropy_zero": lambda sh: sh["adv_std"].end < 0.5 and _zero(sh["entropy"]),
    "adv_stays": lambda sh: sh["adv_std"].end >= 0.6,
    "len_up_acc_not": lambda sh: sh["len"].word in ("rising", "spike") and sh["acc"].word not in ("rising", "spike"),
    "len_up_acc_up": lambda sh: sh["len"].word in ("rising", "spike") and sh["acc"].word == "rising",
    "len_stays": lambda sh: sh["len"].word not in ("rising", "spike"),
    "jitter_clip_high": lambda sh: sh["clip_frac"].end > 0.2,
    "jitter_clip_calm": lambda sh: sh["clip_frac"].end <= 0.2 and _jitter(sh["reward"]) >= JITTER,
    "nothing_changes": lambda sh: sh["clip_frac"].end <= 0.2 and _jitter(sh["reward"]) < JITTER,
    "reward_up_acc_not": lambda sh: sh["reward"].word in ("rising", "spike") and sh["acc"].word not in ("rising",),
    "reward_acc_up": lambda sh: sh["reward"].word == "rising" and sh["acc"].word == "rising",
    "reward_down": lambda sh: sh["reward"].word in ("falling", "to_zero"),
}


# The claim each setting is built to show (1-based), checked over level seeds by the tests.
EXPECTED: dict[tuple[str, int], int] = {
    ("E1", 1): 1,
    ("E1", 2): 2,
    ("E2", 1): 1,
    ("E2", 2): 2,
    ("E3", 1): 1,
    ("E3", 2): 2,
    ("E4", 1): 1,
    ("E4", 2): 2,
    ("E5", 1): 1,
    ("E5", 2): 2,
}


def claim_holds(claim: str, shapes: dict[str, Shape]) -> bool:
    try:
        return bool(CLAIMS[claim](shapes))
    except KeyError:  # a metric the run does not log: the claim cannot be shown to hold
        return False


def run_setting(exp: Experiment, setting: int, seed: int) -> Any:
    """The RL-loop run of one setting (1-based) of `exp`."""
    from ..simulate.rlloop import simulate_rl

    scenario, knobs = exp.settings[setting - 1]
    return simulate_rl(scenario, seed=seed, steps=EXP_STEPS, **knobs)


class ExperimentMixin:
    """The lab's experiment commands (`exp`, `turn`, `predict`); mixed into `engine.Lab`."""

    content: Any
    progress: Any
    lang: str
    _exp: tuple[str, int | None] | None
    last_exp: tuple[Experiment, Any, int, int] | None = None  # what the UI draws step by step

    def _t(self, msg_id: str, /, **kw: object) -> str:  # pragma: no cover - Lab defines it
        return t(msg_id, self.lang, **kw)

    def _save(self) -> None:  # pragma: no cover - Lab defines it
        pass

    def experiments(self) -> dict[str, Experiment]:
        return EXPERIMENTS

    def cmd_exp(self, args: list[str]) -> list[object]:
        key = args[0].upper() if args else None
        if key not in EXPERIMENTS:
            out: list[object] = [self._t("lab.exp.list")]
            for k in EXPERIMENTS:
                r = self.progress.results.get(k)
                mark = "  " if r is None else ("✓ " if r.correct else "✗ ")
                out.append(f"  {mark}{k}  {self._t(f'lab.exp.{k}.title')}")
            out.append(self._t("lab.exp.how"))
            return out
        self._exp = (key, None)
        out = [
            self._t("lab.exp.head", key=key, title=self._t(f"lab.exp.{key}.title")),
            self._t("lab.exp.setup", steps=EXP_STEPS),
        ]
        out += [f"  {i}) {self._t(f'lab.exp.{key}.s{i}')}" for i in range(1, len(EXPERIMENTS[key].settings) + 1)]
        out.append(self._t("lab.exp.turn_prompt"))
        return out

    def cmd_turn(self, args: list[str]) -> list[object]:
        if self._exp is None:
            return [self._t("lab.exp.none")]
        key = self._exp[0]
        n = len(EXPERIMENTS[key].settings)
        if not args or not args[0].isdigit() or not 1 <= int(args[0]) <= n:
            return [self._t("lab.exp.bad", n=n)]
        self._exp = (key, int(args[0]))
        out: list[object] = [
            self._t("lab.exp.turned", setting=self._t(f"lab.exp.{key}.s{args[0]}")),
            self._t("lab.exp.predict_prompt"),
        ]
        out += [f"  {i}) {self._t(f'lab.claim.{c}')}" for i, c in enumerate(EXPERIMENTS[key].claims, 1)]
        return out

    def cmd_predict(self, args: list[str]) -> list[object]:
        if self._exp is None or self._exp[1] is None:
            return [self._t("lab.exp.none") if self._exp is None else self._t("lab.exp.turn_first")]
        key, turned = self._exp
        setting = int(turned or 1)
        exp = EXPERIMENTS[key]
        if not args or not args[0].isdigit() or not 1 <= int(args[0]) <= len(exp.claims):
            return [self._t("lab.exp.bad", n=len(exp.claims))]
        guess = int(args[0])
        from ..simulate.lesson import stage_seed

        seed = stage_seed(self.content.seed, f"exp:{key}") % 100000
        run = run_setting(exp, setting, seed)
        shapes = shapes_of(run)
        self.last_exp = (exp, run, setting, guess)
        held = claim_holds(exp.claims[guess - 1], shapes)
        out: list[object] = [self._t("lab.exp.running", key=key, steps=EXP_STEPS)]
        out.append(View("exp", key))
        out.append(self._t("lab.exp.compare"))
        for i, c in enumerate(exp.claims, 1):
            mark = "✓" if claim_holds(c, shapes) else "✗"
            mine = self._t("lab.exp.yours") if i == guess else ""
            out.append(f"  {mark} {i}) {self._t(f'lab.claim.{c}')}{mine}")
        for m in exp.watch:
            if m in shapes:
                out.append(f"    {m:<10} {shape_line_of(shapes[m], m, self.lang)}")
        out.append(self._t("lab.exp.held" if held else "lab.exp.missed"))
        out.append(self._t(f"lab.exp.{key}.lesson"))
        self.progress.results[key] = StageResult(f"{setting}:{guess}", held, 0)
        self._exp = None
        self._save()
        return out


def shape_line_of(sh: Shape, metric: str, lang: str) -> str:
    """'rising 0.412 → 0.847' for one Shape (the lab's shape line, without a Diagnosis)."""
    from ..render.charts import fmt_value

    return f"{t(f'lab.word.{sh.word}', lang)} {fmt_value(metric, sh.start)} → {fmt_value(metric, sh.end)}"
