"""A format term learned first is the normal course of a run, not cheating.

Runs are written as TRL-style JSONL (reward, reward components, entropy, KL, lengths) and read
back.  In each the format term is learned in the first tens of steps; what differs is what the
correctness term does afterwards.  The diagnosis is read at growing prefixes, as `watch` would.
"""

from __future__ import annotations

import diag_curves as dc
import numpy as np

from rlvitals.diagnose import diagnose

N = 300


def _run(correct: np.ndarray, seed: int = 0, adv_std: float | None = None, fmt: np.ndarray | None = None):
    """fmt: the format term's curve (default: learned in the first tens of steps)."""
    rng = np.random.default_rng(seed)
    s = np.arange(N)
    if fmt is None:
        fmt = 0.98 - 0.55 * np.exp(-s / 15.0)
    fmt = np.clip(fmt + rng.normal(0, 0.01, N), 0, 1)
    corr = np.clip(correct + rng.normal(0, 0.02, N), 0, 1)
    reward = 0.5 * corr + 0.5 * fmt
    z = rng.standard_normal((N, 3 if adv_std is None else 4))  # per step: entropy, length, grad norm, adv_std
    cols = {
        "reward": reward,
        "rewards/correctness/mean": corr,
        "rewards/format/mean": fmt,
        "entropy": 0.8 - 0.1 * s / N + 0.01 * z[:, 0],
        "kl": 0.002 + 0.02 * s / N,
        "completions/mean_length": 300 + 5 * z[:, 1],
        "grad_norm": 0.4 + 0.02 * z[:, 2],
    }
    if adv_std is not None:
        cols["adv_std"] = adv_std + 0.02 * z[:, 3]
    return dc.jsonl_run(s, cols)


def _verdicts(run, cuts=(30, 50, 80, 120, 160, 200, 250, 299)):
    return [diagnose(run.upto(c)).verdict for c in cuts]


def test_correctness_learned_after_the_format_is_never_called_cheating():
    # correctness waits 60 steps, then climbs 0.2 -> 0.6: the reward's early lead is the format's
    correct = np.where(np.arange(N) < 60, 0.2, 0.2 + 0.4 * (1 - np.exp(-(np.arange(N) - 60) / 120.0)))
    seq = _verdicts(_run(correct))
    assert "cheating" not in seq, seq
    assert seq[-1] == "learning"


def test_a_format_term_that_carries_the_whole_gain_is_still_cheating_once_the_truth_had_its_chance():
    correct = np.full(N, 0.05)  # correctness never moves
    run = _run(correct)
    d = diagnose(run)
    assert d.verdict == "cheating" and d.findings[0].id == "reward_hacking"
    # while the format term is still being learned the truth has had no fair chance: no alarm yet
    assert diagnose(run.upto(30)).verdict != "cheating"


def test_a_format_term_over_an_all_wrong_truth_with_uniform_groups_is_data_too_hard_at_every_prefix():
    # the truth stays all wrong, and adv_std says the groups score alike: the format was all they had
    # to teach -- the data's question, not a reward gamed; the verdict must not flip with the prefix
    run = _run(np.full(N, 0.04), adv_std=0.4)
    seq = [
        (d.verdict, d.findings[0].id if d.findings else None)
        for d in map(diagnose, map(run.upto, (80, 120, 160, 200, 299)))
    ]
    assert seq == [("dead", "data_too_hard")] * len(seq), seq
    # the same run with groups that still differ (healthy adv_std): the climb is the reward's
    d = diagnose(_run(np.full(N, 0.04), adv_std=1.0))
    assert (d.verdict, d.findings[0].id) == ("cheating", "reward_hacking")


def test_a_truth_pausing_while_the_format_it_rose_with_is_still_learned_waits_its_fair_chance():
    # correctness and format rise together; correctness pauses at step 50 while the format, which
    # carries the reward's climb, goes on rising to step 110.  Read at step 80 the reward parts from
    # the truth, but the term is still being learned: too soon to call it cheating.
    s = np.arange(N)
    fmt = 0.1 + 0.85 * np.clip(s / 110.0, 0, 1)
    pause = 0.2 + 0.4 * np.clip(s / 50.0, 0, 1)  # 0.2 -> 0.6 by step 50, then holds
    assert diagnose(_run(pause, fmt=fmt).upto(80)).verdict == "learning"
    # given its chance (past fair_steps from the term's start) a truth that stayed paused beside it
    # is judged: the reward climbed on format alone
    late = 0.1 + 0.85 * np.clip((s - 40) / 200.0, 0, 1)
    d = diagnose(_run(pause, fmt=late))
    assert (d.verdict, d.findings[0].id) == ("cheating", "reward_hacking"), d


def test_a_format_term_that_does_not_carry_the_climb_gives_no_fair_chance():
    # the verifier term carries the reward's climb, a format term creeps up beside it, and the
    # accuracy measured on the same answers stays flat: the reward is gamed through the verifier,
    # and a format term rising a material share of its own range, but a small part of the reward's
    # climb, does not buy it a wait
    rng = np.random.default_rng(3)
    s = np.arange(N)
    verifier = 0.2 + 0.9 * np.clip(s / 60.0, 0, 1) + rng.normal(0, 0.02, N)
    fmt = 0.25 + 0.08 * np.clip(s / 100.0, 0, 1) + rng.normal(0, 0.005, N)
    z = rng.standard_normal((N, 3))
    run = dc.jsonl_run(
        s,
        {
            "reward": verifier + fmt,
            "rewards/verifier/mean": verifier,
            "rewards/format/mean": fmt,
            "acc": 0.15 + rng.normal(0, 0.02, N),
            "entropy": 0.8 - 0.1 * s / N + 0.01 * z[:, 0],
            "kl": 0.002 + 0.02 * s / N,
            "completions/mean_length": 300 + 5 * z[:, 1],
            "grad_norm": 0.4 + 0.02 * z[:, 2],
        },
    )
    for cut in (80, 150, 299):
        d = diagnose(run.upto(cut))
        assert (d.verdict, d.findings[0].id) == ("cheating", "reward_hacking"), (cut, d)
