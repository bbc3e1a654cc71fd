"""Where the learner stands: `goals` (the lesson's three promises, the knobs and the experiments)
and `score` (each stage's result, in the session's words).  Mixed into `engine.Lab`."""

from __future__ import annotations

from typing import Any

from ..i18n import t

__all__ = ["StandingMixin"]


class StandingMixin:
    content: Any
    progress: Any
    lang: str
    _order: list[str]

    def _t(self, msg_id: str, /, **kw: object) -> str:  # pragma: no cover - Lab defines it
        return t(msg_id, self.lang, **kw)

    def score(self) -> tuple[int, int]:  # pragma: no cover - Lab defines it
        return 0, 0

    def experiments(self) -> dict[str, Any]:  # pragma: no cover - Lab defines it
        return {}

    def _given(self, given: str) -> str:  # pragma: no cover - Lab defines it
        return given

    def cmd_goals(self, args: list[str]) -> list[object]:
        res = self.progress.results
        sets = [s.key for s in self.content.sets]
        pairs = list(self.content.pairs)
        quiz = [q.key for q in self.content.quiz]

        def counts(keys: list[str]) -> tuple[int, int]:
            return sum(k in res for k in keys), sum(res[k].correct for k in keys if k in res)

        s_done, s_ok = counts(sets)
        p_done, p_ok = counts(pairs)
        q_done, q_ok = counts(quiz)
        first = sum(1 for k in pairs if k in res and not res[k].revealed)
        got, total = self.score()
        return [
            self._t("lab.goals.title"),
            self._t("lab.goals.g1", done=s_done, ok=s_ok, n=len(sets)),
            self._t("lab.goals.g2", done=p_done, ok=p_ok, n=len(pairs), qdone=q_done, qok=q_ok, qn=len(quiz)),
            self._t("lab.goals.g3", first=first, n=len(pairs)),
            self._t(
                "lab.goals.knobs",
                ok=sum(r.correct for k, r in res.items() if k.endswith(".knob")),
                done=sum(k.endswith(".knob") for k in res),
            ),
            self._t(
                "lab.goals.exps",
                done=sum(k in res for k in self.experiments()),
                n=len(self.experiments()),
                ok=sum(res[k].correct for k in self.experiments() if k in res),
            ),
            self._t("lab.score.line", score=got, max=total, hints=sum(r.hints for r in res.values())),
        ]

    def cmd_score(self, args: list[str]) -> list[object]:
        got, total = self.score()
        res = self.progress.results
        out: list[object] = [self._t("lab.score.line", score=got, max=total, hints=sum(r.hints for r in res.values()))]
        for k in self._order:
            if k in res:
                r = res[k]
                mark = "✓" if r.correct else ("~" if r.partial else "✗")
                out.append(f"  {k:>3} {mark} {r.points:>2}  {self._given(r.given)}")
        return out
