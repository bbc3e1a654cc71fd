"""Every user-facing string, in Chinese and English, in one place per domain.

Each catalog module (`ui`, `findings`, `lab`, `lab_ref`, `plot`, `watch`, `ingest`) defines `STRINGS = {"en": {...}, "zh": {...}}` with the
same keys in both languages (a test checks this).  `t(key, lang, **fields)` formats one string;
a missing key falls back to English, then to the key itself, so a gap never crashes a report.
"""

from __future__ import annotations

import locale
import os
from importlib import import_module

__all__ = ["LANGS", "Msg", "catalogs", "default_lang", "localize", "t"]

LANGS: tuple[str, ...] = ("en", "zh")
_DOMAINS: tuple[str, ...] = ("ui", "findings", "lab", "lab_ref", "plot", "watch", "ingest", "sim", "report")
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
    compared, written to JSON as such); `localize(msg, lang)` gives it in another language."""

    key: str
    fields: dict[str, object]

    def __new__(cls, key: str, /, **fields: object) -> Msg:
        obj = super().__new__(cls, t(key, "en", **fields))
        obj.key, obj.fields = key, fields
        return obj

    def __reduce__(self):                     # pickling (multiprocessing) keeps the key
        return (_msg, (self.key, self.fields))


def _msg(key: str, fields: dict[str, object]) -> Msg:
    return Msg(key, **fields)


def localize(text: object, lang: str = "en") -> str:
    """`text` in `lang` when it is a `Msg`; any other text as it is."""
    if isinstance(text, Msg):
        return t(text.key, lang, **text.fields)
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
