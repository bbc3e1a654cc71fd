"""Two readings a growing run's early prefix gets wrong and the next prefix takes back.

1. One grad-norm step at 100x its median near the end of a prefix is read as an explosion starting --
   unless the points after it are already back at their ordinary level: then it was one step that
   came back, as the next prefix (where it is no longer recent) says anyway.
2. An entropy gone to 0 on a task solved within a few dozen steps: the collapse fires on as few
   points as the prefix has, so the goal's level at its ceiling is read from as few (sparse_points)
   -- when it clears the ceiling beyond the noise of a mean of that many points (a noisy 0.92 over
   twelve steps does not: tests/diagnose/test_materiality.py).
"""

from __future__ import annotations

import numpy as np

from rlvitals.diagnose import diagnose
from rlvitals.run import Run


def _spiky(n: int, spike_at: int, seed: int = 0) -> Run:
    r = np.random.default_rng(seed)
    s = np.arange(1, n + 1)
    gnorm = 0.25 + r.normal(0, 0.04, n)
    gnorm[spike_at - 1] = 86.0  # one step at ~350x the median
    return Run.from_arrays(
        "spike",
        s,
        dict(
            reward=0.3 + 0.6 * np.minimum(s / 60.0, 1.0) + r.normal(0, 0.05, n),
            entropy=0.4 + r.normal(0, 0.01, n),
            kl=0.01 + 0.0005 * s + r.normal(0, 0.002, n),
            gnorm=np.abs(gnorm),
            clip_frac=0.002 + np.abs(r.normal(0, 0.0005, n)),
        ),
    )


def _ids(d) -> list[tuple[str, str]]:
    return [(f.id, f.severity) for f in d.findings]


def test_a_grad_norm_step_that_came_back_is_no_explosion():
    d = diagnose(_spiky(84, spike_at=79))  # five ordinary points after the spike
    assert "numeric_instability" not in {f.id for f in d.findings if f.severity != "info"}, _ids(d)
    assert d.verdict == "learning", _ids(d)


def test_a_grad_norm_step_at_the_last_point_is_an_explosion_starting():
    d = diagnose(_spiky(84, spike_at=84))  # nothing after it yet: it may be the start
    f = next((f for f in d.findings if f.id == "numeric_instability"), None)
    assert f is not None and f.severity == "critical", _ids(d)


def _solved(n: int, acc_end: float, seed: int = 0) -> Run:
    r = np.random.default_rng(seed)
    s = np.arange(0, n + 1)
    rise = np.minimum(s / 4.0, 1.0)
    return Run.from_arrays(
        "short",
        s,
        dict(
            acc=np.clip(0.7 + (acc_end - 0.7) * rise + r.normal(0, 0.004, s.size), 0, 1),
            reward=np.clip(0.7 + (acc_end - 0.7) * rise + r.normal(0, 0.004, s.size), 0, 1),
            entropy=0.0015 + 0.53 * np.exp(-s / 1.5),
            adv_std=np.maximum(0.0, 0.5 * (1 - rise)) + np.abs(r.normal(0, 0.002, s.size)),
        ),
    )


def test_entropy_at_zero_on_a_task_solved_within_a_short_prefix_is_not_a_collapse():
    d = diagnose(_solved(16, acc_end=0.995))
    assert d.verdict == "learning", _ids(d)


def test_entropy_at_zero_with_the_task_unsolved_still_warns_on_a_short_prefix():
    d = diagnose(_solved(16, acc_end=0.72))
    assert d.verdict == "dead" and d.findings[0].id == "entropy_collapse", _ids(d)
