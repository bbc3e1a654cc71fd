"""Every i18n catalog says the same things in en and zh: identical keys, identical template fields."""

from __future__ import annotations

import string

import pytest

from rlvitals.i18n import catalogs, t


def _fields(template: str) -> set[str]:
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("domain", sorted(catalogs()))
def test_catalog_has_identical_keys_and_fields(domain):
    strings = catalogs()[domain]
    assert set(strings) == {"en", "zh"}
    en, zh = strings["en"], strings["zh"]
    assert set(en) == set(zh), f"{domain}: only en {sorted(set(en) - set(zh))}, only zh {sorted(set(zh) - set(en))}"
    for key in en:
        assert _fields(en[key]) == _fields(zh[key]), key
        assert en[key].strip() and zh[key].strip(), key


def test_ui_catalog_is_loaded_and_formats():
    assert "ui" in catalogs()
    assert t("ui.since_step", "zh", step=63) == "自第 63 步"
    assert t("ui.verdict.dead", "zh") == "已经废了"
    assert t("ui.no.such.key", "zh") == "ui.no.such.key"


def test_every_domain_is_registered_and_no_key_is_defined_twice():
    from pathlib import Path

    import rlvitals.i18n as i18n

    on_disk = {p.stem for p in Path(i18n.__file__).parent.glob("*.py") if p.stem != "__init__"}
    assert on_disk == set(catalogs()), "a catalog module exists that i18n does not load (or the reverse)"
    seen: dict[str, str] = {}
    for domain, strings in catalogs().items():
        for key in strings["en"]:
            assert key not in seen, f"{key} defined in both {seen[key]} and {domain}"
            seen[key] = domain
