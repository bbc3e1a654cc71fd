"""The level's state machine: parse a command, update progress and score, say what to show.

No I/O here.  `Lab.handle(line)` returns a list of outputs: plain strings (already translated) and
`View` requests (a curve set, a pair, a quiz question) that the UI draws with charts and PNGs.
Scoring: a set is worth 10 (7 for the verdict, 3 for naming the failure when there is one), a pair
10, a question 10; each hint taken before answering costs 2 of that stage's points.  The first
answer counts; after it the stage explains itself and hints are free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diagnose.model import FINDING_IDS
from ..i18n import LANGS, t
from .aliases import COMMANDS, SIDE_WORDS, VERDICT_WORDS, Resolved, name_of, resolve
from .content import LabContent, SetItem, View
from .experiment import ExperimentMixin
from .explain import explain_diff, explain_quiz, explain_set, hint_pair, hint_quiz, hint_set
from .reference import reference, topic_of
from .standing import StandingMixin
from .state import Progress, StageResult
from .teach import PAIR_FIX, KnobMixin, why_not_cause, why_not_verdict

__all__ = ["COMMANDS", "HINT_COST", "MAX_HINTS", "SET_FAILURE", "SET_VERDICT", "STAGE_POINTS", "Lab", "View"]

SET_VERDICT, SET_FAILURE, STAGE_POINTS, HINT_COST, MAX_HINTS = 7, 3, 10, 2, 3


class Lab(KnobMixin, ExperimentMixin, StandingMixin):
    """One learner's session over one generated level."""

    def __init__(
        self,
        content: LabContent,
        progress: Progress,
        lang: str = "en",
        on_change: Callable[[Progress], None] | None = None,
    ):
        self.content, self.progress, self.lang = content, progress, lang
        self._sets = {s.key: s for s in content.sets}
        self._order = content.stage_keys()
        self._on_change = on_change or (lambda p: None)
        self._diff_armed: str | None = None  # a pair whose answer `diff` would reveal unanswered
        # the open knob question: (stage, log label, failure, its diagnosis)
        self._knob: tuple[str, str, str, Any] | None = None
        self._exp: tuple[str, int | None] | None = None  # the open experiment and the setting turned
        self.done = False

    # ------------------------------------------------------------ helpers
    def _t(self, msg_id: str, /, **kw: object) -> str:
        return t(msg_id, self.lang, **kw)

    def _save(self) -> None:
        self._on_change(self.progress)

    @property
    def current(self) -> str | None:
        return self.progress.current

    def score(self) -> tuple[int, int]:
        got = sum(r.points for r in self.progress.results.values())
        return got, STAGE_POINTS * len(self._order)

    def next_stage(self) -> str | None:
        return next((k for k in self._order if k not in self.progress.results), None)

    def complete(self) -> bool:
        return all(k in self.progress.results for k in self._order)

    def _goto(self, key: str) -> list[object]:
        self.progress.current = key
        self._diff_armed = None
        self._save()
        if key in self._sets:
            out: list[object] = [View("set", key)]
            out.append(
                self._t("lab.set.prompt") if key not in self.progress.results else self._t("lab.set.already", key=key)
            )
            return out
        if key in self.content.pairs:
            p = self.content.pairs[key]
            out = [View("pair", key)]
            out.append(
                self._t(
                    "lab.pair.prompt",
                    a=p.left.label,
                    b=p.right.label,
                    x=name_of(p.options[0], self.lang),
                    y=name_of(p.options[1], self.lang),
                    xid=p.options[0],
                    yid=p.options[1],
                )
            )
            return out
        return [View("quiz", key)]

    # ------------------------------------------------------------ entry point
    def intro(self) -> list[object]:
        got, total = self.score()
        out: list[object] = [self._t("lab.intro.title"), self._t("lab.intro.body")]
        if self.progress.results:
            out.append(
                self._t("lab.intro.resume", n=len(self.progress.results), total=len(self._order), score=got, max=total)
            )
        out.append(self._t("lab.intro.ends"))
        out.append(self._t("lab.intro.start"))
        return out

    def handle(self, line: str) -> list[object]:
        """One line of input -> what to print/draw.  Never raises on any input."""
        words = line.strip().split()
        if not words:
            return []
        head = words[0].lower()
        args = words[1:]
        try:
            cmd = COMMANDS.get(head)
            if cmd is None:
                return self._shortcut(head, args, line)
            handler: Callable[[list[str]], list[object]] = getattr(self, f"cmd_{cmd}")
            return handler(args)
        except Exception as e:  # a bug must not end a learner's session; say so in one line
            return [self._t("lab.err.internal", err=f"{type(e).__name__}: {e}")]

    def _shortcut(self, head: str, args: list[str], line: str) -> list[object]:
        if head.isdigit() and self.content.question(self.current or "") is None and self._open_knob() is not None:
            return self.cmd_knob([head])
        if head.isdigit() and self._exp is not None:
            return self.cmd_turn([head]) if self._exp[1] is None else self.cmd_predict([head])
        if head.upper() in self.experiments():
            return self.cmd_exp([head])
        if head in VERDICT_WORDS:
            return self.cmd_answer([head] + args)
        if head.isdigit() and self.content.question(self.current or "") is not None:
            return self.cmd_answer([head])
        if head.isdigit() and head in self._sets:
            return self.cmd_show([head])
        if head.upper() in self.content.pairs and not args:
            return self.cmd_pair([head])
        if len(head) == 2 and head[0].upper() in self.content.pairs and head[1] in "12" and args:
            return self.cmd_is([head] + args)
        if self.content.question(head.upper()) is not None:
            return self.cmd_quiz([head])
        return [self._t("lab.err.unknown", cmd=line.strip()[:40])]

    # ------------------------------------------------------------ commands
    def cmd_help(self, args: list[str]) -> list[object]:
        return [self._t("lab.help")]

    def cmd_lang(self, args: list[str]) -> list[object]:
        if not args or args[0] not in LANGS:
            return [self._t("lab.err.lang")]
        self.lang = args[0]
        return [self._t("lab.lang.set")]

    def cmd_next(self, args: list[str]) -> list[object]:
        key = self.next_stage()
        if key is None:
            return self._finish()
        if self.content.question(key) is not None:
            return self.cmd_quiz([key])
        return self._goto(key)

    def cmd_show(self, args: list[str]) -> list[object]:
        if not args:
            return self._goto(self.current) if self.current else [self._t("lab.err.show")]
        key = args[0].upper()
        if key in self._sets:
            return self._goto(key)
        if key in self.content.pairs:
            return self._goto(key)
        return [self._t("lab.err.show")]

    def cmd_pair(self, args: list[str]) -> list[object]:
        key = args[0].upper() if args else None
        if key is None or key not in self.content.pairs:
            return [self._t("lab.err.pair")]
        return self._goto(key)

    def cmd_quiz(self, args: list[str]) -> list[object]:
        keys = [q.key for q in self.content.quiz]
        if not keys:
            return [self._t("lab.err.nothing")]
        key = (
            args[0].upper()
            if args and args[0].upper() in keys
            else next((k for k in keys if k not in self.progress.results), keys[0])
        )
        return self._goto(key)

    def cmd_answer(self, args: list[str]) -> list[object]:
        cur = self.current
        if cur is None:
            return [self._t("lab.err.nothing")]
        if cur in self._sets:
            return self._answer_set(self._sets[cur], args)
        if cur in self.content.pairs:
            return self.cmd_is(args)
        return self._answer_quiz(cur, args)

    def _answer_set(self, item: SetItem, args: list[str]) -> list[object]:
        if not args or args[0].lower() not in VERDICT_WORDS:
            return [self._t("lab.err.verdict")]
        verdict = VERDICT_WORDS[args[0].lower()]
        failure = None
        if len(args) > 1:  # a name may have spaces: "reward hacking", "KL blow up"
            word = " ".join(args[1:])
            found = resolve(word, list(FINDING_IDS))
            if found.id is None:
                return [self._unresolved(word, found)]
            failure = found.id
        if item.key in self.progress.results:
            return [self._t("lab.already"), *explain_set(item, self.lang, self._knob_shown(item.key))]
        ok = verdict == item.verdict
        named_ok = item.failure is None or failure == item.failure
        points = (
            (SET_VERDICT + (SET_FAILURE if named_ok else 0)) if ok and item.failure else (STAGE_POINTS if ok else 0)
        )
        hints = self.progress.hints.get(item.key, 0)
        points = max(0, points - HINT_COST * hints)
        given = verdict + (f" {failure}" if failure else "")
        self.progress.results[item.key] = StageResult(
            given, ok and named_ok, points, hints, partial=ok and not named_ok
        )
        self._save()
        teach: list[object] = []
        if ok and named_ok:
            head = self._t("lab.right", points=points)
        elif ok:
            head = self._t(
                "lab.partial", points=points, failure=name_of(item.failure or "", self.lang), fid=item.failure or ""
            )
            if failure:  # the failure named is ruled out by its own metric
                teach.append(why_not_cause(self._t("lab.set.label", key=item.key), item.diag, failure, self.lang))
        else:
            head = self._t("lab.wrong", verdict=self._t(f"lab.verdict.{item.verdict}"))
            teach += why_not_verdict(item, verdict, self.lang)
        ask = self._ask_knob(item.key, item.key, item.failure, item.diag)
        return [head, *teach, *explain_set(item, self.lang, knob=not ask), *ask, self._after()]

    def _knob_shown(self, stage: str) -> bool:
        """The tool's knob is shown once the learner has picked theirs (or is not asked to)."""
        return self._open_knob() is None or stage != self.current

    def _unresolved(self, word: str, found: Resolved) -> str:
        """One line for a failure name that fits none, or several (then they are listed)."""
        if found.candidates:
            cands = self._t("lab.err.cand_sep").join(
                self._t("lab.err.cand", fid=c, name=name_of(c, self.lang)) for c in found.candidates[:6]
            )
            more = "…" if len(found.candidates) > 6 else ""
            return self._t("lab.err.ambiguous", word=word[:30], cands=cands + more)
        return self._t("lab.err.failure", word=word[:30])

    def cmd_is(self, args: list[str]) -> list[object]:
        cur = self.current
        if cur is None or cur not in self.content.pairs:
            return [self._t("lab.err.is_nopair")]
        pair = self.content.pairs[cur]
        if len(args) < 2:
            return [self._t("lab.err.is", a=pair.left.label)]
        if pair.key in self.progress.results:  # answered: the explanation again, whatever was typed
            if cur not in self.progress.diffed:
                self.progress.diffed.append(cur)
                self._save()
            return [self._t("lab.already"), *explain_diff(pair, self.lang, self._knob_shown(pair.key)), self._after()]
        which = args[0].upper()
        if which.lower() in SIDE_WORDS:
            side = (pair.left, pair.right)[SIDE_WORDS[which.lower()]]
        elif which in (pair.left.label, pair.right.label):
            side = pair.side(which)
        else:
            return [self._t("lab.err.is", a=pair.left.label)]
        found = resolve(" ".join(args[1:]), pair.options)
        if found.id is None:
            return [self._t("lab.err.cause", x=pair.options[0], y=pair.options[1])]
        cause = found.id
        other = pair.right if side is pair.left else pair.left
        ok = side.answer == cause
        hints = self.progress.hints.get(pair.key, 0)
        points = max(0, STAGE_POINTS - HINT_COST * hints) if ok else 0
        other_cause = next((c for c in pair.options if c != cause), cause)
        given = f"{side.label}={cause} {other.label}={other_cause}"
        self.progress.results[pair.key] = StageResult(given, ok, points, hints)
        self._save()
        head = (
            self._t("lab.right", points=points)
            if ok
            else self._t(
                "lab.pair.wrong",
                a=side.label,
                x=name_of(side.answer, self.lang),
                b=other.label,
                y=name_of(other.answer, self.lang),
            )
        )
        teach = (
            []
            if ok
            else [
                why_not_cause(side.label, side.diag, cause, self.lang),
                why_not_cause(other.label, other.diag, other_cause, self.lang),
            ]
        )
        fix = next((s for s in (pair.left, pair.right) if s.answer == PAIR_FIX.get(pair.key)), None)
        knob = self._ask_knob(pair.key, fix.label, fix.answer, fix.diag) if fix is not None else []
        return [head, *teach, *knob, self._t("lab.pair.see_diff")]

    def cmd_diff(self, args: list[str]) -> list[object]:
        cur = self.current
        if cur is None or cur not in self.content.pairs:
            return [self._t("lab.err.diff")]
        pair = self.content.pairs[cur]
        if cur not in self.progress.results and self._diff_armed != cur:
            self._diff_armed = cur
            return [self._t("lab.diff.confirm")]
        if cur not in self.progress.results:  # looked before judging: the pair scores 0
            self.progress.results[cur] = StageResult("(diff)", False, 0, self.progress.hints.get(cur, 0), revealed=True)
        if cur not in self.progress.diffed:
            self.progress.diffed.append(cur)
        self._save()
        return [*explain_diff(pair, self.lang, self._knob_shown(pair.key)), self._after()]

    def cmd_hint(self, args: list[str]) -> list[object]:
        cur = self.current
        if cur is None:
            return [self._t("lab.err.nothing")]
        answered = cur in self.progress.results
        used = self.progress.hints.get(cur, 0)
        fn: Callable[[int], list[str]]
        if cur in self._sets:
            level_max, fn = MAX_HINTS, (lambda lvl: hint_set(self._sets[cur], lvl, self.lang))
        elif cur in self.content.pairs:
            level_max, fn = MAX_HINTS, (lambda lvl: hint_pair(self.content.pairs[cur], lvl, self.lang))
        else:
            level_max, fn = 1, (lambda lvl: hint_quiz(cur, self.lang))
        if answered:  # after answering the hints are free: all of them at once
            out: list[object] = [self._t("lab.hint.free")]
            for lvl in range(1, level_max + 1):
                out += fn(lvl)
            return out
        if used >= level_max:
            return [self._t("lab.hint.none")]
        self.progress.hints[cur] = used + 1
        self._save()
        return [self._t("lab.hint.cost", cost=HINT_COST, level=used + 1, max=level_max), *fn(used + 1)]

    def cmd_ref(self, args: list[str]) -> list[object]:
        """The lesson's reference material: `ref` lists the topics, `ref TOPIC` shows one."""
        topic = topic_of(" ".join(args)) if args else None
        if args and topic is None:
            return [self._t("lab.ref.unknown", word=" ".join(args)[:30]), *reference(None, self.lang)[-1:]]
        return [*reference(topic, self.lang)]

    def _answer_quiz(self, key: str, args: list[str]) -> list[object]:
        q = self.content.question(key)
        if q is None:
            return [self._t("lab.err.nothing")]
        if not args or not args[0].isdigit() or not 1 <= int(args[0]) <= q.options:
            return [self._t("lab.err.quiz", n=q.options)]
        choice = int(args[0])
        if key in self.progress.results:
            return [self._t("lab.already"), *explain_quiz(q, self.lang)]
        ok = choice == q.answer
        hints = self.progress.hints.get(key, 0)
        points = max(0, STAGE_POINTS - HINT_COST * hints) if ok else 0
        self.progress.results[key] = StageResult(str(choice), ok, points, hints)
        self._save()
        head = self._t("lab.right", points=points) if ok else self._t("lab.quiz.wrong", n=q.answer)
        out: list[object] = [head]
        if not ok:  # why the option chosen is ruled out, in this question's own numbers
            opt = choice if key != "Q1" or q.answer == 2 or choice not in (2, 3) else 5 - choice
            out.append(self._t(f"lab.quiz.{key}.not{opt}", **q.numbers))
        out += explain_quiz(q, self.lang)
        nxt = next((k.key for k in self.content.quiz if k.key not in self.progress.results), None)
        if nxt:
            out += self._goto(nxt)
        else:
            out.append(self._after())
        return out

    def _after(self) -> str:
        nxt = self.next_stage()
        if nxt is None:
            return self._t("lab.after.done")
        return self._t("lab.after.next", key=nxt)

    def _finish(self) -> list[object]:
        got, total = self.score()
        return [self._t("lab.finish", score=got, max=total), *self.cmd_goals([])[1:6]]

    def cmd_quit(self, args: list[str]) -> list[object]:
        self._save()
        self.done = True
        got, total = self.score()
        return [self._t("lab.bye", score=got, max=total)]
