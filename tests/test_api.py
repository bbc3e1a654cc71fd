"""The small public API stays small and works as documented in the package docstring."""

from __future__ import annotations

import rlvitals
from rlvitals.ingest import example_path

PUBLIC = [
    "Diagnosis",
    "Finding",
    "Monitor",
    "Run",
    "Series",
    "__version__",
    "diagnose",
    "diagnose_run",
    "plot",
    "read",
    "read_all",
    "simulate",
    "simulate_run",
]


def test_all_is_exactly_the_public_api():
    """Adding or removing a public name is a decision: change PUBLIC here with it (and CHANGELOG.md)."""
    assert rlvitals.__all__ == PUBLIC
    for name in PUBLIC:
        assert getattr(rlvitals, name) is not None
    star: dict = {}
    exec("from rlvitals import *", star)
    assert sorted(n for n in star if n != "__builtins__") == sorted(PUBLIC)


def test_one_version_source():
    from importlib.metadata import version

    assert rlvitals.__version__ == version("rlvitals")
    parts = rlvitals.__version__.split(".")
    assert len(parts) == 3 and all(p.isdigit() for p in parts)


def test_package_ships_its_type_hints():
    from pathlib import Path

    assert (Path(rlvitals.__file__).parent / "py.typed").is_file()


def test_functions_and_subpackages_have_names_of_their_own():
    """`diagnose` / `simulate` are the subpackages, `diagnose_run` / `simulate_run` their functions,
    whatever was imported first."""
    import types

    import rlvitals.diagnose.model
    import rlvitals.simulate.scenarios

    assert isinstance(rlvitals.diagnose, types.ModuleType) and isinstance(rlvitals.simulate, types.ModuleType)
    assert rlvitals.diagnose_run is rlvitals.diagnose.diagnose and rlvitals.simulate_run is rlvitals.simulate.simulate
    assert rlvitals.diagnose.model.Finding is rlvitals.Finding


def test_read_diagnose_simulate_round_trip():
    run = rlvitals.read(example_path())
    assert run.format == "lesson" and run.n_steps == 200
    assert rlvitals.diagnose_run(run).verdict == "learning"
    sim = rlvitals.simulate_run("sync_failure", seed=2)
    diag = rlvitals.diagnose_run(sim)
    assert diag.top is not None and diag.top.id == "sync_failure" and diag.verdict == "dead"


def test_monitor_is_exported():
    mon = rlvitals.Monitor()
    mon.log({"reward": 0.5, "entropy": 1.2}, step=1)


def test_import_and_cli_startup_load_nothing_heavy():
    """`import rlvitals` and `rlvitals --version/--help` import names on first use (PEP 562): no
    numpy, no reader, no rule (they cost ~0.2 s of CPU that `--version` has no use for)."""
    import subprocess
    import sys

    code = (
        "import sys, rlvitals, rlvitals.cli\n"
        "try:\n    rlvitals.cli.main(['--version'])\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(m for m in sys.modules if m == 'numpy' or m.startswith(('rlvitals.ingest', "
        "'rlvitals.diagnose', 'rlvitals.simulate', 'rlvitals.watch')))\n"
        "print(heavy)\n"
        "from rlvitals import Finding, diagnose_run\n"
        "print(diagnose_run.__module__, Finding.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.splitlines()[1:] == ["[]", "rlvitals.diagnose rlvitals.diagnose.model"]


def test_nothing_here_calls_a_subpackage_as_0_1_did():
    """The package, tests, benchmarks and scripts call `diagnose_run` / `simulate_run` (or the
    function from its subpackage), never the deprecated `rlvitals.diagnose(run)` or
    `from rlvitals import diagnose` (read with ast, so comments and docs may still name them)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    deprecated = {"diagnose", "simulate"}
    found = []
    for folder in ("src", "tests", "benchmarks", "scripts"):
        for path in sorted((root / folder).rglob("*.py")):
            if path.name == "test_api_objects.py" or "fixtures" in path.parts:  # it tests the deprecation
                continue
            text = path.read_text(encoding="utf-8")
            if not any(s in text for s in ("rlvitals.diagnose(", "rlvitals.simulate(", "rv.", "from rlvitals import")):
                continue  # cannot hold such a call: skip parsing it
            for node in ast.walk(ast.parse(text)):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ("rlvitals", "rv")
                    and node.func.attr in deprecated
                ) or (
                    isinstance(node, ast.ImportFrom)
                    and node.module == "rlvitals"
                    and deprecated & {a.name for a in node.names}
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == [], "call rlvitals.diagnose_run / simulate_run instead: " + ", ".join(found)
