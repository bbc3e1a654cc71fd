"""Every user-facing string, in Chinese and English, in one place per domain.

Each catalog module (`ui`, `vitals`, `findings`, `lab`, `lab_lesson`, `lab_ref`, `plot`, `watch`, `ingest`, `reasons`, `sim`, `report`) defines `STRINGS = {"en": {...}, "zh": {...}}` with the
same keys in both languages (a test checks this).  `t(key, lang, **fields)` formats one string;
a missing key falls back to English, then to the key itself, so a gap never crashes a report.
"""

from __future__ import annotations

import locale
import os
from dataclasses import dataclass
from importlib import import_module

__all__ = ["LANGS", "Listing", "Msg", "Text", "catalogs", "default_lang", "localize", "t"]

LANGS: tuple[str, ...] = ("en", "zh")
_DOMAINS: tuple[str, ...] = (
    "ui",
    "findings",
    "lab",
    "lab_lesson",
    "lab_ref",
    "plot",
    "watch",
    "ingest",
    "reasons",
    "sim",
    "report",
    "vitals",
)
_cache: dict[str, dict[str, str]] | None = None


def catalogs() -> dict[str, dict[str, dict[str, str]]]:
    """domain -> lang -> key -> template (for the completeness test)."""
    out = {}
    for d in _DOMAINS:
        try:
            out[d] = import_module(f"{__name__}.{d}").STRINGS
        except ModuleNotFoundError:
            continue
    return out


def _merged() -> dict[str, dict[str, str]]:
    global _cache
    if _cache is None:
        merged: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
        for strings in catalogs().values():
            for lang in LANGS:
                merged[lang].update(strings.get(lang, {}))
        _cache = merged
    return _cache


def t(key: str, lang: str = "en", /, **fields: object) -> str:
    """The string `key` in `lang`, formatted with `fields`."""
    table = _merged()
    template = table.get(lang, {}).get(key) or table["en"].get(key) or key
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template


class Msg(str):
    """A sentence that remembers its i18n key: it *is* the English string (stored in `Run.notes`,
    compared, written to JSON as such); `localize(msg, lang)` gives it in another language.

    A field may itself be a `Msg`, a `Text` (words given in each language where they are written)
    or a `Listing` of such parts: each is put in the sentence's language, so a note is translated
    from its key and fields, never by parsing its English back."""

    key: str
    fields: dict[str, object]

    def __new__(cls, key: str, /, **fields: object) -> Msg:
        obj = super().__new__(cls, t(key, "en", **_in_lang(fields, "en")))
        obj.key, obj.fields = key, fields
        return obj

    def in_lang(self, lang: str) -> str:
        """The sentence in `lang` (its fields too)."""
        return str(self) if lang == "en" else t(self.key, lang, **_in_lang(self.fields, lang))

    def __reduce__(self) -> tuple[object, tuple[str, dict[str, object]]]:  # pickling keeps the key
        return (_msg, (self.key, self.fields))


def _msg(key: str, fields: dict[str, object]) -> Msg:
    return Msg(key, **fields)


@dataclass(frozen=True)
class Text:
    """Words that come with their own translation (a scenario's summary), not from a catalog."""

    en: str
    zh: str = ""

    def __str__(self) -> str:
        return self.en

    def in_lang(self, lang: str) -> str:
        return self.zh if lang == "zh" and self.zh else self.en


@dataclass(frozen=True)
class Listing:
    """Parts of a sentence joined by the catalog's separator `sep` (a key: "; " in English, "；" in
    Chinese), each part in the sentence's language."""

    items: tuple[object, ...]
    sep: str = "note.list_sep"

    def __str__(self) -> str:
        return self.in_lang("en")

    def in_lang(self, lang: str) -> str:
        return t(self.sep, lang).join(localize(x, lang) for x in self.items)


def _in_lang(fields: dict[str, object], lang: str) -> dict[str, object]:
    """`fields` with every part that has its own words (Msg, Text, Listing) in `lang`."""
    return {k: localize(v, lang) if isinstance(v, (Msg, Text, Listing)) else v for k, v in fields.items()}


def localize(text: object, lang: str = "en") -> str:
    """`text` in `lang` when it is a `Msg`, `Text` or `Listing`; any other text as it is."""
    if isinstance(text, (Msg, Text, Listing)):
        return text.in_lang(lang)
    return str(text)


def default_lang() -> str:
    """'zh' when the environment's locale is Chinese, else 'en' (RLVITALS_LANG overrides)."""
    env = os.environ.get("RLVITALS_LANG")
    if env in LANGS:
        return env
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        val = os.environ.get(var, "")
        if val:
            return "zh" if val.lower().startswith("zh") else "en"
    loc = (locale.getlocale()[0] or "").lower()
    return "zh" if loc.startswith("zh") else "en"
