"""Two correctness terms of one reward: a strict one behind a format gate, a lenient one beside it.

Unsloth's GRPO notebooks sum four reward functions: two format terms, `check_answer` (the exact
answer inside an exact `<SOLUTION>` block: 0 on every answer the block's format turns away) and
`check_numbers` (the number after the solution tag, compared as a float).  Early on the model gets
numbers right long before it writes the exact block: the strict term sits at 0 while the lenient one
climbs; later the format is learned and the strict term climbs while the lenient one has saturated.
Runs are written as TRL-style JSONL and read back; the diagnosis is read at growing prefixes.
"""

from __future__ import annotations

import diag_curves as dc
import numpy as np

from rlvitals.diagnose import diagnose
from rlvitals.ingest.components import classify

N = 400
CUTS = (50, 100, 150, 200, 250, 300, 350, 399)


def _ramp(at: float, width: float) -> np.ndarray:
    return 1 / (1 + np.exp(-(np.arange(N) - at) / width))


def _run(numbers_right: np.ndarray, seed: int = 0, batch: int = 16, strict: bool = True):
    """numbers_right: the share of tagged answers whose number is right, step by step.  Each step
    scores `batch` answers: a term's mean is exactly 0 when none of them passed its gate."""
    rng = np.random.default_rng(seed)
    tagged = rng.binomial(batch, 0.3 + 0.65 * _ramp(40, 12))  # the solution tag appears early
    exact = rng.binomial(tagged, _ramp(230, 15))  # the exact block is learned late
    right = rng.binomial(tagged, numbers_right)
    right_exact = rng.binomial(exact, numbers_right)
    approx = (1.0 * tagged - 1.0 * (batch - tagged)) / batch
    fmt = 3.0 * exact / batch
    numbers = (1.5 * right - 0.5 * (tagged - right)) / batch
    answer = (3.0 * right_exact - 1.5 * (exact - right_exact)) / batch
    reward = approx + fmt + numbers + (answer if strict else 0.0)
    i = np.arange(N)
    z = rng.standard_normal((N, 2))  # per step: KL, length
    cols = {
        "reward": reward,
        "rewards/match_format_exactly/mean": fmt,
        "rewards/match_format_approximately/mean": approx,
        **({"rewards/check_answer/mean": answer} if strict else {}),
        "rewards/check_numbers/mean": numbers,
        "kl": 0.0005 + 0.1 * i / N + np.abs(0.005 * z[:, 0]),
        "completions/mean_length": 210 + 8 * z[:, 1],
    }
    return dc.jsonl_run(i + 1, cols)


def _seq(run):
    return [(d.verdict, d.findings[0].id if d.findings else None) for d in map(diagnose, map(run.upto, CUTS))]


def test_check_numbers_is_a_correctness_term_by_its_name():
    assert classify("check_numbers") == "correctness"
    assert classify("check_number") == "correctness"
    assert classify("check_answer") == "correctness"
    assert classify("match_format_exactly") == "format"


def test_the_goal_is_the_term_that_scores_not_the_one_behind_the_gate():
    run = _run(0.2 + 0.5 * _ramp(60, 20))
    goal = diagnose(run.upto(150)).run["goal"]
    # the strict term is 0 on nearly every step so far: the lenient one reads the answers
    assert goal["metric"] == "component:check_numbers", goal
    assert goal["improved"]


def test_numbers_right_before_the_format_is_learning_at_every_prefix():
    # the numbers get right from step 30 on, the exact block comes at step 230 and the strict term
    # climbs with it: never "the data is too hard" (the strict term at 0), never a cheat (the reward
    # climbing through the format after the numbers saturated)
    seq = _seq(_run(0.2 + 0.5 * _ramp(60, 20)))
    assert [v for v, _ in seq] == ["learning"] * len(CUTS), seq


def test_a_format_climb_over_numbers_that_fell_is_still_cheating():
    # the numbers got right, then fell back while the format terms kept paying: the reward rose on a
    # worse model -- the format did not come after a truth that kept its level
    right = 0.2 + 0.5 * _ramp(60, 20) - 0.6 * _ramp(220, 15)
    d = diagnose(_run(np.clip(right, 0.0, 1.0)))
    assert d.verdict != "learning", [(f.id, f.severity) for f in d.findings]


def test_numbers_never_right_is_not_learning():
    # the lenient term never moves: the format terms carry the whole reward
    d = diagnose(_run(np.full(N, 0.05)))
    assert d.verdict != "learning", [(f.id, f.severity) for f in d.findings]


def _compilable(seed: int, n: int = 45):
    """A Tinker-style log: the reward is a 'compiles' term climbing 0.21 -> 0.41 from step 4 on, the
    sandbox correctness term logged beside it stays near 0.001 -- a proxy rewarded, the task not learned."""
    r = np.random.default_rng(seed)
    s = np.arange(0, n)
    reward = 0.21 + 0.2 * np.clip((s - 4) / 30, 0, 1) + r.normal(0, 0.02, n)
    truth = np.abs(0.001 + 0.00005 * s + r.normal(0, 0.0015, n))
    ent = 2.3 - 0.02 * s + r.normal(0, 0.03, n)
    cols = {"reward/mean": reward, "reward/correctness_f": truth, "reward/compilable_g": reward, "policy/entropy": ent}
    return dc.jsonl_run(s, cols)


def test_a_parting_read_twice_is_not_lost_to_a_late_hinge_on_a_short_log():
    # on a few dozen points the hinge fitted to the reward-minus-truth gap can land late by chance,
    # leaving too few points after it; the reward's own rise is then where the parting began
    for seed in range(8):
        run = _compilable(seed)
        seq = [diagnose(run.upto(step)).verdict for step in range(12, 45, 2)]
        first = next((i for i in range(len(seq) - 1) if seq[i] == seq[i + 1] == "cheating"), None)
        assert first is not None and "learning" not in seq[first:], (seed, seq)


def _penalty_beside_the_answer(seed: int = 0, n: int = 200):
    """Two terms named for the answer: `answer_match` pays 1 for a right answer (0 on a step none of
    a small batch got right, so early on it is 0 on many steps), `premature_answer` takes 0.2 from
    an answer given before the reasoning (at or below 0 on every step, and below 0 on nearly all)."""
    r = np.random.default_rng(seed)
    i = np.arange(n)
    right = r.binomial(8, 0.05 + 0.6 * i / n) / 8
    early = -0.2 * r.binomial(8, 0.5, n) / 8
    cols = {
        "reward": right + early,
        "rewards/answer_match/mean": right,
        "rewards/premature_answer/mean": early,
        "kl": 0.001 + 0.02 * i / n + np.abs(0.002 * r.standard_normal(n)),
        "completions/mean_length": 300 + 10 * r.standard_normal(n),
    }
    return dc.jsonl_run(i + 1, cols)


def test_a_penalty_named_for_the_answer_is_not_the_goal():
    # both names say "answer", and the penalty is non-zero on more steps than the right answers early
    # on; but it never pays anything: the term that pays for a right answer is the goal
    run = _penalty_beside_the_answer()
    assert classify("premature_answer") == "correctness"  # by its name alone it would qualify
    assert run.components["premature_answer"].scored_share > run.components["answer_match"].scored_share
    d = diagnose(run)
    assert d.run["goal"]["metric"] == "component:answer_match", d.run["goal"]
    assert d.verdict == "learning", [(f.id, f.severity) for f in d.findings]
    assert run.meta["goal"]["metric"] == "component:answer_match"
