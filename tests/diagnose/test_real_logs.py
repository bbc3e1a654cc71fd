"""The six real training logs, diagnosed as their README (tests/fixtures/real/README.md) says."""

from __future__ import annotations

import pytest
from realdata import REAL_LOGS

from rlvitals.diagnose import diagnose
from rlvitals.ingest import read


@pytest.fixture(scope="module")
def diag():
    return {k: diagnose(read(str(p))) for k, p in REAL_LOGS.items()}


def test_verl_baseline_is_learning_with_no_warning(diag):
    d = diag["verl_healthy"]
    assert d.verdict == "learning" and d.worst_severity() in (None, "info")
    # entropy 0.44 → 0.056 while the score climbs: low entropy alone is not a collapse
    assert d.shapes["entropy"].end < 0.06 and d.shapes["reward"].word == "rising"
    assert "entropy_collapse" not in {f.id for f in d.findings}


def test_verl_lora_plateau_is_learning_and_clip_is_not_applicable(diag):
    d = diag["verl_plateau"]
    assert d.verdict == "learning" and d.worst_severity() in (None, "info")
    assert d.shapes["clip_frac"].word == "constant" and "clip_frac" in d.run["not_applicable"]
    p = next(f for f in d.findings if f.id == "plateau")
    # "plateaued from about step 280": the score's 20-step means reach the plateau level (0.235) at
    # steps 181-200 and stay within 0.20-0.25 after, so the settling point reads ~200
    assert 180 <= p.onset_step <= 350
    assert "entropy_explosion" not in {f.id for f in d.findings}  # 0.13 → 0.26 under an entropy bonus


def test_trl_collapse_is_entropy_collapse(diag):
    d = diag["trl_collapse"]
    assert d.verdict == "dead" and d.top.id == "entropy_collapse"
    ev = d.top.evidence
    assert ev["entropy_end"] < 0.05 and ev["adv_std_end"] < 0.3 and ev["len_end"] < ev["len_start"] / 2
    assert "ratio_mean" in d.top.missing  # TRL logs no ratio: say so


def test_rookworld_is_numeric_instability(diag):
    d = diag["rookworld_blowup"]
    assert d.verdict == "dead" and d.top.id == "numeric_instability"
    # the last of the five concatenated runs: loss spikes to 133 (×1000 its median), kl_div below 0
    assert d.top.evidence["loss_peak_over_median"] > 100
    assert "kl_blowup" not in {f.id for f in d.findings}  # the KL is a casualty, not the cause


def test_primerl_is_reward_hacking(diag):
    d = diag["primerl_hacking"]
    assert d.verdict == "cheating" and d.top.id == "reward_hacking"
    assert d.top.evidence["acc_constant"] is True and d.top.evidence["acc_end"] == 0.0
    assert d.top.evidence["reward_end"] > d.top.evidence["reward_start"] + 0.1


def test_trl_truncated_is_dead(diag):
    d = diag["trl_truncated"]
    assert d.verdict == "dead" and d.top.id in ("truncation_starvation", "stalled")
    assert d.top.evidence.get("len_pinned_at_max", 1.0) > 0.9
