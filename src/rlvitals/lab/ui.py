"""The lab's terminal front end: read lines, hand them to the engine, draw what it asks for.

Input and output are injected streams, so the same loop serves a person at a terminal (prompt,
tab completion through readline), a classroom script (`--script FILE` or `-`: each command echoed
as `> cmd` so the transcript reads well) and the tests.  Pictures: every curve set and pair log is
written as the lesson's PNG (when matplotlib is there; else one line says so) and drawn in the
terminal with `render.charts`.
"""

from __future__ import annotations

import dataclasses
import functools
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ..diagnose.model import FINDING_IDS
from ..i18n import t
from ..render.charts import BLOCKS, NAN_MARK, clip_text, display_width, flat_range, fmt_value, pad, panel_grid
from ..safe_text import escape_controls
from ..stats import ends as curve_ends
from .aliases import COMMANDS, EXTRA_ALIASES, VERDICT_WORDS
from .content import SAMPLE_PAIRS, PairItem
from .engine import Lab, View
from .explain import SHOWN, quiz_text, sample_group
from .reference import TOPICS, format_table

__all__ = ["LabUI", "clip_middle", "completions", "shared_sparkline", "wrap"]


def completions(lab: Lab) -> list[str]:
    """Words worth completing: commands, verdicts, finding ids and names, set/pair labels, ref topics."""
    words = set(COMMANDS) | set(VERDICT_WORDS) | set(FINDING_IDS) | {"healthy"} | set(TOPICS)
    words |= {a for names in EXTRA_ALIASES.values() for a in names if a.isascii() and " " not in a}
    for p in lab.content.pairs.values():
        words |= {p.left.label, p.right.label}
    return sorted(w for w in words if w.isascii() and len(w) > 1)


class LabUI:
    """Draw engine output on `out`; `figures` is the directory for PNGs (None: terminal only)."""

    def __init__(
        self,
        lab: Lab,
        out: TextIO,
        *,
        plain: bool = False,
        echo: bool = False,
        figures: Path | None = None,
        width: int | None = None,
    ):
        self.lab, self.out, self.plain, self.echo, self.figures = lab, out, plain, echo, figures
        # plain output (scripts, classrooms) stays within 80 columns; a terminal gets up to 120
        cols = shutil.get_terminal_size((100, 40)).columns
        self.width = width or max(60, min(cols, 80 if plain else 120))
        self._png_warned = False

    @property
    def lang(self) -> str:
        return self.lab.lang

    def write(self, text: str = "") -> None:
        self.out.write(escape_controls(text) + "\n")  # a script's echoed lines may hold anything

    def emit(self, items: Iterable[object]) -> None:
        for item in items:
            if isinstance(item, View):
                try:
                    getattr(self, f"_draw_{item.kind}")(item.key)
                except Exception as e:  # a picture that cannot be drawn must not end the session
                    self.say(t("lab.err.internal", self.lang, err=f"{type(e).__name__}: {e}"))
            else:
                self.say(str(item))
        self.out.flush()

    def say(self, text: str) -> None:
        """Write prose, wrapped to the width (charts go through `write` untouched); lines starting
        with "|" are table rows, drawn aligned (or one item a row when the table is too wide)."""
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            if lines[i].startswith("|"):
                j = i
                while j < len(lines) and lines[j].startswith("|"):
                    j += 1
                rows, i = format_table(lines[i:j], self.width), j
            else:
                rows, i = [lines[i]], i + 1
            for row in rows:
                for part in wrap(row, self.width):
                    self.write(part)

    # ------------------------------------------------------------ pictures
    def _png(self, run: Any, stem: str) -> None:
        """Write the lesson's figure of `run`; say where, or say once why not."""
        if self.figures is None:
            return
        path = self.figures / f"{stem}-{self.lang}.png"
        try:
            if not path.exists():
                from ..render.plot import plot

                self.figures.mkdir(parents=True, exist_ok=True)
                # The run's own name could give the answer away ("entropy_collapse"): hide it.
                plot(dataclasses.replace(run, name=stem), path, lang=self.lang)
            self.write(t("lab.png", self.lang, path=path))
        except Exception as e:
            if not self._png_warned:
                self._png_warned = True
                self.write(
                    t("lab.png.none", self.lang, err=str(e).splitlines()[0][:80] if str(e) else type(e).__name__)
                )

    def _seed_tag(self) -> str:
        seed = self.lab.content.seed
        return "default" if seed is None else f"seed{seed}"

    def _draw_set(self, key: str) -> None:
        item = next(s for s in self.lab.content.sets if s.key == key)
        self.write("")
        self.write(t("lab.set.title", self.lang, key=key, n=len(self.lab.content.sets)))
        self._png(item.case.run, f"set{key}-{self._seed_tag()}")
        self.write(
            panel_grid(
                item.case.run, width=self.width, height=3, metrics=SHOWN, not_logged=t("lab.not_logged", self.lang)
            ).rstrip("\n")
        )

    def _draw_pair(self, key: str) -> None:
        pair: PairItem = self.lab.content.pairs[key]
        self.write("")
        self.write(t("lab.pair.title", self.lang, key=key))
        self.say(t(f"lab.pair.{key}.q", self.lang, a=pair.left.label, b=pair.right.label))
        for side in (pair.left, pair.right):
            self._png(side.case.run, f"pair{side.label}-{self._seed_tag()}")
        self._side_by_side(pair)
        # The lesson's most practical distinction (pair B) is made on the sampled answers themselves.
        if key in SAMPLE_PAIRS:
            self._samples(pair)

    def _side_by_side(self, pair: PairItem) -> None:
        """Each metric on one line: both logs' sparklines and start → end, so shapes can be compared.

        Both sparklines of a metric share one y range: on their own scales a ratio_mean steady at
        1.0000 (noise in the 5th decimal) and one drifting to 0.54 would look alike.
        """
        half = (self.width - 12) // 2
        spark_w = max(10, half - 22)
        runs = (pair.left.case.run, pair.right.case.run)
        self.write(" " * 11 + pad(pair.left.label, half) + " " + pair.right.label)
        for m in SHOWN:
            series = [r.series.get(m) for r in runs]
            if not any(s is not None and len(s) for s in series):
                continue
            fin = [s.values[np.isfinite(s.values)] for s in series if s is not None and len(s)]
            lo = min(float(f.min()) for f in fin if f.size) if any(f.size for f in fin) else 0.0
            hi = max(float(f.max()) for f in fin if f.size) if any(f.size for f in fin) else 0.0
            flat = flat_range(lo, hi, functools.partial(fmt_value, m))
            cells = []
            for s in series:
                if s is None or not len(s):
                    cells.append(pad(t("lab.not_logged", self.lang), half))
                    continue
                v = s.values[np.isfinite(s.values)]
                a, b = curve_ends(v) if v.size else (0.0, 0.0)  # the reports' start → end
                ends = f"{fmt_value(m, a)}→{fmt_value(m, b)}" if v.size else "NaN"
                spark = shared_sparkline(s.values, lo, hi, spark_w, flat=flat)
                cells.append(pad(clip_text(f"{spark} {ends}", half), half))
            self.write(f"{m:<10} " + " ".join(cells).rstrip())

    def _samples(self, pair: PairItem) -> None:
        for side in (pair.left, pair.right):
            g = sample_group(side.case)
            if g is None:
                continue
            step, group, answers = g
            self.say(t("lab.samples.head", self.lang, label=side.label, n=len(answers), step=step))
            for i, a in enumerate(answers, 1):
                self.write(f"   {i}. " + clip_middle(" ".join(a.split()), self.width - 7))

    def _draw_exp(self, key: str) -> None:
        """The experiment's run, revealed a tenth at a time (a pause between rows at a terminal):
        the watched metrics' level over the last steps and which way they went, then the whole
        curves as sparklines with start → end."""
        import time

        if self.lab.last_exp is None:
            return
        exp, run, _, _ = self.lab.last_exp
        metrics = [m for m in exp.watch if m in run.series]
        n = run.n_steps
        last = int(run.series[metrics[0]].steps[-1]) if metrics else n
        prev: dict[str, float] = {}
        for i in range(1, 11):
            upto = max(1, last * i // 10)
            cells = []
            for m in metrics:
                s = run.series[m]  # by step: an eval logged every 10 steps is read as logged
                v = s.values[(s.steps <= upto) & (s.steps > upto - max(10, last // 20))]
                v = v[np.isfinite(v)]
                if not v.size:
                    cells.append(f"{m} NaN")
                    continue
                now = float(v.mean())
                arrow = (
                    ""
                    if m not in prev
                    else ("↑" if now > prev[m] * 1.02 + 1e-9 else "↓" if now < prev[m] * 0.98 - 1e-9 else "→")
                )
                prev[m] = now
                cells.append(f"{m} {fmt_value(m, now)}{arrow}")
            self.write(f"  {pad(t('lab.exp.row', self.lang, step=upto), 10)} " + "  ".join(cells))
            self.out.flush()
            if not self.plain:
                time.sleep(0.25)
        spark_w = max(10, min(60, self.width - 40))
        for m in metrics:
            s = run.series[m]
            fin = s.values[np.isfinite(s.values)]
            if not fin.size:
                continue
            lo, hi = float(fin.min()), float(fin.max())
            a, b = curve_ends(fin)
            flat = flat_range(lo, hi, functools.partial(fmt_value, m))
            self.write(
                f"  {m:<10} {shared_sparkline(s.values, lo, hi, spark_w, flat=flat)} "
                f"{fmt_value(m, a)}→{fmt_value(m, b)}"
            )

    def intro_notes(self) -> list[str]:
        """Where the figures go, and (in Chinese) a one-line hint when no Chinese font can draw them."""
        if self.figures is None:
            return []
        out = [t("lab.intro.figs", self.lang, path=self.figures)]
        if self.lang == "zh":
            hint = cjk_hint()
            if hint:
                out.append(t("lab.png.nofont", self.lang, hint=hint))
        return out

    def _draw_quiz(self, key: str) -> None:
        q = self.lab.content.question(key)
        if q is None:
            return
        self.write("")
        for line in quiz_text(q, self.lang):
            self.say(line)

    # ------------------------------------------------------------ loops
    def prompt(self) -> str:
        got, total = self.lab.score()
        return f"[{self.lab.current or '-'} {got}/{total}] > "

    def run_lines(self, lines: Iterable[str]) -> None:
        """Scripted mode: every command echoed, then its output; EOF saves like `quit`."""
        self.emit([*self.lab.intro(), *self.intro_notes()])
        for raw in lines:
            line = raw.rstrip("\r\n")
            if self.echo:
                self.write(f"> {line}")
            self.emit(self.lab.handle(line))
            if self.lab.done:
                return
        self.emit(self.lab.handle("quit"))

    def run_interactive(self, read: Callable[[str], str]) -> None:
        """A person at a terminal: `read(prompt)` is `input`; Ctrl-D / Ctrl-C quit and save."""
        _setup_readline(completions(self.lab))
        self.emit([*self.lab.intro(), *self.intro_notes()])
        while not self.lab.done:
            try:
                line = read(self.prompt())
            except (EOFError, KeyboardInterrupt):
                self.write("")
                line = "quit"
            self.emit(self.lab.handle(line))


CJK_INSTALL = "apt-get install fonts-noto-cjk (or fonts-wqy-microhei), or set RLVITALS_CJK_FONT=/path/to/font.ttc"


def cjk_hint() -> str | None:
    """None when matplotlib is missing (the figures are skipped and said so) or a Chinese font is
    found (`render.fonts.cjk_font`); otherwise what to install, so zh figures are never silently English."""
    try:
        from ..render.fonts import cjk_font
    except ImportError:
        return None
    try:
        return None if cjk_font() else CJK_INSTALL
    except Exception:
        return CJK_INSTALL


def shared_sparkline(values: np.ndarray, lo: float, hi: float, width: int, *, flat: bool = False) -> str:
    """A sparkline on a given y range [lo, hi] (two logs drawn to one scale).

    Each character covers a bucket of steps and shows the bucket's value farthest from the middle
    of the range, so a one-step spike survives; a bucket with a NaN/inf is "×".  `flat`: the range
    is below what the numbers can show (`render.charts.flat_range`), so it is drawn as a level line.
    """
    n = values.size
    if n == 0 or width <= 0:
        return ""
    width = min(width, n)
    mid, span = (lo + hi) / 2, (0.0 if flat else hi - lo)
    out = []
    for i in range(width):
        b = values[i * n // width : max(i * n // width + 1, (i + 1) * n // width)]
        if not np.all(np.isfinite(b)):
            out.append(NAN_MARK)
            continue
        v = b.max() if abs(b.max() - mid) >= abs(b.min() - mid) else b.min()
        out.append(
            BLOCKS[(len(BLOCKS) // 2 if flat else 0) if span <= 0 else int(round((v - lo) / span * (len(BLOCKS) - 1)))]
        )
    return "".join(out)


def clip_middle(text: str, width: int) -> str:
    """Keep the start and the end of a long answer ("First, … = 120."): the final answer is at the end,
    and whether 8 samples differ or agree often shows only there."""
    if display_width(text) <= width:
        return text
    head = clip_text(text, width // 2 + 1)[:-1]
    tail_w = width - display_width(head) - 3
    tail = ""
    for ch in reversed(text):
        if display_width(ch + tail) > tail_w:
            break
        tail = ch + tail
    return f"{head} … {tail.lstrip()}"


def wrap(line: str, width: int) -> list[str]:
    """Break a line at spaces (anywhere between CJK characters) to `width` display columns.

    Continuation lines keep the line's indent plus two, so a wrapped explanation still reads as
    one item.  Counts display width, so Chinese (two columns a character) wraps where it should.
    """
    if display_width(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
    out: list[str] = []
    cur = ""
    for token in _tokens(line):
        if cur and display_width(cur + token) > width:
            out.append(cur.rstrip())
            cur = indent + token.lstrip(" ")
        else:
            cur += token
    if cur.strip():
        out.append(cur.rstrip())
    return out


def _tokens(line: str) -> list[str]:
    """Words with their leading space; each wide (CJK) character is a token of its own."""
    tokens: list[str] = []
    buf = ""
    for ch in line:
        wide = display_width(ch) == 2
        if ch == " " or wide:
            if buf:
                tokens.append(buf)
            buf = ch
            if wide:
                tokens.append(buf)
                buf = ""
        else:
            buf += ch
    if buf:
        tokens.append(buf)
    return tokens


def _setup_readline(words: list[str]) -> None:
    """Tab completion over `words` when readline exists (not on every platform)."""
    try:
        import readline
    except ImportError:  # pragma: no cover
        return

    def complete(text: str, state: int) -> str | None:
        hits = [w for w in words if w.startswith(text)]
        return hits[state] if state < len(hits) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ")
    readline.parse_and_bind("tab: complete")
