"""What a diagnosis is made of: findings with their evidence, look-alikes ruled out, and the knob.

Everything here is plain data (frozen dataclasses); the words a person reads come from
`rlvitals.i18n` at render time, keyed by the ids below, so zh and en can never disagree.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..i18n import t
from .registry import SPECS

__all__ = ["FINDING_IDS", "SEVERITIES", "VERDICTS", "Action", "Diagnosis", "Finding", "RuledOut"]

# learning (在学) · cheating (在作弊) · dead (已经废了) · unstable (在学, 但更新太猛不可信)
VERDICTS: tuple[str, ...] = ("learning", "cheating", "dead", "unstable")
SEVERITIES: tuple[str, ...] = ("info", "warning", "critical")

# Every finding id the tool knows, and the verdict it implies when it is the top finding
# (the registry's specs, in priority order).
FINDING_IDS: dict[str, str] = {sp.id: sp.verdict for sp in SPECS}


@dataclass(frozen=True)
class RuledOut:
    """A look-alike that was considered and excluded, and the normal metric that excluded it.

    lookalike: a finding id ("entropy_collapse").
    metric:    the canonical metric whose normal value ruled it out ("entropy").
    value:     that metric's value (a number, or a short string like "1.77 → 1.69").
    reason:    an i18n key under "ruled_out." explaining the logic ("entropy_healthy").
    """

    lookalike: str
    metric: str
    value: float | str | None
    reason: str


@dataclass(frozen=True)
class Action:
    """The next knob: which parameter, which way, a typical value, why and where that comes from."""

    knob: str  # "actor_rollout_ref.rollout.temperature" or a plain name ("learning rate")
    direction: str  # "raise" | "lower" | "enable" | "disable" | "check" | "replace" | "stop"
    typical: str  # "1.0", "ε_high 0.28", "halve it"
    why: str  # i18n key under "action_why."
    source: str  # "DAPO arXiv 2503.14476"


@dataclass(frozen=True)
class Finding:
    """One named failure (or notable condition) found in a run.

    evidence: ordered name -> number (or short string) the rule fired on, e.g.
              {"entropy_start": 1.84, "entropy_end": 0.009, "entropy_drop": 0.995, "reward_slope": 0.0}.
    missing:  canonical metrics that were absent and would have made the call surer.
    samples:  optional quotes of sampled answers used as evidence (from rollout dumps).
    """

    id: str
    severity: str
    onset_step: int | None
    evidence: dict[str, Any] = field(default_factory=dict)
    ruled_out: tuple[RuledOut, ...] = ()
    missing: tuple[str, ...] = ()
    action: Action | None = None
    confidence: float = 1.0
    samples: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.id not in FINDING_IDS:
            raise ValueError(f"unknown finding id {self.id!r}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")

    @property
    def rank(self) -> tuple[int, float]:
        """Sort key: most important first (severity, then confidence)."""
        return (-SEVERITIES.index(self.severity), -self.confidence)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Diagnosis:
    """The verdict, findings most important first, each vital's shape, and a summary of the run."""

    verdict: str
    findings: tuple[Finding, ...]
    shapes: dict[str, Any]  # canonical name -> rlvitals.shapes.Shape
    run: dict[str, Any]  # name, format, steps, first/last step, segments, notes, missing vitals

    @property
    def top(self) -> Finding | None:
        return self.findings[0] if self.findings else None

    def worst_severity(self) -> str | None:
        return max((f.severity for f in self.findings), key=SEVERITIES.index, default=None)

    def unproven_goal(self) -> dict[str, Any] | None:
        """The goal summary when nothing warns but the goal did not improve beyond its noise: such a run
        is not called healthy (learning is not shown yet), whatever the verdict word."""
        g: dict[str, Any] | None = self.run.get("goal") if isinstance(self.run, dict) else None
        if not g or g.get("improved") or self.verdict != "learning":
            return None
        return g

    def unproven_short(self) -> bool:
        """The unproven goal (`unproven_goal`) has too little data to be judged at all (fewer than
        min_points points, and on a sparse log points covering fewer steps): the report then says how
        many are needed; with enough, the goal is undecided by its noise, not by its length."""
        g = self.unproven_goal()
        return g is not None and not g.get("enough", g["points"] >= g["min_points"])

    def unproven_more(self, lang: str) -> str:
        """The tail of the "learning is not shown yet" sentence: the points a judgement needs (too
        short), or the gain the goal's noise could still hide (undecided by its noise), or nothing."""
        g = self.unproven_goal()
        if g is None:
            return ""
        if self.unproven_short():
            return t("ui.unproven_short", lang, need=g["min_points"])
        if "hidden_gain" in g:
            return t("ui.unproven_noisy", lang, hidden=f"{g['hidden_gain']:.4g}", material=f"{g['material']:.4g}")
        return ""

    def gloss_key(self) -> str:
        """The i18n key of the sentence that glosses the verdict: "learning" is qualified when the goal
        has not improved yet (or sits at its ceiling), when a KL bought it, or when the log has no goal;
        "unstable" when a blow-up came back, or when the goal held through one still running."""
        if (g := self.unproven_goal()) is not None:
            return "ui.verdict_gloss.learning_solved" if g.get("solved") else "ui.verdict_gloss.learning_unproven"
        if self.verdict == "learning" and any(f.evidence.get("goal_sets_verdict") for f in self.findings):
            return "ui.verdict_gloss.learning_bought"  # a warning left the verdict to the reward it bought
        if self.verdict == "unstable" and self.top is not None and self.top.evidence.get("reading") == "recovered":
            return "ui.verdict_gloss.unstable_recovered"  # a blow-up the goal came back from
        if self.verdict == "unstable" and self.top is not None and self.top.evidence.get("goal_held"):
            return "ui.verdict_gloss.unstable_held"  # a blow-up the goal has not paid for yet
        if self.verdict == "learning" and isinstance(self.run, dict) and "goal" in self.run and not self.run["goal"]:
            return "ui.verdict_gloss.learning_no_goal"  # never "learning" from the absence of a goal
        return f"verdict.{self.verdict}"

    def __str__(self) -> str:
        """A readable summary in English: the run, the verdict and its gloss, one line per finding
        (rlvitals.render.terminal.render_text is the whole report)."""
        name = self.run.get("name", "?") if isinstance(self.run, dict) else "?"
        lines = [
            f"{t('ui.diag.title', 'en')} · {name}",
            f"{t('ui.verdict_label', 'en')}: {t(f'ui.verdict.{self.verdict}', 'en')} — {t(self.gloss_key(), 'en')}",
        ]
        g = self.unproven_goal()
        if g is not None and not any(f.severity != "info" for f in self.findings):
            more = self.unproven_more("en")
            lines.append(
                t(
                    "ui.no_warnings_solved" if g.get("solved") else "ui.no_warnings_unproven",
                    "en",
                    solved=g.get("solved", ""),
                    metric=g["metric"],
                    start=f"{g['start']:.4g}",
                    end=f"{g['end']:.4g}",
                    points=g["points"],
                    span=g["span"],
                    more=more,
                )
            )
        for i, f in enumerate(self.findings, 1):
            since = f" · since step {f.onset_step}" if f.onset_step is not None else ""
            lines.append(
                f"  {i}. [{t(f'ui.severity.{f.severity}', 'en')}] {t(f'finding.{f.id}.title', 'en')} ({f.id}){since}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        tops = ", ".join(f"{f.id}:{f.severity}" for f in self.findings[:5])
        more = f", … {len(self.findings) - 5} more" if len(self.findings) > 5 else ""
        return f"Diagnosis(verdict={self.verdict!r}, run={self.run.get('name', '?')!r}, findings=[{tops}{more}])"
