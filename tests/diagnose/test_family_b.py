"""reward_hacking, length_hacking, truncation_starvation, data_too_easy/hard, stalled, plateau and
not_learning on runs built from their mechanisms (the lesson's confusable pairs), including the
peers' own scenario files."""

from __future__ import annotations

from pathlib import Path

import diag_curves as dc
import numpy as np
from diag_curves import N, S

from rlvitals.diagnose import diagnose
from rlvitals.run import Series

PEERS = Path(__file__).resolve().parents[1] / "fixtures" / "peers"


def ids(d):
    return [f.id for f in d.findings]


def test_plateau_on_a_smooth_approach_is_dated_where_the_gains_ran_out():
    # a smooth exponential approach (tau 35 steps: 90% of the rise by step ~80), the goal an eval
    # accuracy logged every 10 steps: the two-line knee of such a curve sits late, where the slope
    # is exactly 0; the gains ran out near the 90% settling point
    r = np.random.default_rng(3)
    acc = 0.2 + 0.16 * (1 - np.exp(-(S - 1) / 35.0)) + r.normal(0, 0.012, N)
    run = dc.healthy(0, acc=acc, reward=acc + 0.3)
    ev = S[::10]
    run.series["val_acc"] = Series("val_acc", ev, 0.2 + 0.16 * (1 - np.exp(-(ev - 1) / 35.0)) + r.normal(0, 0.01, ev.size))
    d = diagnose(run)
    p = next(f for f in d.findings if f.id == "plateau")
    assert p.severity == "info" and d.verdict == "learning"
    assert 50 <= p.onset_step <= 110
