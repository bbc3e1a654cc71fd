"""The lab's explanations and hints, made from the tool's own diagnosis (never a hand-written answer).

A set's explanation is its top finding's evidence, the look-alikes it ruled out (and the normal metric
that ruled each out), what is missing, and the knob; a healthy set (nothing above info) gets no
knob: it says so, and what to keep watching (adv_std, in the lesson's bands).  A pair's `diff` lists the metrics where the two
logs differ and what each difference rules out.  Hints are graded: where to look → what the values
are → the lesson's rule.  Everything returns translated lines.
"""

from __future__ import annotations

from typing import Any

from ..diagnose.model import Diagnosis, Finding
from ..i18n import t
from ..render.charts import fmt_value, pad
from ..run import EXTRAS, VITALS
from .aliases import name_of
from .content import FOCUS, HEALTHY, PairItem, QuizItem, SetItem, Side

__all__ = [
    "ADV_STD_BANDS",
    "adv_std_band",
    "differing_metrics",
    "explain_diff",
    "explain_quiz",
    "explain_set",
    "focus_metrics",
    "hint_pair",
    "hint_quiz",
    "hint_set",
    "name_of",
    "num",
    "quiz_text",
    "sample_group",
    "shape_line",
]

SHOWN: tuple[str, ...] = VITALS + tuple(m for m in EXTRAS if m in ("gnorm", "trunc"))
# The lesson's adv_std table ("判读标准"), lowest bound first met from the top: >= 0.8 healthy,
# 0.5-0.8 normal late on, 0.3-0.5 many groups degenerate (0.2-0.3 read with it), < 0.2 stopped.
# Its words are `lab.band.<name>`; `ref adv_std` shows the whole table.
ADV_STD_BANDS: tuple[tuple[float, str], ...] = ((0.8, "b1"), (0.5, "b2"), (0.2, "b3"), (float("-inf"), "b4"))


def adv_std_band(value: float) -> str:
    return next(name for lo, name in ADV_STD_BANDS if value >= lo)


def num(v: Any) -> str:
    """A number as evidence reads it: 4 significant digits; strings and None as they are."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, float)):
        return f"{v:.4g}"
    return str(v)


def focus_metrics(item: SetItem) -> tuple[str, ...]:
    """Where a set's hints point: the metrics behind the tool's call."""
    if item.diag.verdict == "learning" and healthy(item.diag):
        return FOCUS[HEALTHY]  # an info note on a healthy run is no lead to follow
    key = item.failure or (item.diag.top.id if item.diag.top else HEALTHY)
    return FOCUS.get(key, FOCUS[HEALTHY])


def shape_line(diag: Diagnosis, metric: str, lang: str) -> str | None:
    """'entropy  falling  1.842 → 0.009' from the diagnosis' shapes, or None if not logged."""
    sh = diag.shapes.get(metric)
    if sh is None:
        return None
    word = t(f"lab.word.{sh.word}", lang)
    return f"{word} {fmt_value(metric, sh.start)} → {fmt_value(metric, sh.end)}"


def _finding_lines(f: Finding, lang: str, prefix: str = "", knob: bool = True) -> list[str]:
    """A finding in plain words: what the tool saw (the report's own sentence, never raw evidence
    keys), what it ruled out and which normal metric ruled it out, what is missing, the knob."""
    from ..render.words import action_text, finding_summary, ruled_out_text

    out = []
    summary = finding_summary(f, lang)
    if summary:
        out.append(prefix + t("lab.ex.evidence", lang, ev=summary))
    for r in f.ruled_out:
        out.append(prefix + t("lab.ex.ruled", lang, text=ruled_out_text(r, lang)))
    if f.missing:
        out.append(prefix + t("lab.ex.missing", lang, metrics=", ".join(f.missing)))
    if f.samples:
        out.append(prefix + t("lab.ex.samples", lang, n=len(f.samples), first=f.samples[0][:200]))
    a = f.action
    if f.severity == "info":  # a note is worth watching, never a knob to turn
        out.append(prefix + t("lab.ex.no_knob", lang))
    elif a is not None and knob:  # hidden while the learner is still asked to pick the knob
        out.append(prefix + t("lab.ex.knob_plain", lang, text=action_text(a, lang)))
    return out


def healthy(diag: Diagnosis) -> bool:
    """Nothing above info: the run needs no change (notes are worth watching, never a knob)."""
    return all(f.severity == "info" for f in diag.findings)


def _explain_healthy(item: SetItem, lang: str) -> list[str]:
    """A healthy set: say so, show its shapes, and what to keep watching -- never a knob to turn."""
    d = item.diag
    out = [t("lab.ex.tool", lang, verdict=t(f"lab.verdict.{d.verdict}", lang), name=name_of(HEALTHY, lang), onset="")]
    for m in (*FOCUS[HEALTHY], "adv_std"):
        line = shape_line(d, m, lang)
        if line:
            out.append(f"    {m:<10} {line}")
    out.append(t("lab.ex.healthy", lang))
    out.append(watch_line(d, lang))
    from ..render.words import finding_summary

    for f in d.findings:  # info notes: what the tool would keep an eye on, in the report's words
        out.append(t("lab.ex.note", lang, name=name_of(f.id, lang), ev=finding_summary(f, lang) or "—"))
    return out


def watch_line(d: Diagnosis, lang: str, prefix: str = "") -> str:
    """What a healthy run should keep an eye on: adv_std, placed in the lesson's bands."""
    adv = d.shapes.get("adv_std")
    if adv is None:
        return prefix + t("lab.ex.watch_missing", lang)
    return prefix + t(
        "lab.ex.watch",
        lang,
        start=fmt_value("adv_std", adv.start),
        end=fmt_value("adv_std", adv.end),
        band=t(f"lab.band.{adv_std_band(adv.end)}", lang),
    )


def explain_set(item: SetItem, lang: str, knob: bool = True) -> list[str]:
    """The tool's reasoning for one set: verdict and name, shapes it read, evidence, ruled out, knob."""
    d = item.diag
    if d.verdict == "learning" and healthy(d):
        return _explain_healthy(item, lang)
    top = d.top
    name = name_of(item.failure or (top.id if top else HEALTHY), lang)
    onset = t("lab.ex.onset", lang, step=top.onset_step) if top is not None and top.onset_step is not None else ""
    if top is not None and top.severity == "info":
        onset += t("lab.ex.info", lang)
    out = [t("lab.ex.tool", lang, verdict=t(f"lab.verdict.{d.verdict}", lang), name=name, onset=onset)]
    for m in focus_metrics(item):
        line = shape_line(d, m, lang)
        if line:
            out.append(f"    {m:<10} {line}")
    if top is None:
        out.append(t("lab.ex.healthy", lang))
    else:
        out += _finding_lines(top, lang, "  ", knob)
    return out


def differing_metrics(a: Diagnosis, b: Diagnosis) -> list[str]:
    """Metrics whose shape word differs, or whose end levels differ by more than a quarter."""
    out = []
    for m in SHOWN:
        sa, sb = a.shapes.get(m), b.shapes.get(m)
        if sa is None or sb is None:
            continue
        scale = max(abs(sa.end), abs(sb.end), 1e-3 if m != "ratio_mean" else 0.0)
        rel = abs(sa.end - sb.end) / scale if scale else 0.0
        # ratio_mean should sit at exactly 1.0: any visible gap matters
        if sa.word != sb.word or rel > (0.02 if m == "ratio_mean" else 0.25):
            out.append(m)
    return out


def _matching(side: Side) -> Finding | None:
    """The finding that made the tool name this side's cause (the top one if none matches)."""
    return next(
        (f for f in side.diag.findings if f.id == side.answer), side.diag.top if side.answer != HEALTHY else None
    )


def explain_diff(pair: PairItem, lang: str, knob: bool = True) -> list[str]:
    """The answer to a pair: what the tool calls each log, where they differ, what that rules out."""
    out = [t("lab.diff.title", lang, key=pair.key)]
    for side in (pair.left, pair.right):
        out.append(
            t(
                "lab.diff.side",
                lang,
                label=side.label,
                name=name_of(side.answer, lang),
                verdict=t(f"lab.verdict.{side.diag.verdict}", lang),
            )
        )
    out.append(t("lab.diff.where", lang))
    # The metrics that decide the pair come first even when they differ less than the others.
    both = [m for m in pair.focus if m in pair.left.diag.shapes and m in pair.right.diag.shapes]
    for m in both + [m for m in differing_metrics(pair.left.diag, pair.right.diag) if m not in both]:
        la, lb = shape_line(pair.left.diag, m, lang), shape_line(pair.right.diag, m, lang)
        out.append(f"    {m:<10} {pair.left.label}: {pad(la or '', 28)}  {pair.right.label}: {lb}")
    for side in (pair.left, pair.right):
        div = sample_diversity(side)
        if div is not None:
            out.append(t("lab.diff.samples", lang, label=side.label, distinct=div[0], n=div[1]))
    out.append(t("lab.diff.rules_out", lang))
    for side in (pair.left, pair.right):
        f = _matching(side)
        if f is None:
            out.append(t("lab.diff.healthy", lang, label=side.label))
            out.append(watch_line(side.diag, lang, "  "))
        else:
            out += _finding_lines(f, lang, f"  {side.label}: ", knob)
    out.append(t(f"lab.pair.{pair.key}.rule", lang))
    return out


def sample_group(case: Any) -> tuple[int, str, list[str]] | None:
    """One group of sampled answers to one prompt at the latest dumped step, or None.

    adv_std falls because groups whose answers all score alike carry no advantage, so the group
    shown is one of those when there is one, an all-correct one first (the lesson: "内容不同，只是
    都对了" vs "几乎完全一样"); the same rule for every log, so the choice never hints at the answer.
    Reads the simulator's records ({step, group, response, reward}).
    """
    recs = getattr(case, "samples", None)
    if not recs or not isinstance(recs, (list, tuple)) or not isinstance(recs[0], dict):
        return None
    last = max(int(r.get("step", 0)) for r in recs)
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        if int(r.get("step", 0)) == last:
            groups.setdefault(str(r.get("group", "")), []).append(r)

    def rank(item: tuple[str, list[dict[str, Any]]]) -> tuple[int, float]:
        rewards = [float(r.get("reward", 0.0)) for r in item[1]]
        alike = max(rewards) - min(rewards) < 1e-9
        return (0 if alike else 1, -max(rewards))

    key, members = min(groups.items(), key=rank)
    return last, key, [str(r.get("response", "")) for r in members]


def sample_diversity(side: Side) -> tuple[int, int] | None:
    g = sample_group(side.case)
    if g is None or not g[2]:
        return None
    return len(set(a.strip() for a in g[2])), len(g[2])


def explain_quiz(q: QuizItem, lang: str) -> list[str]:
    """The lesson's reasoning with this question's own numbers; Q2 also says which cause was behind it."""
    out = [t(f"lab.quiz.{q.key}.why", lang, **q.numbers)]
    if q.cause is not None:
        out.append(t(f"lab.quiz.{q.key}.run", lang, name=name_of(q.cause, lang), **q.numbers))
    return out


def quiz_text(q: QuizItem, lang: str) -> list[str]:
    """The question with the numbers of its own runs, its options and the prompt."""
    out = [t("lab.quiz.head", lang, key=q.key, n=int(q.key[1:]), total=3), t(f"lab.quiz.{q.key}.q", lang, **q.numbers)]
    out += [f"  {i}) {t(f'lab.quiz.{q.key}.o{i}', lang, **q.numbers)}" for i in range(1, q.options + 1)]
    out.append(t("lab.quiz.prompt", lang, n=q.options))
    return out


def hint_set(item: SetItem, level: int, lang: str) -> list[str]:
    metrics = focus_metrics(item)
    if level == 1:
        return [t("lab.hint.where", lang, metrics=t("lab.sep", lang).join(metrics))]
    if level == 2:
        out = [t("lab.hint.values", lang)]
        for m in metrics:
            line = shape_line(item.diag, m, lang)
            out.append(f"    {m:<10} {line if line else t('lab.not_logged', lang)}")
        return out
    return [t("lab.hint.rule", lang)] + [f"    {m:<10} {t(f'lab.rule.{m}', lang)}" for m in metrics]


def hint_pair(pair: PairItem, level: int, lang: str) -> list[str]:
    if level == 1:
        return [t(f"lab.pair.{pair.key}.where", lang)]
    if level == 2:
        out = [t("lab.hint.values", lang)]
        for m in pair.focus:
            la = shape_line(pair.left.diag, m, lang) or t("lab.not_logged", lang)
            lb = shape_line(pair.right.diag, m, lang) or t("lab.not_logged", lang)
            out.append(f"    {m:<10} {pair.left.label}: {pad(la or '', 28)}  {pair.right.label}: {lb}")
        for side in (pair.left, pair.right):
            div = sample_diversity(side)
            if div is not None:
                out.append(t("lab.diff.samples", lang, label=side.label, distinct=div[0], n=div[1]))
        return out
    return [t(f"lab.pair.{pair.key}.rule", lang)]


def hint_quiz(key: str, lang: str) -> list[str]:
    return [t(f"lab.quiz.{key}.hint", lang)]
