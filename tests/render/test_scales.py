"""A metric is shown as a percent only when it is a fraction in [0, 1]; otherwise in its own units."""

from __future__ import annotations

import json
import re

import numpy as np

from rlvitals import cli
from rlvitals.ingest import read
from rlvitals.render.charts import fmt_value, panel_grid


def two_point_scale_run(tmp_path):
    """TRL keys where the only accuracy is a correctness reward paying 2.0 per right answer."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(1, 121):
        right = rng.binomial(16, 0.01 + 0.04 * i / 120) / 16
        rows.append(
            {
                "step": i,
                "reward": 0.5 + 0.003 * i + rng.normal(0, 0.05),
                "rewards/correctness_reward_func/mean": 2.0 * right,
                "kl": 0.001 * i,
                "completion_length": 200.0 + rng.normal(0, 5),
            }
        )
    rows[60]["rewards/correctness_reward_func/mean"] = 1.3333
    p = tmp_path / "run.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


def test_an_accuracy_on_a_two_point_scale_is_shown_in_its_own_units(tmp_path, capsys):
    p = two_point_scale_run(tmp_path)
    run = read(p)
    assert run["acc"].proxy and float(np.nanmax(run["acc"].values)) > 1
    assert cli.main(["vitals", str(p), "--lang", "en"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("acc "))
    assert "%" not in line and "1.333" in line
    assert cli.main(["diagnose", str(p), "--lang", "en"]) == 0
    row = next(ln for ln in capsys.readouterr().out.splitlines() if re.match(r"\s+acc\*? ", ln))
    assert "%" not in row
    assert "%" not in panel_grid(run, metrics=["acc"])[0]


def test_a_fraction_is_still_a_percent():
    from rlvitals.render.charts import is_fraction

    assert not is_fraction("acc", [0.0, 2.0])
    assert is_fraction("acc", [0.0, 0.5, 1.0]) and fmt_value("acc", 0.25, True) == "25.0%"
    assert fmt_value("clip_frac", 0.004) == "0.4%"
    assert fmt_value("acc", 1.3333) == "1.333"  # never 133%, even without the series
    assert fmt_value("acc", 0.5, False) == "0.500"
    assert not is_fraction("reward", [0.1, 0.2])
