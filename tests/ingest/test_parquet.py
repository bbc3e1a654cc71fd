"""Parquet step tables (rlprobe's run directory): read with pyarrow when it is installed, refused with
a one-line hint when it is not."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from realdata import TESTS

from rlvitals.errors import InputError
from rlvitals.ingest import read

RUN_DIR = TESTS / "fixtures" / "peers" / "rlprobe" / "healthy"


def test_without_pyarrow_a_one_line_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    for target in (RUN_DIR, RUN_DIR / "steps.parquet"):
        with pytest.raises(InputError, match=r"needs pyarrow: pip install pyarrow \(or rlvitals\[parquet\]\)"):
            read(target)


def test_rlprobe_run_directory_reads_like_its_jsonl_export():
    pytest.importorskip("pyarrow")
    native = read(RUN_DIR)  # the directory: steps.parquet beside manifest.json
    again = read(RUN_DIR / "steps.parquet")  # the file itself, found by its magic bytes
    export = read(RUN_DIR / "steps.jsonl")  # the same rows exported by rlprobe's reader
    assert native.format == again.format == "parquet" and native.meta["manifest"]["algorithm"] == "grpo"
    assert {k: s.source for k, s in native.series.items()} == {k: s.source for k, s in export.series.items()}
    for k, s in native.series.items():
        assert np.array_equal(s.steps, export.series[k].steps) and np.allclose(s.values, export.series[k].values)
    assert native.component_kinds == export.component_kinds == {"correctness": "correctness", "format": "format"}
    assert native.dropped == {"non-numeric values": 500}  # kl_positional: a list per step
