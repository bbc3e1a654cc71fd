"""The registry is complete: every finding has its spec, module, action, words and relations, and
the precedence tables are the registry's, not a second copy."""

from __future__ import annotations

import ast
from pathlib import Path

import rlvitals.diagnose as dg
from rlvitals.diagnose import actions, differential, verdict
from rlvitals.diagnose.model import FINDING_IDS, VERDICTS
from rlvitals.diagnose.predicates import PREDICATES
from rlvitals.diagnose.registry import HARM_KINDS, RELATIONS, SPECS
from rlvitals.i18n import t

PKG = Path(dg.__file__).parent


def test_every_finding_has_a_spec_a_module_an_action_and_words_in_both_languages():
    ids = [sp.id for sp in SPECS]
    assert len(ids) == len(set(ids)) and list(FINDING_IDS) == ids
    for sp in SPECS:
        assert sp.verdict in VERDICTS and sp.harm in HARM_KINDS
        assert (PKG / f"{sp.id}.py").exists() == sp.rule
        assert sp.id in actions.ACTIONS
        for lang in ("en", "zh"):
            title = t(f"finding.{sp.id}.title", lang)
            assert title and not title.startswith("finding."), (sp.id, lang)
        assert all(look in FINDING_IDS and look != sp.id for look in sp.lookalikes)
    assert [m.ID for m in dg.MODULES] == [sp.id for sp in SPECS if sp.rule]


def test_relations_name_known_findings_and_the_tables_are_derived_from_them():
    rules = {sp.id for sp in SPECS if sp.rule}
    for r in RELATIONS:
        assert r.kind in ("explains", "chain", "defers")
        names = r.other.split("|") + ([r.owner] if r.owner else [])
        assert all(n in FINDING_IDS for n in names), r
        if r.kind == "chain" and r.owner:
            assert r.owner in r.other.split("|")
        # a deferral names the predicate it holds back while, and both sides are detectors' findings
        assert (
            (r.when in PREDICATES and r.other in rules and r.owner in rules and r.why)
            if r.kind == "defers"
            else not r.when
        ), r
    defers = {(r.other, r.when) for r in RELATIONS if r.kind == "defers"}
    assert defers == {(o, p) for o, ps in verdict.DEFERS.items() for p in ps}
    explains = {(r.owner, r.other) for r in RELATIONS if r.kind == "explains"}
    assert explains == {(o, x) for o, xs in verdict.SUPPRESSES.items() for x in xs}
    assert tuple(FINDING_IDS) == verdict.PRIORITY
    assert {sp.id: sp.lookalikes for sp in SPECS if sp.lookalikes} == differential.LOOKALIKES


def _stands_back_for_another(path: Path) -> list[str]:
    """Imports of another finding's module inside a rule module (a detector deciding for another)."""
    rules = {sp.id for sp in SPECS if sp.rule}
    own = path.stem
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module in rules and node.module != own:
            out.append(f"{own} imports {node.module}")
    return out


def test_no_rule_module_imports_another_rule_module_except_through_a_declared_measure():
    found = [x for sp in SPECS if sp.rule for x in _stands_back_for_another(PKG / f"{sp.id}.py")]
    # length_hacking asks reward_hacking where the reward parted from the truth (a measure it reads,
    # not a decision); every other cross-rule question goes through the relation table
    assert found == ["length_hacking imports reward_hacking"]


def test_no_rule_module_asks_a_deferral_predicate_itself():
    """A predicate a finding defers on (RELATIONS "defers") is read by verdict.resolve only: a rule that
    asked it in its own code would be standing back for another again.  (Another rule may read it as
    its own evidence: entropy_collapse reads entropy_to_zero, on which data_too_hard defers.)"""
    asked = []
    for sp in SPECS:
        if not sp.rule:
            continue
        deferrals = {r.when for r in RELATIONS if r.kind == "defers" and r.other == sp.id}
        path = PKG / f"{sp.id}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("holds", "pred")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in deferrals
            ):
                asked.append(f"{path.name}:{node.lineno}: {node.args[1].value}")
    assert not asked, asked
