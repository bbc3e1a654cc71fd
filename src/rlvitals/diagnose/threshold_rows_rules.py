"""The threshold table's last rows: the rules' own numbers (ours), each once however many rules
read it."""

from __future__ import annotations

from .threshold_core import OURS_WORLDS, Threshold, row

__all__ = ["RULES_ROWS"]

RULES_ROWS: tuple[tuple[str, Threshold], ...] = (
    # -- the rules' own numbers (ours): each once, however many rules read it --------------------------
    row(
        "onset_share",
        0.15,
        "a ramp (a reward or its term, the accuracy, the clip fraction, the grad norm at a too-high "
        "learning rate) is dated where it made this share of its way from its first tenth's level to its last (ctx.crossing)",
        OURS_WORLDS + "; context.crossing's default",
    ),
    row(
        "rise_start",
        0.1,
        "a truncation rate or a grad norm climbing to a failure is dated where it made this share of its "
        "way up: the earliest the cap (or the precision) began to bite",
        OURS_WORLDS,
    ),
    row(
        "judge_from_max",
        0.8,
        "a score's gain since an onset is judged from at most this share of the run: the last "
        "fifth always stays to judge it on",
        OURS_WORLDS,
    ),
    row(
        "bend_rise",
        1.1,
        "since a bend, a length (length_hacking) or an entropy (entropy_explosion) must have grown at "
        "least this many times its level at the bend (besides 2 x goal_z standard errors): a tenth, not float dust",
        OURS_WORLDS,
    ),
    row(
        "len_grown",
        1.2,
        "answers at least this many times their start length have grown over the run: below it no "
        "on-the-way length test fires (a rebound after a collapse, a wobble after shrinking) and a length term is "
        "not known to pay for length rather than brevity",
        OURS_WORLDS,
    ),
    row(
        "len_bend_accel",
        1.5,
        "length_hacking on the way up: the length's log-growth rate after its bend at least this "
        "many times its rate before (the growth sped up; a steady climb beside the accuracy is the lesson's "
        "pair C1)",
        OURS_WORLDS + "; 1.0 let answers growing with a rising accuracy alarm before the RL loop's truncation "
        "and learning-rate runs began",
    ),
    row(
        "len_truth_gain",
        0.05,
        "a truth gaining this share of its level from where the answers began to grow (or still "
        "rising) is more right with them: the lesson's pair C1 (写详细带来了更高正确率), not length hacking",
        OURS_WORLDS,
    ),
    row(
        "kl_breaking",
        2.0,
        "a KL whose last stretch is this many times its own line before (beyond len_accel_z "
        "standard errors) is breaking away: growing answers are then the policy's break-up, not a length exploit",
        OURS_WORLDS + "; PTT (3x baseline unstable): two thirds of it",
    ),
    row(
        "trunc_rise_exploding",
        0.4,
        "with the answers exploding (len_explode), a truncation rate rising by this share of "
        "trunc_rise already counts as running into the cap",
        OURS_WORLDS,
    ),
    row(
        "hack_truth_share",
        0.5,
        "reward_hacking: since the parting the truth gained less than this share of what the "
        "reward gained (each in its own 10-90% spread): flat or falling, not rising along",
        OURS_WORLDS,
    ),
    row(
        "hack_truth_z",
        0.5,
        "or, read in each curve's own noise, the truth's gain since the parting within this many "
        "standard errors while the reward's is beyond goal_z",
        OURS_WORLDS,
    ),
    row(
        "length_term_carries",
        0.5,
        "a logged length term whose excess is at least this share of the reward's excess "
        "carries the parting: length_hacking's question, not reward_hacking's",
        OURS_WORLDS,
    ),
    row(
        "soft_term_carries",
        0.5,
        "a format / length / style term that gained at least this share of what the reward gained "
        "over its rise carries the reward's climb (a truth pausing beside it waits its fair chance)",
        OURS_WORLDS,
    ),
    row(
        "len_at_max",
        0.98,
        "a length within this share of its maximum is at the cap (truncation_starvation's pinned "
        "steps when no truncation rate is logged)",
        OURS_WORLDS,
    ),
    row(
        "pinned_from",
        0.7,
        "answers that grew into the cap are judged pinned over the run after this share of it "
        "(the late part, where the reward died with them)",
        OURS_WORLDS,
    ),
    row(
        "trunc_early_level",
        0.5,
        "truncation_starvation on the way in: the last stretch's truncation rate past this share of trunc_high",
        OURS_WORLDS,
    ),
    row(
        "score_drop",
        0.1,
        "a score has given ground when it lost at least this share of its own level (and goal_z "
        "standard errors): a reward starved by the cap, a goal falling under an entropy run-up",
        OURS_WORLDS,
    ),
    row(
        "reward_died",
        0.1,
        "a reward ending at or below this share of its peak died (with the answers grown into the "
        "cap and no truncation rate logged)",
        OURS_WORLDS,
    ),
    row(
        "entropy_onset",
        0.25,
        "an entropy collapse is dated where the entropy made this share of its way from its first "
        "tenth's level to its last",
        OURS_WORLDS,
    ),
    row(
        "entropy_steady_first",
        0.15,
        "an early collapse warning needs a steady stretch first: the fall began after at least this share of the run",
        OURS_WORLDS,
    ),
    row(
        "entropy_still_falling",
        0.85,
        "the entropy's last tenth at or below this share of the tenth before it: the fall "
        "is still under way (a low entropy that settled -- a converged run -- is heading nowhere)",
        OURS_WORLDS,
    ),
    row(
        "entropy_late_fall",
        0.3,
        "an entropy gone to 0 after this share of the run is a late, abrupt fall: a warning even "
        "while the goal still improves",
        OURS_WORLDS,
    ),
    row(
        "explode_recent",
        0.1,
        "one point at gnorm_blowup x its median counts as an explosion when it is within the last "
        "this share of the run (a prefix catching the explosion as it starts); earlier, three are needed",
        OURS_WORLDS,
    ),
    row(
        "proxy_diff_level",
        0.5,
        "a sync proxy logged below this at its start is a difference (probs_diff_mean: healthy "
        "0), at or above it a ratio (healthy 1): halfway between the two",
        "arithmetic (between 0 and 1)",
    ),
    row(
        "ratio_leaving",
        0.5,
        "sync_failure on the way out: the ratio at least this share of ratio_tol from 1 now",
        OURS_WORLDS,
    ),
    row(
        "ratio_leaving_drift",
        0.25,
        "... or this share of it once the ratio's shape is already a monotonic drift",
        OURS_WORLDS,
    ),
    row(
        "mismatch_start",
        0.2,
        "a mismatch proxy must end at twice its start, the start floored at this share of "
        "mismatch_high (a proxy starting at 0 is no doubling of nothing)",
        OURS_WORLDS,
    ),
    row(
        "adv_std_fall",
        0.05,
        "data_too_easy: adv_std must have fallen at least this much over the run (unless the "
        "groups were uniform from the start)",
        OURS_WORLDS,
    ),
    row(
        "mostly_right",
        0.5,
        "a score at or above this: most answers right (groups uniform because all-right, the "
        "lesson's pair B1); below it and not rising, easy data cannot be the cause",
        OURS_WORLDS,
    ),
    row(
        "adv_none",
        0.1,
        "adv_std at or below this: (nearly) no group has any reward spread -- every answer of a group "
        "scored alike, whether it finished or was cut at the cap",
        OURS_WORLDS + "; sqrt(1 - 0.99): 99 groups in 100 uniform",
    ),
    row(
        "adv_dust",
        1e-6,
        "an adv_std at or below this at every step is the round-off of a zero spread (the std of equal "
        "float32 numbers is 0 or about 1e-7 of them): no sample was preferred to another",
        "float32 machine epsilon (1.19e-7)",
    ),
    row(
        "adv_std_margin",
        0.2,
        "data_too_hard: adv_std must end at least this far below adv_std_healthy (most groups without spread)",
        OURS_WORLDS + "; the lesson's adv_std table (0.5-0.8 watch)",
    ),
    row(
        "still_move",
        0.01,
        "a policy metric (entropy, KL) moving less than this share of its level -- start, end and peak "
        "-- did not move (stalled)",
        OURS_WORLDS,
    ),
    row(
        "kl_dust",
        0.01,
        "a KL below this share of kl_floor at every point never left numerical dust: the weights do not move",
        "ours; dust is below 1e-4 (a hundredth of kl_floor), which real LoRA runs pass within three logged "
        "points (the real logs)",
    ),
    row(
        "stall_drift_z",
        2.5,
        "with the policy demonstrably still, a score whose fitted change stays below this many of "
        "its standard errors (and does not rise) is quiet",
        OURS_WORLDS + "; between 2 and goal_z",
    ),
    row(
        "kl_onset_share",
        0.2,
        "a KL blow-up is dated where log(kl + kl_floor) made this share of its whole rise (a "
        "fifth; kl_jump_share re-dates a jump)",
        OURS_WORLDS,
    ),
    row(
        "plateau_gain",
        0.1,
        "a plateau needs a goal that gained (ctx.gained) at least this share of its level first: "
        "learned, then flattened",
        OURS_WORLDS,
    ),
)
