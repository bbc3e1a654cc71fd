"""The watch catalog (rlvitals.i18n.watch): same keys and fields in English and Chinese; lookups never crash."""

from __future__ import annotations

import string

from rlvitals.i18n import t as tr
from rlvitals.i18n.watch import STRINGS


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_same_keys_and_fields_in_both_languages():
    assert set(STRINGS["en"]) == set(STRINGS["zh"])
    for key, en in STRINGS["en"].items():
        assert fields(en) == fields(STRINGS["zh"][key]), key


def test_every_template_formats_with_its_fields():
    for lang, table in STRINGS.items():
        for key, template in table.items():
            out = tr(key, lang, **{f: 1 for f in fields(template)})
            assert "{" not in out, (lang, key)


def test_missing_key_and_missing_fields_fall_back_quietly():
    assert tr("watch.no_such_key", "zh") == "watch.no_such_key"
    assert tr("watch.waiting", "fr", path="x") == STRINGS["en"]["watch.waiting"].format(path="x")
    assert "{path}" in tr("watch.waiting", "en")  # no fields given: the template, not an exception
