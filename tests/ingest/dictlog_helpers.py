"""Helpers for the dict-console reader tests: a small synthetic run and a round-trip comparison."""

from __future__ import annotations

import io

import numpy as np

from rlvitals.ingest import read_text, write_run
from rlvitals.run import Run


def synthetic_run(steps: int = 30, seed: int = 0) -> Run:
    """A run with all eight vitals and the extras, values with many digits, one NaN in gnorm."""
    rng = np.random.default_rng(seed)
    s = np.arange(1, steps + 1)
    t = s / steps
    cols = {
        "reward": 0.2 + 0.5 * t + rng.normal(0, 0.03, steps),
        "acc": np.clip(0.1 + 0.6 * t + rng.normal(0, 0.02, steps), 0, 1),
        "entropy": 0.6 - 0.3 * t + rng.normal(0, 0.01, steps),
        "kl": 1e-4 * s + rng.uniform(0, 1e-5, steps),
        "adv_std": np.clip(0.9 - 0.2 * t + rng.normal(0, 0.01, steps), 0, 1),
        "clip_frac": rng.uniform(0.0, 0.02, steps),
        "ratio_mean": 1.0 + rng.normal(0, 1e-3, steps),
        "len": 300 + 100 * t + rng.normal(0, 5, steps),
        "gnorm": rng.uniform(0.1, 0.4, steps),
        "trunc": rng.uniform(0.0, 0.05, steps),
        "lr": np.full(steps, 1e-6),
        "loss": rng.normal(0, 0.01, steps),
    }
    cols["gnorm"][5] = np.nan
    return Run.from_arrays("synthetic", s, cols)


def round_trip(run: Run, fmt: str) -> Run:
    buf = io.StringIO()
    write_run(run, fmt, buf)
    return read_text(buf.getvalue(), fmt)


def assert_same_series(a: Run, b: Run, names, rtol: float = 0.0, atol: float = 0.0) -> None:
    for name in names:
        assert name in b.series, f"{name} lost in the round trip (have {sorted(b.series)})"
        sa, sb = a.series[name], b.series[name]
        np.testing.assert_array_equal(sa.steps, sb.steps, err_msg=name)
        np.testing.assert_allclose(sb.values, sa.values, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)
