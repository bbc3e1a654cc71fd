"""Every number a rule decides on lives in the threshold table: the rule modules hold no decimals.

The decisions are rows of thresholds.TABLE (read through `get()` at call time, so `using()` reaches
them); the arithmetic around them is named once in diagnose/arith.py and a finding's confidence
level in diagnose/confidence.py.  The rule modules are the registry's (`diagnose.MODULES`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import rlvitals.diagnose as dg
from rlvitals.diagnose.thresholds import TABLE

PKG = Path(dg.__file__).parent
# inline decimals other than 0 and +-1 allowed across all rule modules (the bar is under 20)
MAX_DECIMALS = 0


def _decimals(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (0.0, 1.0, -1.0):
            out.append(f"{path.name}:{node.lineno}: {node.value!r}")
    return out


def _table_names(path: Path) -> list[tuple[int, str]]:
    """Every get("<name>") with a literal name in a module."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append((node.lineno, node.args[0].value))
    return out


def test_the_registry_names_the_rule_modules_scanned():
    files = [Path(m.__file__) for m in dg.MODULES]
    assert len(files) == 15 and all(f.parent == PKG for f in files)


def test_rule_modules_hold_no_inline_decimals():
    found = [x for m in dg.MODULES for x in _decimals(Path(m.__file__))]
    assert len(found) <= MAX_DECIMALS, "move these to thresholds.TABLE (or arith.py / confidence.py):\n" + "\n".join(
        found
    )


def test_the_counters_see_a_decimal_and_a_table_name(tmp_path):
    p = tmp_path / "rule.py"
    p.write_text('def f(x):\n    return x > 0.25 * 3 and x < -1.0 and x != 0.0 and x > get("clip_high")\n')
    assert _decimals(p) == ["rule.py:2: 0.25"]
    assert _table_names(p) == [(2, "clip_high")]


def test_every_threshold_a_diagnose_module_reads_is_in_the_table():
    unknown = [
        f"{p.name}:{line}: {name}"
        for p in sorted(PKG.glob("*.py"))
        for line, name in _table_names(p)
        if name not in TABLE
    ]
    assert not unknown, unknown
