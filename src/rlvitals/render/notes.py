"""The run's notes in the report's language.

Readers write their notes as English sentences (`Run.notes`: they are also the JSON's plain
record).  A Chinese report translates the known ones here, by pattern, at render time: each
pattern names an i18n key (`note.*` in i18n/ui.py) and the fields it fills; parts that are
themselves sentences (a scenario's summary, an alias's explanation, "line 4 (step 1)") are
translated in turn.  A note no pattern knows is shown as written (nothing is hidden).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..i18n import Msg, localize, t

__all__ = ["translate_note", "translate_proxy", "translate_value"]


def _scenario(name: str) -> str:
    try:
        from ..simulate.scenarios import SCENARIOS
    except ImportError:        # pragma: no cover - the simulator is part of the package
        return ""
    sc = SCENARIOS.get(name)
    return sc.summary_zh if sc is not None else ""


_STANDS_IN = re.compile(r"acc stands in from the correctness reward term (?P<src>\S+): its values reach "
                        r"(?P<top>\S+), the reward function's scale, not a fraction")


def _alias_note(text: str, lang: str) -> str:
    m = _STANDS_IN.fullmatch(text)
    if m is not None:
        return t("note.acc_stands_in", lang, src=m["src"], top=m["top"])
    return _phrase("note.alias." + text, lang, text)


_COMPONENT = re.compile(r"(?P<name>[^,()]+?) \((?P<kind>correctness|format|length|style|other)\)")


def _components(text: str, lang: str) -> str:
    out = _COMPONENT.sub(lambda m: t("note.component", lang, name=m["name"], kind=t(f"note.kind.{m['kind']}", lang)),
                         text)
    return out.replace(", ", t("note.list_sep", lang)) if lang != "en" else out


def _phrase(key: str, lang: str, fallback: str) -> str:
    out = t(key, lang)
    return fallback if out == key else out


_WHERE = re.compile(r"line (\d+) \(step (-?\d+)\)")


def _where(text: str, lang: str) -> str:
    return _WHERE.sub(lambda m: t("note.line_step", lang, line=m.group(1), step=m.group(2)), text)


_RUN_ROWS = re.compile(r"run (\d+): steps (\S+?)–(\S+?), (\d+) rows")
_RUN_DB = re.compile(r"run (\d+): (.+?) \((\d+) steps\)")


def _listing(text: str, lang: str) -> str:
    """ "run 1: steps 1–3, 3 rows; run 2: …" (or a database's "run 1: id (n steps)") in `lang`."""
    text = _RUN_ROWS.sub(lambda m: t("note.run_rows", lang, i=m[1], first=m[2], last=m[3], rows=m[4]), text)
    text = _RUN_DB.sub(lambda m: t("note.run_db", lang, i=m[1], id=m[2], steps=m[3]), text)
    return text.replace("; ", t("note.list_sep", lang)) if lang != "en" else text


def _how(text: str, lang: str) -> str:
    """How TRL's steps were inferred (trl.py `_steps`)."""
    m = re.fullmatch(r"the tqdm counter N/(\d+) printed before each row", text)
    if m:
        return t("note.how.tqdm", lang, total=m.group(1))
    m = re.fullmatch(r"epoch × (\d+) update steps per epoch \(from the header\)", text)
    if m:
        return t("note.how.epoch", lang, n=m.group(1))
    m = re.fullmatch(r"line order × TRL's default logging_steps=(\d+)", text)
    if m:
        return t("note.how.default", lang, every=m.group(1))
    m = re.fullmatch(r"line order × logging_steps=(\d+), which gives (\d+) rows in (\d+) steps", text)
    if m:
        return t("note.how.fit", lang, every=m.group(1), rows=m.group(2), total=m.group(3))
    return text


# (pattern, key, how to turn the match into the template's fields)
_Fields = Callable[[re.Match[str], str], dict[str, str]]
_PATTERNS: list[tuple[re.Pattern[str], str, _Fields]] = [
    (re.compile(r"simulated scenario (?P<name>\S+) \(seed (?P<seed>[^)]*)\): (?P<summary>.*)"), "note.simulated",
     lambda m, lang: {"name": m["name"], "seed": m["seed"], "summary": _scenario(m["name"]) or m["summary"]}),
    (re.compile(r"(?P<n>\d+) segments: the step counter went back at (?P<where>.*); "
                r"on steps logged more than once the later segment wins"), "note.segments",
     lambda m, lang: {"n": m["n"], "where": _where(m["where"], lang)}),
    (re.compile(r"(?P<canon>\w+) from (?P<key>\S+): mapped by the user \((?P<flag>--map \S+)\)"), "note.mapped",
     lambda m, lang: {"canon": m["canon"], "key": m["key"], "flag": m["flag"]}),
    (re.compile(r"(?P<canon>\w+) from (?P<key>.+?): the name read as (?P=canon) \(if it is not, say which key is "
                r"with --map (?P=canon)=KEY\)"), "note.name_read_as",
     lambda m, lang: {"canon": m["canon"], "key": m["key"]}),
    (re.compile(r"(?P<canon>\w+) from (?P<key>\S+): (?P<note>.+)"), "note.alias",
     lambda m, lang: {"canon": m["canon"], "key": m["key"], "note": _alias_note(m["note"], lang)}),
    (re.compile(r"no step (?:column|field): the row number is used as the step"), "note.row_number",
     lambda m, lang: {}),
    (re.compile(r"the table has no Step column: the row number is used as the step"), "note.row_number",
     lambda m, lang: {}),
    (re.compile(r"TRL prints no step number: steps inferred from (?P<how>.+)"), "note.trl_steps",
     lambda m, lang: {"how": _how(m["how"], lang)}),
    (re.compile(r"read from the Trainer's HTML table in cell (?P<cell>\d+)(?: \((?P<i>\d+) of (?P<n>\d+) tables: "
                r"the one with the most vitals\))?, columns: (?P<cols>.*)"), "note.nb_table",
     lambda m, lang: {"cell": m["cell"], "cols": m["cols"],
                      "which": t("note.nb_which", lang, i=m["i"], n=m["n"]) if m["i"] else ""}),
    (re.compile(r"the printed output also reads as (?P<fmt>\S+) \((?P<steps>\d+) steps, (?P<v>\d+) vitals\); "
                r"the table was used"), "note.nb_also_text",
     lambda m, lang: {"fmt": m["fmt"], "steps": m["steps"], "v": m["v"]}),
    (re.compile(r"read from the printed output of the cells \((?P<fmt>\S+)\)"), "note.nb_text",
     lambda m, lang: {"fmt": m["fmt"]}),
    (re.compile(r"an HTML table with (?P<a>\d+) vitals was found too; the printed output has more "
                r"\((?P<b>\d+)\) and was used"), "note.nb_also_table",
     lambda m, lang: {"a": m["a"], "b": m["b"]}),
    (re.compile(r"the (?P<fmt>\S+) reader found no metric: read by the generic fallback"), "note.generic_fallback",
     lambda m, lang: {"fmt": m["fmt"]}),
    (re.compile(r"generic reader: metrics printed on lines without a step are attached to the next step line "
                r"\(they come before the first one\)"), "note.generic_next", lambda m, lang: {}),
    (re.compile(r"generic reader: metrics printed on lines without a step are attached to the step line "
                r"before them"), "note.generic_previous", lambda m, lang: {}),
    (re.compile(r"values written with % are read as fractions \(45% → 0\.45\)"), "note.generic_percent",
     lambda m, lang: {}),
    (re.compile(r"generic reader found no step counter: the row number is used as the step "
                r"\(a new row starts when a name repeats\)"), "note.generic_rows", lambda m, lang: {}),
    (re.compile(r"(?P<n>\d+) log dicts have no step key: their position in the array is used as the step"),
     "note.position_steps", lambda m, lang: {"n": m["n"]}),
    (re.compile(r"input decoded: (?P<layers>.+)"), "note.decoded", lambda m, lang: {"layers": m["layers"]}),
    (re.compile(r"the (?P<kind>\S+) stream is cut short: read the (?P<n>[\d,]+) bytes before the cut"),
     "note.stream_cut", lambda m, lang: {"kind": m["kind"], "n": m["n"]}),
    (re.compile(r"the (?P<kind>\S+) stream is damaged after (?P<n>[\d,]+) bytes: read what came before"),
     "note.stream_damaged", lambda m, lang: {"kind": m["kind"], "n": m["n"]}),
    (re.compile(r"the file holds (?P<n>\d+) runs \(the step counter restarted at step <= (?P<max>\d+)\): "
                r"(?P<listing>.*)\. This is run (?P<i>\d+); choose another with --run K"), "note.file_runs",
     lambda m, lang: {"n": m["n"], "max": m["max"], "i": m["i"], "listing": _listing(m["listing"], lang)}),
    (re.compile(r"the database holds (?P<n>\d+) runs: (?P<listing>.*)\. This is run (?P<i>\d+); "
                r"choose another with --run K"), "note.db_runs",
     lambda m, lang: {"n": m["n"], "i": m["i"], "listing": _listing(m["listing"], lang)}),
    (re.compile(r"(?P<n>\d+) event file\(s\) left out, the others read: (?P<files>.+)"), "note.tb_left_out",
     lambda m, lang: {"n": m["n"], "files": m["files"]}),
    (re.compile(r"reward components: (?P<listing>.+)"), "note.components",
     lambda m, lang: {"listing": _components(m["listing"], lang)}),
    (re.compile(r"val_acc from (?P<pick>\S+) \(the correctness-like eval metric of (?P<n>\d+)\)"), "note.val_pick",
     lambda m, lang: {"pick": m["pick"], "n": m["n"]}),
    (re.compile(r"val_acc from (?P<src>\S+) \((?P<n>\d+) eval metrics kept\)"), "note.val_kept",
     lambda m, lang: {"src": m["src"], "n": m["n"]}),
    (re.compile(r"(?P<n>\d+) eval dicts kept as extras at the step of the train row before them"), "note.trl_evals",
     lambda m, lang: {"n": m["n"]}),
    (re.compile(r"no truncation rate logged \((?P<src>\S+) only\): the mean length equals its maximum "
                r"(?P<top>\S+) at (?P<at>\d+) of (?P<of>\d+) steps, as when every answer is cut at a length cap; "
                r"trunc is not inferred"), "note.len_at_max",
     lambda m, lang: {"src": m["src"], "top": m["top"], "at": m["at"], "of": m["of"]}),
]


def translate_note(note: object, lang: str) -> str:
    """`note` in `lang`: a `Msg` (a note that remembers its i18n key) through its catalog, any
    other note through the patterns below; English notes are returned as they are."""
    if isinstance(note, Msg):
        return localize(note, lang)
    note = str(note)
    if lang == "en":
        return note
    for pattern, key, fields in _PATTERNS:
        m = pattern.fullmatch(note)
        if m is not None:
            return t(key, lang, **fields(m, lang))
    return note


def translate_proxy(note: str, lang: str) -> str:
    """A proxy's explanation (`Series.note`, an alias note) in `lang`."""
    return note if lang == "en" else _alias_note(note, lang)


_VALUES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"finite"), "value.finite"),
    (re.compile(r"not applicable \(constant\)"), "value.not_applicable"),
    (re.compile(r"(?P<v>\S+) \(at the cap on (?P<pct>\d+%) of steps\)"), "value.at_cap"),
    (re.compile(r"(?P<v>\S+) \(at the cap on (?P<pct>\d+%) of late steps\)"), "value.at_cap_late"),
]


def translate_value(value: object, lang: str) -> object:
    """An evidence or ruled-out value that a rule wrote as words ("finite", "not applicable
    (constant)", "256 (at the cap on 98% of steps)", true/false) in `lang`; numbers unchanged."""
    if lang == "en":
        return value
    if isinstance(value, bool):
        return t("value.true" if value else "value.false", lang)
    if not isinstance(value, str):
        return value
    for pattern, key in _VALUES:
        m = pattern.fullmatch(value)
        if m is not None:
            return t(key, lang, **m.groupdict())
    return value
