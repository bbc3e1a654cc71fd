"""The small public API stays small and works as documented in the package docstring."""

from __future__ import annotations

import rlvitals
from rlvitals.ingest import example_path


def test_all_is_sorted_and_complete():
    assert rlvitals.__all__ == sorted(rlvitals.__all__)
    for name in rlvitals.__all__:
        assert getattr(rlvitals, name) is not None


def test_functions_are_not_shadowed_by_subpackages():
    import rlvitals.diagnose.model
    import rlvitals.simulate

    assert callable(rlvitals.diagnose) and callable(rlvitals.simulate) and callable(rlvitals.read)


def test_read_diagnose_simulate_round_trip():
    run = rlvitals.read(example_path())
    assert run.format == "lesson" and run.n_steps == 200
    assert rlvitals.diagnose(run).verdict == "learning"
    sim = rlvitals.simulate("sync_failure", seed=2)
    diag = rlvitals.diagnose(sim)
    assert diag.top is not None and diag.top.id == "sync_failure" and diag.verdict == "dead"


def test_monitor_is_exported():
    mon = rlvitals.Monitor()
    mon.log({"reward": 0.5, "entropy": 1.2}, step=1)


def test_import_and_cli_startup_load_nothing_heavy():
    """`import rlvitals` and `rlvitals --version/--help` import names on first use (PEP 562): no
    numpy, no reader, no rule (they cost ~0.2 s of CPU that `--version` has no use for)."""
    import subprocess
    import sys

    code = ("import sys, rlvitals, rlvitals.cli\n"
            "try:\n    rlvitals.cli.main(['--version'])\nexcept SystemExit:\n    pass\n"
            "heavy = sorted(m for m in sys.modules if m == 'numpy' or m.startswith(('rlvitals.ingest', "
            "'rlvitals.diagnose', 'rlvitals.simulate', 'rlvitals.watch')))\n"
            "print(heavy)\n"
            "from rlvitals import Finding, diagnose\n"
            "print(callable(diagnose), Finding.__module__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.splitlines()[1:] == ["[]", "True rlvitals.diagnose.model"]
