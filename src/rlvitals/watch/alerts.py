"""When to raise the alarm and what it says (`--exec` and `--webhook` live in `sinks`).

`AlertTracker` turns a sequence of diagnoses of a growing run into alerts: one per finding id,
and once more only if it escalates from warning to critical.  When:

- **what one step proves** (an `INSTANT` finding at critical: a NaN, an overflow) at the first check
  that names it;
- **anything else, warning or critical**: once the diagnosis has named it (at warning or above) at
  two checks at least two steps apart, not necessarily consecutive: the same verdict reached again
  on more data.  A finding the diagnosis gives at one prefix and withdraws at the next (a one-check
  blip: measured on small-batch runs, where a borderline test flips with one new point, and on a
  reward_hacking critical read at one prefix while a format score is learned) is not news.  It
  costs two steps on a finding that holds (~1% of a 200-step run; the scheduler re-checks two steps
  after a first sighting); a finding that flickers on and off is still said at its second sighting.  (Measured alternatives, in docs/watch.md: first sighting,
  two consecutive checks, a 20-step floor, exempting a finding whose onset is already far back.)
- **a final diagnosis** (the history found when watching begins, a log gone quiet, the end of a
  `Monitor`): at once, like `rlvitals diagnose` would report it.

`persist > 1` can still require a finding to hold over several consecutive checks spanning
`persist_steps` steps, and `min_steps` a floor of steps before a trend finding may alert.

An `Alert` carries the `Finding` itself, so what is printed, posted and put in the environment is
the diagnosis' own evidence, look-alikes ruled out and next knob: the arithmetic, not a paraphrase.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ..diagnose.model import FINDING_IDS, SEVERITIES, Diagnosis, Finding
from ..i18n import t as tr

__all__ = [
    "CONFIRM",
    "CONFIRM_STEPS",
    "MIN_STEPS",
    "Alert",
    "AlertTracker",
    "alert_payload",
    "format_alert",
    "jsonable",
]

SCHEMA = "rlvitals.alert/1"


@dataclass(frozen=True)
class Alert:
    """One alarm: `finding` reached `severity` and held; `step` is the last step seen when raised."""

    finding: Finding
    severity: str
    step: int
    escalated: bool = False
    run: str = ""
    source: str = ""

    @property
    def id(self) -> str:
        return self.finding.id

    @property
    def onset_step(self) -> int | None:
        return self.finding.onset_step

    def at_least(self, severity: str) -> bool:
        return SEVERITIES.index(self.severity) >= SEVERITIES.index(severity)


# Steps a run needs before a trend finding may alert.  0: the diagnosis judges short prefixes
# itself (its rules need their own minimum of points); the watcher's old floor of 20 steps held
# every failure present from step 1 (data_too_hard, stalled) to step 20 while the diagnosis named
# it at step ~10, and the early blips it also caught are now stopped by CONFIRM.
MIN_STEPS = 0
# A warning alerts once the diagnosis has named it at CONFIRM checks spanning CONFIRM_STEPS steps.
CONFIRM = 2
CONFIRM_STEPS = 2

# Findings a single step can prove (a NaN is a NaN): exempt from the minimum run length below.
INSTANT: frozenset[str] = frozenset({"numeric_instability"})


@dataclass
class AlertTracker:
    """Streaks of each finding over consecutive checks, and what has been alerted already.

    A finding alerts at a severity when it is named at that severity or above: at once if a single
    step proves it (an `INSTANT` finding at critical); otherwise once it has been named (warning or above) at `confirm` checks,
    not necessarily consecutive, spanning at least `confirm_steps` steps (see the module
    docstring; confirm=1: the first sighting).  On top of that, optionally, it must hold for
    `persist` consecutive checks spanning `persist_steps` steps (default 1: no such demand) and,
    unless a single step can prove it (`INSTANT`), the run must have `min_steps` steps.
    """

    persist: int = 1
    persist_steps: int = 5
    min_steps: int = MIN_STEPS
    min_severity: str = "warning"
    confirm: int = CONFIRM
    confirm_steps: int = CONFIRM_STEPS
    alerted: dict[str, str] = field(default_factory=dict)
    # severity level -> finding id -> (consecutive checks with the finding at or above that level,
    # the step of the first of them)
    _streak: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    # finding id -> (checks that named it at min_severity or above, the step of the first)
    _sighted: dict[str, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.persist < 1 or self.confirm < 1:
            raise ValueError("persist and confirm must be at least 1")
        if self.min_severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.min_severity!r}")
        self._levels = SEVERITIES[SEVERITIES.index(self.min_severity) :]
        self._streak = {lvl: {} for lvl in self._levels}

    def update(
        self,
        diag: Diagnosis,
        step: int,
        *,
        run: str = "",
        source: str = "",
        confirmed: bool = False,
        n_steps: int | None = None,
    ) -> list[Alert]:
        """Feed one check's diagnosis; return the alerts it raises (usually none).

        step:      the last step the diagnosis saw.
        n_steps:   how many steps the run has (None: unknown, no minimum applied).
        confirmed: this diagnosis is final for its data (the history found when watching starts,
                   or a log gone quiet): it needs no further checks to be believed.
        """
        rank = SEVERITIES.index
        step = int(step)
        young = n_steps is not None and n_steps < self.min_steps
        found = {f.id: f for f in diag.findings if not (young and f.id not in INSTANT)}
        low = rank(self.min_severity)
        for fid, seen in found.items():
            if rank(seen.severity) >= low:
                n_seen, first_seen = self._sighted.get(fid, (0, step))
                self._sighted[fid] = (n_seen + 1, first_seen)
        for lvl in self._levels:
            streak = self._streak[lvl]
            for fid in set(streak) | set(found):
                f = found.get(fid)
                if f is not None and rank(f.severity) >= rank(lvl):
                    n, first = streak.get(fid, (0, step))
                    streak[fid] = (n + 1, first if n else step)
                else:
                    streak.pop(fid, None)
        out: list[Alert] = []
        for fid, f in found.items():
            held = [
                lvl
                for lvl in self._levels
                if self._holds(self._streak[lvl].get(fid), step, confirmed)
                and (confirmed or (lvl == SEVERITIES[-1] and fid in INSTANT) or self._sighted_enough(fid, step))
            ]
            if not held:
                continue
            sev = held[-1]  # the highest level that has held
            before = self.alerted.get(fid)
            if before is None or rank(sev) > rank(before):
                self.alerted[fid] = sev
                out.append(Alert(f, sev, step, escalated=before is not None, run=run, source=source))
        # most severe first, so `--until` and a reader meet the worst news first; among equals the
        # diagnosis' own order (its precedence table), so the first alert is what `diagnose` ranks first
        pos = {f.id: i for i, f in enumerate(diag.findings)}
        out.sort(key=lambda a: (-rank(a.severity), pos.get(a.id, len(pos))))
        return out

    def _holds(self, streak: tuple[int, int] | None, step: int, confirmed: bool) -> bool:
        if streak is None:
            return False
        if confirmed:
            return True
        n, first = streak
        # persist=1 means "believe the first sighting": no span either
        return n >= self.persist and (self.persist == 1 or step - first >= self.persist_steps)

    def _sighted_enough(self, fid: str, step: int) -> bool:
        n, first = self._sighted.get(fid, (0, step))
        return self.confirm == 1 or (n >= self.confirm and step - first >= self.confirm_steps)

    @property
    def unconfirmed(self) -> bool:
        """True when some finding is present but has not held long enough to alert (or escalate)."""
        rank = SEVERITIES.index
        for lvl in self._levels:
            for fid in self._streak[lvl]:
                said = self.alerted.get(fid)
                if said is None or rank(said) < rank(lvl):
                    return True
        return False

    def reset(self) -> None:
        """Forget everything (the log was truncated: a new run begins)."""
        self.alerted.clear()
        self._sighted.clear()
        for streak in self._streak.values():
            streak.clear()


# -- words ----------------------------------------------------------------------------------
def _num(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, (int, float)) or (hasattr(v, "__float__") and not isinstance(v, str)):
        try:
            x = float(v)
        except (TypeError, ValueError):
            return str(v)
        if math.isnan(x) or math.isinf(x):
            return str(x)
        if x == int(x) and abs(x) < 1e9:
            return str(int(x))
        return f"{x:.4g}"
    return str(v)


def format_alert(alert: Alert, lang: str = "en") -> str:
    """The alert as a few lines of text: what, since which step, the evidence, the knob.

    The words are the report's own (`rlvitals.render.words` over the findings catalog),
    so an alert and `rlvitals diagnose` never describe one finding differently; if the renderer
    cannot be imported, this module's plainer sentences stand in.
    """
    rt: ModuleType | None
    try:
        from ..render import words as rt
    except Exception:  # the renderer is another module; an alert must still be said
        rt = None
    f = alert.finding
    title = rt.finding_title(f.id, lang) if rt else f.id.replace("_", " ")
    onset = f.onset_step if f.onset_step is not None else tr("watch.onset_unknown", lang)
    sev_word = tr(f"watch.sev.{alert.severity}", lang)
    key = "watch.alert.head_escalated" if alert.escalated else "watch.alert.head"
    lines = [
        tr(key, lang, sev=alert.severity.upper(), sev_word=sev_word, step=alert.step, title=title, id=f.id, onset=onset)
    ]
    num = rt.fmt_num if rt else _num
    if rt:
        summary = _safe(lambda: rt.finding_summary(f, lang))
        if summary and "{" not in summary:  # a template whose fields the evidence lacks stays unsaid
            lines.append("  " + summary)
    if f.evidence:
        items = ", ".join(f"{k}={num(v)}" for k, v in list(f.evidence.items())[:8])
        lines.append("  " + tr("watch.alert.evidence", lang, items=items))
    for r in f.ruled_out[:3]:
        text = _safe(lambda ro: rt.label("ui.ruled_out", lang) + rt.ruled_out_text(ro, lang), r) if rt else ""
        lines.append(
            "  "
            + (text or tr("watch.alert.ruled_out", lang, lookalike=r.lookalike, metric=r.metric, value=_num(r.value)))
        )
    if f.missing:
        text = _safe(lambda: rt.label("ui.missing", lang) + rt.missing_text(f.missing, lang)) if rt else ""
        lines.append("  " + (text or tr("watch.alert.missing", lang, metrics=", ".join(f.missing))))
    a = f.action
    if a is not None:
        text = _safe(lambda: "→ " + rt.label("ui.next", lang) + rt.action_text(a, lang)) if rt else ""
        if not text:
            direction = tr(f"watch.dir.{a.direction}", lang)
            if direction == f"watch.dir.{a.direction}":
                direction = a.direction
            text = tr(
                "watch.alert.action",
                lang,
                direction=direction,
                knob=a.knob,
                typical=a.typical,
                why=a.why,
                source=a.source,
            )
        lines.append("  " + text)
    return "\n".join(lines)


def _safe(fn: Callable[..., object], *args: object) -> str:
    try:
        return str(fn(*args) or "")
    except Exception:
        return ""


def jsonable(obj: Any) -> Any:
    """Plain JSON types only: numpy scalars to Python, NaN/inf to None, tuples to lists."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "item"):  # numpy scalar
        try:
            return jsonable(obj.item())
        except (TypeError, ValueError):
            pass
    if hasattr(obj, "__dataclass_fields__"):
        return jsonable({k: getattr(obj, k) for k in obj.__dataclass_fields__})
    return str(obj)


def alert_payload(alert: Alert, lang: str = "en") -> dict[str, Any]:
    """The alert as one JSON object (schema rlvitals.alert/1; documented in docs/watch.md)."""
    from ..i18n import t

    f = alert.finding
    title = t(f"finding.{f.id}.title", lang)
    payload: dict[str, Any] = jsonable(
        {
            "schema": SCHEMA,
            "run": alert.run,
            "source": alert.source,
            "step": alert.step,
            "finding": f.id,
            "severity": alert.severity,
            "escalated": alert.escalated,
            "onset_step": f.onset_step,
            "verdict": FINDING_IDS.get(f.id),
            "title": title if title != f"finding.{f.id}.title" else f.id,
            "evidence": f.evidence,
            "ruled_out": f.ruled_out,
            "missing": f.missing,
            "action": f.action,
            "confidence": f.confidence,
            "text": format_alert(alert, lang),
        }
    )
    return payload
