"""Jupyter notebooks (`.ipynb`): the curves a Colab GRPO run left in its output cells.

Two places hold them:

- **the Trainer's HTML progress table** (transformers' notebook callback redraws it in one
  `display_data` output): `<th>` header `Step`, `Training Loss`, `reward`, `reward_std`,
  `completion_length`, `kl`, `rewards / <fn>`, `completions / mean_length`, … one `<tr>` per logged
  step.  Column names are normalised (`a / b` → `a/b`, `Training Loss` → `loss`, `Validation Loss` →
  `eval_loss`) and then go through the alias table like any other key; `No log` cells are gaps.
  When several tables are present (an eval table, two `train()` calls), the one with the most
  vitals (reward-like columns first, then rows; the later on a tie) is used and a note says which;
- **printed text** (stream outputs and `text/plain` results): TRL dicts, verl lines, any supported
  text format, found by the same sniffer as a file;
- when no output holds a metric, **the text of its Markdown cells**: a notebook saved without its
  outputs often keeps a cell's console pasted below it as text ("cell output record").

The table is preferred when it holds at least as many vitals as the printed text; a note names the
one not used.  The HTML is read by a small tokenizer of our own, linear on any input: the standard
library's `html.parser` goes quadratic on an unclosed `<!--` or a run of unclosed `<a` (it searches
again from the same place at every later `>`).  What it does not need (scripts, comments,
declarations) it skips; an unclosed comment ends the fragment, as in a browser.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path

from ..errors import InputError, RlvitalsError
from ..i18n import Msg
from ..run import VITALS, Run
from . import aliases
from .base import Format, normalise_column
from .builder import RunBuilder
from .values import checked_float

__all__ = ["FORMAT", "Table", "html_tables", "normalise_column", "read_notebook"]

_STEP_COLS = ("step", "global step")
_MAX_STEP = 2.0**62
_NO_VALUE = frozenset({"", "no log", "none", "-", "—"})


@dataclass
class Table:
    """One HTML table: header cells, body rows (cell texts), and where it was found."""

    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    cell: int = 0  # notebook cell index (0-based)

    @property
    def columns(self) -> list[str]:
        return [normalise_column(h) for h in self.header]

    @property
    def step_col(self) -> int | None:
        for i, h in enumerate(self.header):
            if " ".join(h.lower().split()) in _STEP_COLS:
                return i
        return None

    def score(self) -> tuple[int, int, int]:
        """(vitals among the columns, reward-like columns, rows): larger is the RL table."""
        canon = {a.canonical for c in self.columns if (a := aliases.lookup(c)) is not None}
        rewardish = sum("reward" in c.lower() for c in self.columns)
        return len(canon & set(VITALS)), rewardish, len(self.rows)


# A tag: its name, then anything but `<` and `>` (so a failed try stops at the next `<`: every
# character is looked at a bounded number of times).
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)[^<>]*>")
_DECL = re.compile(r"<[!?][^<>]*>")
_RAW_END = {"script": re.compile(r"</script\s*>", re.I), "style": re.compile(r"</style\s*>", re.I)}


class _TableParser:
    """Collects every `<table>`: `<th>` cells of the first header row, `<td>` rows of the body."""

    def __init__(self) -> None:
        self.tables: list[Table] = []
        self._depth = 0
        self._row: list[str] | None = None
        self._row_is_header = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._depth += 1
            if self._depth == 1:
                self.tables.append(Table([]))
        elif self._depth == 1 and tag == "tr":
            self._row, self._row_is_header = [], False
        elif self._depth == 1 and tag in ("td", "th") and self._row is not None:
            self._cell = []
            self._row_is_header |= tag == "th"

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth = max(0, self._depth - 1)
        elif self._depth == 1 and tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif self._depth == 1 and tag == "tr" and self._row is not None:
            table = self.tables[-1]
            if self._row_is_header and not table.header:
                table.header = self._row
            elif self._row:
                table.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None and self._depth == 1:
            self._cell.append(data)

    def feed(self, html: str) -> None:
        """Tokenize `html` in one pass (each character looked at a bounded number of times)."""
        i, n = 0, len(html)
        while i < n:
            lt = html.find("<", i)
            if lt < 0:
                self.handle_data(unescape(html[i:]))
                return
            if lt > i:
                self.handle_data(unescape(html[i:lt]))
            i = lt
            if html.startswith("<!--", i):
                end = html.find("-->", i + 4)
                if end < 0:
                    return  # an unclosed comment runs to the end
                i = end + 3
                continue
            m = _TAG.match(html, i)
            if m is not None:
                tag = m.group(2).lower()
                if m.group(1):
                    self.handle_endtag(tag)
                else:
                    self.handle_starttag(tag, [])
                    if tag in _RAW_END:  # a script's or style's text is not HTML
                        e = _RAW_END[tag].search(html, m.end())
                        i = e.end() if e else n
                        continue
                i = m.end()
                continue
            d = _DECL.match(html, i)
            if d is not None:
                i = d.end()
                continue
            self.handle_data("<")  # a lone `<`: text
            i += 1


def html_tables(html: str) -> list[Table]:
    """Every top-level table in an HTML fragment that has a header row."""
    parser = _TableParser()
    parser.feed(html)
    return [t for t in parser.tables if t.header]


def _text(value: object) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def _outputs(cells: list[object]) -> tuple[list[Table], list[str]]:
    tables: list[Table] = []
    texts: list[str] = []
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict):
            continue
        for out in cell.get("outputs") or []:
            if not isinstance(out, dict):
                continue
            if out.get("output_type") == "stream":
                texts.append(_text(out.get("text")))
                continue
            data = out.get("data")
            if not isinstance(data, dict):
                continue
            html = _text(data.get("text/html"))
            if "<table" in html:
                for t in html_tables(html):
                    t.cell = i
                    tables.append(t)
            plain = _text(data.get("text/plain"))
            if plain and not plain.startswith("<IPython"):
                texts.append(plain)
    return tables, texts


def _markdown(cells: list[object]) -> list[str]:
    return [_text(c.get("source")) for c in cells if isinstance(c, dict) and c.get("cell_type") == "markdown"]


def _table_run(table: Table, name: str) -> Run:
    b = RunBuilder(name, "notebook")
    cols = table.columns
    sc = table.step_col
    for lineno, cells in enumerate(table.rows, 1):
        try:
            number = float(cells[sc]) if sc is not None else float(lineno)
        except (ValueError, IndexError):
            number = float("nan")
        if not abs(number) < _MAX_STEP:  # NaN, inf, absurdly large
            b.skip("table row without a step")
            continue
        step = int(number)
        row: dict[str, float] = {}
        bad = 0
        for j, (col, cell) in enumerate(zip(cols, cells)):
            if j == sc or col.lower() == "epoch":
                continue
            if cell.strip().lower() in _NO_VALUE:
                continue  # not logged at this step
            try:
                row[col] = checked_float(cell)  # `1e400`: OUT_OF_RANGE, dropped by the builder
            except ValueError:
                bad += 1
        if row and bad:
            b.drop("non-numeric cells", bad)
        b.add_parsed(step, row, lineno, empty_reason="table row without metrics")
    if sc is None:
        b.meta["step_inferred"] = True
        b.note(Msg("ingest.note.nb_no_step"))
    return b.build()


def _text_run(texts: list[str], name: str) -> Run | None:
    from . import read_text, sniff_text

    text = "\n".join(t if t.endswith("\n") else t + "\n" for t in texts if t)
    fmt = sniff_text(text) if text.strip() else None
    if fmt is None:
        return None
    try:
        run = read_text(text, fmt, name)
    except RlvitalsError:
        return None
    # the generic reader finds "name: number" in any prose (vLLM banners, worked answers): its
    # reading counts only when it holds a vital; a framework's reading, when it holds any metric
    return run if (_vitals(run) if fmt == "generic" else run.series) else None


def _vitals(run: Run | None) -> int:
    return 0 if run is None else sum(v in run.series for v in VITALS)


def read_notebook(path: Path, name: str) -> Run:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as e:
        raise InputError.of("ingest.err.notebook", path=path, error=f"{e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise InputError.of("ingest.err.notebook", path=path, error="nested too deeply") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise InputError.of("ingest.err.notebook", path=path, error="no list of cells")
    tables, texts = _outputs(doc["cells"])
    usable = [t for t in tables if t.score()[0] or t.step_col is not None]
    best = max(reversed(usable), key=Table.score) if usable else None  # max keeps the first: the later table
    table_run = _table_run(best, name) if best is not None else None
    text_run = _text_run(texts, name)
    if table_run is not None and not (table_run.series or table_run.extras):
        table_run = None
    printed = "printed"  # where the text run was read: the cells' outputs, or their Markdown
    if table_run is None and text_run is None:
        text_run, printed = _text_run(_markdown(doc["cells"]), name), "markdown"
        if text_run is None:
            raise InputError.of("ingest.err.notebook_empty", path=path)
    notes: list[str] = []
    if table_run is not None and (text_run is None or _vitals(table_run) >= _vitals(text_run)):
        assert best is not None
        run = table_run
        run.meta["notebook_source"] = "html-table"
        columns = ", ".join(best.header)
        if len(tables) > 1:
            notes.append(
                Msg(
                    "ingest.note.nb_table_of",
                    cell=best.cell + 1,
                    i=tables.index(best) + 1,
                    n=len(tables),
                    columns=columns,
                )
            )
        else:
            notes.append(Msg("ingest.note.nb_table", cell=best.cell + 1, columns=columns))
        if text_run is not None:
            notes.append(
                Msg(
                    "ingest.note.nb_also_text", format=text_run.format, steps=text_run.n_steps, vitals=_vitals(text_run)
                )
            )
    else:
        assert text_run is not None
        run = text_run
        run.meta["notebook_source"] = f"{printed}:{run.format}"
        notes.append(
            Msg("ingest.note.nb_markdown" if printed == "markdown" else "ingest.note.nb_text", format=run.format)
        )
        if table_run is not None:
            notes.append(Msg("ingest.note.nb_also_table", table=_vitals(table_run), text=_vitals(text_run)))
    run.format = "notebook"
    run.name = name
    run.notes = notes + run.notes
    return run


_NB_HEAD = re.compile(r'\A[\ufeff\s]*\{\s*"(?:cells|metadata|nbformat)"')


def _sniff(text: str) -> float:
    if not _NB_HEAD.match(text):
        return 0.0
    return 0.97 if ('"cell_type"' in text or '"nbformat"' in text) else 0.0


FORMAT = Format(
    "notebook",
    "Jupyter notebook (.ipynb): the Trainer's HTML progress table, or printed logs in its outputs",
    _sniff,
    reader=read_notebook,
)
