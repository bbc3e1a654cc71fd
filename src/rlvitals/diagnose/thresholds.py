"""Every number the diagnosis decides on, in one table, each with its meaning and its source.

    from rlvitals.diagnose.thresholds import get, using
    get("clip_high")                      # 0.2: the value in force
    with using({"goal_z": 2.5}):          # a temporary override (the calibration harness uses it)
        diagnose(run)

Sources come first from the lesson's own tables (adv_std bands, clip > 20%, ratio = 1), then from
papers and framework defaults (shared/reference/rules-of-thumb.md), and last "ours": numbers we
chose, with the worlds they were checked on.  A threshold with a `grid` is one the calibration
harness may tune (chosen on some worlds, scored on the others); a threshold without one is fixed
by its source and never tuned.  Rules read every value through `get()` at call time, so `using`
reaches all of them.  docs/findings.md is generated from this table (`python -m
rlvitals.diagnose.docs`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["TABLE", "Threshold", "calibrated", "get", "using"]

LESSON = "the lesson (lesson-read-your-first-curves)"
OURS_SIM = "ours, checked on the simulator and the six real logs"
OURS_WORLDS = (
    "ours, scored on every world of bench_worlds (both simulators, the peers' files, the real corpus) "
    "and on their growing prefixes (bench_stability)"
)


@dataclass(frozen=True)
class Threshold:
    name: str
    value: float
    meaning: str
    source: str
    grid: tuple[float, ...] = ()  # candidate values for calibration (empty = fixed from a source)


def _t(name: str, value: float, meaning: str, source: str, grid: tuple[float, ...] = ()) -> tuple[str, Threshold]:
    return name, Threshold(name, value, meaning, source, grid)


TABLE: dict[str, Threshold] = dict(
    [
        # -- the lesson's tables ---------------------------------------------------------------------
        _t(
            "adv_std_healthy",
            0.8,
            "adv_std at or above this is the healthy band (0.8-1.2): silent",
            LESSON + ", adv_std table",
        ),
        _t(
            "adv_std_watch",
            0.5,
            "adv_std in [0.5, 0.8): normal late in a run, watch (info)",
            LESSON + ", adv_std table",
        ),
        _t(
            "adv_std_degraded",
            0.3,
            "adv_std below this: many groups degenerate (used as 'groups uniform')",
            LESSON + ", adv_std table (0.3-0.5: change data / dynamic sampling)",
        ),
        _t(
            "adv_std_stop",
            0.2,
            "adv_std below this: training has effectively stopped (critical)",
            LESSON + ", adv_std table (< 0.2)",
        ),
        _t(
            "clip_high",
            0.20,
            "clip fraction above this: single updates too big",
            LESSON + " (clip_frac > 20%); PTT clip_fraction_high",
        ),
        _t(
            "ratio_tol",
            0.02,
            "|ratio_mean - 1| below this is 'steady' (the lesson: constant ≈ 1.0)",
            LESSON + " (ratio_mean 恒 ≈ 1.0); TRL #3120 (ratio ≡ 1 with one update per batch)",
        ),
        _t(
            "len_growth_healthy",
            2.0,
            "length may grow this much with accuracy (the lesson's healthy run: 78 → 152, x1.95)",
            LESSON + ", healthy table",
        ),
        # -- papers and framework defaults ------------------------------------------------------------
        _t(
            "ratio_far",
            0.1,
            "|ratio_mean - 1| this large is a drift whatever its shape",
            "TRL docs ppo_trainer (ratio 2.0 or 0.1 = too drastic); ours",
        ),
        _t(
            "ratio_tail",
            0.05,
            "sync_failure on the way out: the last stretch of ratio_mean (this share of the step span, at "
            "least 10 points: Kendall's tau of fewer is too coarse) whose distance from 1 must grow step by step (ratio_drift_tau, no step carrying half of it)",
            "the lesson (ratio 单调偏离 = 权重没同步); ours: the RL-loop simulator's stale sampler drifts 1e-4 to 3e-4 a step, "
            "so a twentieth of a 200-step run is 1-3e-3 of drift",
        ),
        _t(
            "ratio_drift_tau",
            0.6,
            "Kendall's tau of that stretch's distances from 1 at or above this: a steady departure, "
            "not a jump or a wobble",
            "ours; noise alone reaches 0.6 over 10 points in under 1% of windows (tau's null sd 0.25 at n = 10)",
        ),
        _t(
            "ratio_jump_share",
            0.5,
            "no single step may carry more than this share of that stretch's departure from 1: "
            "a ratio knocked off 1 at once (a learning rate raised, an entropy bonus switched on) is no drift",
            "ours; the RL-loop simulator's raised lr puts 75-100% of the move in one step, its stale sampler's largest "
            "step carries 20-45% of a 10-point stretch's drift",
        ),
        _t(
            "ratio_late_share",
            0.25,
            "and the stretch's later half must still carry this share of the departure (a steady "
            "drift carries about half; a jump two or three steps long that then holds carries ~0)",
            "ours; half of the linear drift's expected share",
        ),
        _t(
            "ratio_drift_min",
            0.002,
            "and the ratio at least this far from 1 now (a tenth of ratio_tol): a drift of "
            "numerical dust on a smoothed log is no departure",
            "ours; a tenth of ratio_tol",
        ),
        _t(
            "mismatch_high",
            0.01,
            "a train/inference probability-difference proxy above this is a sync/precision problem",
            "verl docs/faq (probs_diff_mean < 0.005 normal, > 0.01 problem)",
        ),
        _t(
            "clip_tail",
            0.05,
            "clip fraction held above clip_high over the last this share of the step span (at least 6 "
            "points) counts as held, as the last 30% of the points does, each beyond goal_z standard errors of its median",
            "ours; an lr raised mid-run lifts clip_frac past 20% within a few steps (both simulators); a 32-answer "
            "batch's clip_frac flickers by +-0.07 a step",
        ),
        _t(
            "clip_normal",
            0.10,
            "clip fraction below this is normal",
            "classic PPO ~10% late (ImChong PR #502); PTT 'typically < 0.2'",
        ),
        _t(
            "trunc_high",
            0.30,
            "truncation rate above this: too many answers cut at the cap",
            "PTT response_truncation (> 0.3); verl #2738",
        ),
        _t("kl_high", 0.30, "KL to the reference above this is high", "PTT heuristics.py (kl > 0.3 high)"),
        _t(
            "kl_floor",
            0.01,
            "KL this small is noise-level (added before ratios so 0.002 → 0.01 is no surge)",
            "Spinning Up target_kl 0.01",
        ),
        _t("gnorm_rise", 3.0, "grad norm late/early above this: unstable", "PTT (instability when > 3x baseline)"),
        _t(
            "update_growth",
            2.0,
            "clip fraction or grad norm on its last stretch (clip_tail) this many times above its own line "
            "before (beyond len_accel_z standard errors): the step size is growing now",
            "ours; PTT (3x baseline unstable): half of it, on the way there",
        ),
        _t(
            "gnorm_explode",
            10.0,
            "a grad norm's last stretch this many times above its own line is exploding (with no clip "
            "fraction to tell a too-big step apart; with one, gnorm_rise while the clip fraction holds its line)",
            "PTT (explosion at 10x baseline); verl FAQ (a rising grad_norm = precision)",
        ),
        _t(
            "gnorm_spike",
            30.0,
            "a grad-norm point this many times its ordinary level is a gradient spike (counted by gnorm_spikes)",
            "ours; between PTT's 10x explosion and verl PR #2328's orders of magnitude; the simulated healthy run's odd "
            "noisy-batch spikes reach 10-35x, at most one of them past 30x in 1000 steps",
        ),
        _t(
            "gnorm_spikes",
            5.0,
            "this many gradient spikes (gnorm_spike) in a run: a gradient pathology, not the odd noisy batch",
            "ours; rl-doctor's grad_spikes scenario injects 7, rlprobe's grad_pathology ~25; the simulated healthy run has <= 1",
        ),
        _t(
            "gnorm_blowup",
            100.0,
            "a loss / grad norm this many times its median is an explosion",
            "verl PR #2328 (spikes of orders of magnitude); PTT explosion at 10x",
        ),
        _t(
            "spike_z",
            5.0,
            "a point this many robust sigmas (MAD) from its neighbours is an outlier",
            "Hampel filter, |z| > 3-5",
        ),
        _t(
            "entropy_drop",
            0.80,
            "entropy ending below (1 - this) of its start is heading to 0",
            "Cui et al. arXiv 2505.22617 (a 73% early fall is normal, so more than that)",
            (0.7, 0.75, 0.8, 0.85, 0.9),
        ),
        _t(
            "entropy_half",
            0.5,
            "entropy below (1 - this) of its start after a steady stretch, goal not improving: an early collapse warning",
            "ours; the simulator's collapses reach it 3-8% of the run after onset",
            (0.4, 0.5, 0.6),
        ),
        _t(
            "entropy_zero",
            0.95,
            "entropy below (1 - this) of its start is at 0: the goal is then judged over the second half",
            "ours; the verl baseline keeps 13% of its start while its score climbs",
        ),
        _t(
            "entropy_bend",
            0.05,
            "entropy's last stretch (clip_tail) this much (relative) above its own line before, beyond "
            "len_accel_z standard errors: running up now (a bonus or a temperature flattening the policy)",
            "ours; a healthy entropy drifts down by ~1% a tenth of the run with ~1% step noise; the lesson: entropy 上升 = 可能跑飞",
        ),
        _t(
            "entropy_plunge",
            0.25,
            "entropy's last stretch (clip_tail) this much (relative) below its own line before, beyond "
            "len_accel_z standard errors: falling fast now (the lesson's 陡降, a collapse under way)",
            "ours; a healthy entropy falls ~1% a tenth of the run (the lesson: 1.842 -> 1.498 over 200 steps); "
            "Cui et al. arXiv 2505.22617's early fall is from the first step, so the line before carries it",
        ),
        _t(
            "entropy_ok",
            1.0,
            "an entropy rising but still below this is no explosion",
            "rllm #116 (maintainer: ok to increase as long as < 1)",
        ),
        _t(
            "entropy_rise",
            1.6,
            "entropy ending this many times its start is running away",
            "ours; an entropy bonus doubles a low entropy healthily (verl LoRA 0.13 → 0.26); rllm #116 (< 1 is ok)",
        ),
        _t(
            "low_entropy_loss",
            0.5,
            "an entropy run-away below entropy_ok is judged by the score alone: it must have given back at "
            "least this share of its gain (start to peak), not merely dipped from its best",
            "ours: the real corpus -- a reasoning model's run-away takes its score back to 0, while an "
            "entropy bonus's noisy plateau (verl LoRA, entropy x2 below 0.3) keeps most of its gain",
        ),
        # -- ours -------------------------------------------------------------------------------------
        _t(
            "goal_z",
            3.0,
            "a change of the goal larger than this many noise standard errors is real",
            "ours (3 sigma); " + OURS_SIM,
            (2.0, 2.5, 3.0, 4.0),
        ),
        _t("rate_move", 0.02, "a rate (acc, trunc) must also move this many points to count as moving", OURS_SIM),
        _t(
            "goal_material",
            0.05,
            "a goal's change is material when it is at least this share of the goal's own range (1 for "
            "a rate in [0, 1]: 5 points of accuracy; else the span of its middle 90%): a finding after whose onset the goal "
            "gained this much and kept it (or sat at its ceiling and lost less) did not hurt the goal and does not set the verdict",
            "ours; the lesson's healthy run gains 36 points of acc in 200 steps, its four broken sets none; chosen on every "
            "world (bench_worlds --calibrate, the real corpus per repository held out)",
            (0.03, 0.05, 0.1),
        ),
        _t(
            "soft_level",
            0.1,
            "a format / length / style term of the reward has left its starting level once it moved this "
            "share of its rise, and reached its knee once it is within this share of its final level",
            "ours: a format term learned in the first tens of steps, then flat within a few points, on the peers' scenario "
            "files and the real runs with reward components",
        ),
        _t(
            "fair_steps",
            100.0,
            "steps a run is given, from when a format term began to be learned, to show its truth "
            "moving: past them a truth still flat beside a reward carried by format is judged, however slowly the format came",
            "ours: the peers' healthy runs start on correctness 80-100 steps in, after a format learned in 40; the lesson's "
            "format-only rise is read as cheating over a 200-step run",
        ),
        _t(
            "hack_share_follow",
            0.5,
            "a goal that gained at least this share of what the reward gained (each in its own range, "
            "since the parting) followed the reward: the parting did not hurt it (the lesson: acc 与 reward 同向 = 真能力)",
            "ours; the same half as hack_share and eval_follow's quarter (an eval lags its training accuracy)",
            (0.33, 0.5, 0.67),
        ),
        _t(
            "eval_follow",
            0.25,
            "an eval accuracy gaining less than this share of the training accuracy's gain does not follow it",
            "ours; both are accuracies on one scale (the peers' length-hacking file: train +0.67, eval +0.05)",
        ),
        _t("ceiling", 0.9, "an accuracy at or above this is at its ceiling: it cannot follow a rising reward", "ours"),
        _t("near_zero", 0.10, "an accuracy below this is 'all wrong'", OURS_SIM),
        _t(
            "min_points",
            24.0,
            "points a metric needs before 'it does not move' can be said",
            OURS_SIM,
            (12.0, 16.0, 24.0, 32.0),
        ),
        _t(
            "sparse_points",
            10.0,
            "a log with a point every few steps (TRL's logging_steps, each point its window's mean) has "
            "enough data when its points cover the steps a rule asks for (min_points, stall_points, ...: each point counts "
            "for the steps it stands for) and number at least this many",
            "the shape classifier's own floor (shapes.MIN_POINTS: fewer points are 'too few to say'); a window mean "
            "carries its window's evidence at a smaller noise, which every standard error here already uses",
        ),
        _t(
            "const_points",
            4.0,
            "points enough to say a goal logged at the very same value at every point does not improve "
            "(no noise to wait out)",
            "ours: the TRL zero-reward log (reward 0.0 at all 50 steps) read every 10 steps",
        ),
        _t(
            "const_span",
            30.0,
            "steps a constant goal must cover before it is 'not learning' (a run's first few steps may "
            "all score 0 before anything is learned)",
            "ours",
        ),
        _t(
            "stall_points",
            20.0,
            "points enough to call a stall when the policy (entropy, KL) is demonstrably still: its fitted "
            "change, two standard errors included, under still_move of its level",
            OURS_SIM,
        ),
        _t(
            "stall_points_noisy",
            30.0,
            "points enough to call a stall when the policy shows no move only within its own noise (absence "
            "of evidence, not evidence of absence)",
            "ours: every world read at 8 growing prefixes (bench_stability) -- at 20 points real runs whose "
            "noisy entropy or KL showed no move yet were called stalls and moved later; 30 keeps every real stall",
        ),
        _t(
            "stall_dust_points",
            8.0,
            "points enough for an early stall warning when KL never left dust (< kl_floor / 100) "
            "and entropy moved < 1%",
            "ours; real LoRA runs pass 1e-4 by their 3rd logged point (gemma, mistral fixtures)",
        ),
        _t(
            "kl_surge",
            20.0,
            "a rise of (kl + kl_floor) this large within a fifth of the run is a blow-up",
            "ours; simulated blow-ups 58-370x, a too-high LR < 10x",
            (10.0, 20.0, 40.0),
        ),
        _t(
            "kl_fast",
            3.0,
            "KL's last tenth this many times the tenth before (+ kl_floor): a run-away on its way (warning)",
            "ours; a healthy KL grows ~1.1-2x per tenth of a prefix",
        ),
        _t("kl_danger", 0.5, "a KL this large has left the reference whatever its speed", "ours; PTT kl > 0.3 high"),
        _t(
            "kl_jump_share",
            0.5,
            "kl_blowup's onset: a KL whose largest kl_jump_steps window carries this share of its whole log rise "
            "jumped, and began there (not where a slow healthy climb made a fifth of the rise)",
            "ours (most of the rise in one jump): RL-loop blow-ups 0.55-0.65, the first simulator's ramps 0.19-0.29",
        ),
        _t(
            "kl_abrupt",
            0.4,
            "share of the KL's peak gained within kl_jump_steps: at or above this the KL jumped "
            "(a blow-up's step); below it the KL climbed, and a climb in step with an entropy heading to 0 (or running up) "
            "is that entropy move's consequence, not a blow-up",
            "ours; RL-loop simulator: collapses' KL climbs 0.26-0.27, blow-ups' and explosions' jumps 0.83-0.95; "
            "an exponential run-away (tau = 10 steps) 0.45",
            (0.35, 0.4, 0.45),
        ),
        _t(
            "together",
            0.02,
            "two findings whose onsets are within this share of the run began together: neither is the "
            "other's cause (verdict.CHAINS), and a warning that began within it of a dead run's critical is no aftermath",
            "ours (the order rule of the lesson's KL/entropy pair: 谁先动谁是因; 2% = 4 steps of a 200-step run)",
        ),
        _t(
            "kl_rise_start",
            0.2,
            "the KL's rise is dated where log(kl + a thousandth of its peak) left its starting level "
            "for good, past this share of its way from its first tenth to its last; an entropy whose fall (entropy_fall_start) "
            "began within kl_jump_steps of it moved with it: the lesson's order rule for the pair",
            "the lesson (KL vs entropy: the one that began first is the cause); ours: RL-loop collapses' KL leaves its "
            "start 2-6 steps before the entropy moves, its blow-ups' KL leaves its start 50-90 steps before the entropy drops; the peers' blow-ups' entropy declines 17-230 steps before their KL rises",
        ),
        _t(
            "entropy_fall_start",
            0.1,
            "an entropy fall begins where the entropy made this share of its way from its first "
            "tenth's level to its last tenth's (kl_rise_start compares the two)",
            "ours; a tenth of the fall is past the block noise of a simulated or logged entropy",
        ),
        _t(
            "entropy_at_once",
            0.8,
            "share of the entropy's fall made within kl_jump_steps: at or above this the entropy "
            "dropped at once, in the same few steps as a KL jump (one update-scale event: a blow-up's); below it the "
            "entropy slid down and a KL rising with it follows the narrowing (entropy_led_kl)",
            "ours; RL-loop collapses' prefixes 0.41-0.70, its blow-ups 0.70-0.94, an abrupt synthetic surge 0.96",
        ),
        _t(
            "entropy_leap",
            0.6,
            "share of the entropy's rise made within kl_jump_steps: at or above this the "
            "entropy leapt (a policy flattening at once, dragging the KL along in the same steps)",
            "ours; RL-loop explosions 0.94-0.99, the simulator's KL blow-ups (entropy drifting up with the KL) 0.31-0.36",
            (0.5, 0.6, 0.7, 0.8),
        ),
        _t(
            "kl_jump_steps",
            9.0,
            "the window (in training steps, at least one block of a hundredth of the run) a KL jump or "
            "an entropy leap is measured over (kl_abrupt, entropy_leap): an update-scale event, whatever the run's length",
            "ours; RL-loop blow-ups jump x3-10 within ~10 steps (fixed: the calibration tunes kl_abrupt and entropy_leap "
            "measured over it, and keeps to at most 12 knobs)",
        ),
        _t(
            "entropy_rise_fail",
            1.3,
            "entropy ending this many times its start (above entropy_ok) while the goal gave ground "
            "from its peak is an explosion (entropy_rise alone needs no failing goal)",
            "ours; RL-loop explosions run 1.85 → 2.77 (x1.5, the uniform policy's ceiling) while acc falls 0.5 → 0.04",
            (1.2, 1.3, 1.4, 1.5),
        ),
        _t(
            "kl_sharpen",
            1.5,
            "a KL never more than this many times the entropy lost (nats) is what a sharpening policy "
            "costs, not a blow-up",
            "KL(pi||ref) <= H(ref) - H(pi) for pi = ref^b/Z, b >= 1 (derivation); x1.5 for the "
            "estimators' noise (ours, RL loop)",
        ),
        _t(
            "kl_flatten",
            1.0,
            "a KL gained never more than the entropy gained (nats), once the entropy rose by a tenth, is "
            "what a flattening policy costs (an entropy run-away's consequence), not a blow-up",
            "pi = ref^b/Z with b < 1 on Zipf-like references: KL(pi||ref) / (H(pi) - H(ref)) <= 0.73 (numerical check, "
            "b 0.4-0.95); RL-loop explosions 0.35-0.96 in their first 10 steps, sim blow-ups >= 1.24",
        ),
        _t("kl_min", 0.05, "below this a KL is not dangerous whatever its shape", "ours; PTT kl > 0.3 high"),
        _t(
            "kl_spike",
            10.0,
            "a one-step KL this many times its local level (and >= kl_high) is an outlier step",
            "ours",
        ),
        _t(
            "len_explode",
            2.5,
            "length growing this much is an explosion (without accuracy to judge by)",
            OURS_SIM,
            (2.0, 2.5, 3.0, 4.0),
        ),
        _t(
            "len_tail",
            0.05,
            "length_hacking on the way up: the last stretch of log-length tested against its line before, "
            "as a share of the step span (at least 6 points)",
            "ours; simulated padding bends the length within 3-8% of the run",
        ),
        _t(
            "len_accel",
            0.08,
            "that stretch's median length above the line's extrapolation, relative (0.08 = 8% longer than the trend)",
            "ours; the length's own step noise is 2-4% (a mean of hundreds of answers)",
            (0.05, 0.08, 0.12),
        ),
        _t(
            "len_accel_z",
            5.0,
            "and beyond this many standard errors (residual noise and the line's extrapolation error)",
            "ours (one-sided, beyond the 3-sigma goal_z: a healthy prefix must never warn)",
        ),
        _t("trunc_rise", 0.05, "truncation rising by this many points is rising", OURS_SIM),
        _t(
            "trunc_tail",
            0.05,
            "truncation_starvation on the way in: the last stretch of the trunc rate tested against its line before, "
            "as a share of the step span (at least 6 points; the z bar is len_accel_z)",
            "ours; the simulated cap bites within 3-8% of the run",
        ),
        _t(
            "trunc_jump",
            0.10,
            "that stretch's median trunc rate above the line's extrapolation, in points (with a level past trunc_high / 2)",
            "ours; twice trunc_rise",
        ),
        _t(
            "trunc_starve",
            0.5,
            "truncation above this while the goal does not gain: answers starved of reward",
            OURS_SIM,
        ),
        _t("len_pinned", 0.7, "share of steps at the length maximum that counts as pinned at the cap", OURS_SIM),
        _t(
            "noisy",
            0.5,
            "step-to-step noise this large next to the trend's range: the curve is noise-dominated",
            OURS_SIM,
            (0.3, 0.5, 0.8, 1.2),
        ),
        _t("noisy_rate", 0.08, "step-to-step noise of a rate (acc) this large in points: a small batch", OURS_SIM),
        _t("gnorm_high", 3.0, "an absolute grad norm above this (after clipping most runs log < 1-2)", OURS_SIM),
        _t("gnorm_jitter", 0.5, "grad-norm residual / level above this is jumpy", "ours; PTT std > 3x baseline"),
        _t(
            "gnorm_climb",
            5.0,
            "grad norm late/early above this on its own (no clip fraction) is too-big updates",
            "ours; PTT 3x unstable, 10x explosion",
        ),
        _t(
            "magnitude_floor",
            0.1,
            "a loss/grad norm median below this is floored before ratios (GRPO losses ~1e-5): "
            "an explosion must reach gnorm_blowup x this at least",
            "ours; an entropy-bonus loss moving 0 → -1.4 is no overflow (RL-loop simulator)",
        ),
        _t("kl_negative", -0.05, "KL below this on 3+ steps: the estimator itself broke", "ours (rookworld log)"),
        _t(
            "hack_gap",
            0.5,
            "after the parting the reward gains this many of its spreads more than the truth",
            OURS_SIM,
            (0.3, 0.5, 0.8),
        ),
        _t(
            "hack_tail",
            0.04,
            "reward_hacking on the way up: the last stretch tested against the reward-truth line before it, "
            "as a share of the step span (at least 6 points)",
            "ours; simulated hacks part within 3-8% of the run",
        ),
        _t(
            "hack_z",
            5.0,
            "that stretch's median excess reward beyond this many standard errors of the line's residual noise",
            "ours (one-sided, far beyond the 3-sigma goal_z: a healthy prefix must never warn)",
        ),
        _t(
            "hack_shift",
            0.2,
            "and beyond this share of the reward's 10-90% spread before the stretch (a size, not only a z)",
            "ours; 0.1 warned on a healthy_long prefix (a format term learned mid-run)",
            (0.15, 0.2, 0.3),
        ),
        _t(
            "hack_min_after",
            10,
            "reward points after a parting (twice this for a component to be 'flat'): fewer cannot show a trend one way and flatness the other",
            "ours (statistical floor)",
        ),
        _t(
            "truth_min_after",
            6,
            "points of the truth metric after a parting (a sparse eval has few); stretches.since needs 6",
            "ours (statistical floor)",
        ),
        _t(
            "track_corr",
            0.9,
            "the reward's step-to-step changes correlate with the accuracy's at least this much: the reward "
            "is the verifier's score (give or take a steady term), so its moves are the accuracy's",
            "ours; both simulators' rewards of correctness plus a steady format term correlate 1.0, "
            "a hacked or length-paid reward 0.8-0.86, a loophole-scored one < 0",
        ),
        _t(
            "hack_share",
            0.25,
            "a format/length/style term rising alone: the correctness term gains at most this share of it "
            "(and a flat truth beside a parting reward gains at most this share of the reward's)",
            "ours (the lesson: 涨的是真能力，不是格式分)",
            (0.15, 0.25, 0.4),
        ),
        _t("reward_climb", 0.15, "a reward gaining this fraction is climbing (vetoes 'data too hard')", OURS_SIM),
        _t("entropy_healthy", 0.3, "entropy ending above this share of its start is far from 0 (healthy)", OURS_SIM),
        _t("plateau_share", 0.25, "the flat part must cover this much of the run to be a plateau", OURS_SIM),
        _t(
            "plateau_settle",
            0.9,
            "a plateau's gains ran out where the goal first made this share of its rise to the level after the knee",
            "the 10-90% rise-time convention of control engineering",
        ),
        _t("plateau_slope", 0.2, "slope after the knee below this share of the slope before: flat", OURS_SIM),
        _t("len_shrink", 0.5, "answers ending below this share of their start length shrank", OURS_SIM),
        _t("diversity_low", 0.15, "sample diversity below this: near-identical answers", OURS_SIM),
        # -- the rules' own numbers (ours): each once, however many rules read it --------------------------
        _t(
            "onset_share",
            0.15,
            "a ramp (a reward or its term, the accuracy, the clip fraction, the grad norm at a too-high "
            "learning rate) is dated where it made this share of its way from its first tenth's level to its last (ctx.crossing)",
            OURS_WORLDS + "; context.crossing's default",
        ),
        _t(
            "rise_start",
            0.1,
            "a truncation rate or a grad norm climbing to a failure is dated where it made this share of its "
            "way up: the earliest the cap (or the precision) began to bite",
            OURS_WORLDS,
        ),
        _t(
            "judge_from_max",
            0.8,
            "a score's gain since an onset is judged from at most this share of the run: the last "
            "fifth always stays to judge it on",
            OURS_WORLDS,
        ),
        _t(
            "bend_rise",
            1.1,
            "since a bend, a length (length_hacking) or an entropy (entropy_explosion) must have grown at "
            "least this many times its level at the bend (besides 2 x goal_z standard errors): a tenth, not float dust",
            OURS_WORLDS,
        ),
        _t(
            "len_grown",
            1.2,
            "answers at least this many times their start length have grown over the run: below it no "
            "on-the-way length test fires (a rebound after a collapse, a wobble after shrinking) and a length term is "
            "not known to pay for length rather than brevity",
            OURS_WORLDS,
        ),
        _t(
            "len_bend_accel",
            1.5,
            "length_hacking on the way up: the length's log-growth rate after its bend at least this "
            "many times its rate before (the growth sped up; a steady climb beside the accuracy is the lesson's "
            "pair C1)",
            OURS_WORLDS + "; 1.0 let answers growing with a rising accuracy alarm before the RL loop's truncation "
            "and learning-rate runs began",
        ),
        _t(
            "len_truth_gain",
            0.05,
            "a truth gaining this share of its level from where the answers began to grow (or still "
            "rising) is more right with them: the lesson's pair C1 (写详细带来了更高正确率), not length hacking",
            OURS_WORLDS,
        ),
        _t(
            "kl_breaking",
            2.0,
            "a KL whose last stretch is this many times its own line before (beyond len_accel_z "
            "standard errors) is breaking away: growing answers are then the policy's break-up, not a length exploit",
            OURS_WORLDS + "; PTT (3x baseline unstable): two thirds of it",
        ),
        _t(
            "trunc_rise_exploding",
            0.4,
            "with the answers exploding (len_explode), a truncation rate rising by this share of "
            "trunc_rise already counts as running into the cap",
            OURS_WORLDS,
        ),
        _t(
            "hack_truth_share",
            0.5,
            "reward_hacking: since the parting the truth gained less than this share of what the "
            "reward gained (each in its own 10-90% spread): flat or falling, not rising along",
            OURS_WORLDS,
        ),
        _t(
            "hack_truth_z",
            0.5,
            "or, read in each curve's own noise, the truth's gain since the parting within this many "
            "standard errors while the reward's is beyond goal_z",
            OURS_WORLDS,
        ),
        _t(
            "length_term_carries",
            0.5,
            "a logged length term whose excess is at least this share of the reward's excess "
            "carries the parting: length_hacking's question, not reward_hacking's",
            OURS_WORLDS,
        ),
        _t(
            "len_at_max",
            0.98,
            "a length within this share of its maximum is at the cap (truncation_starvation's pinned "
            "steps when no truncation rate is logged)",
            OURS_WORLDS,
        ),
        _t(
            "pinned_from",
            0.7,
            "answers that grew into the cap are judged pinned over the run after this share of it "
            "(the late part, where the reward died with them)",
            OURS_WORLDS,
        ),
        _t(
            "trunc_early_level",
            0.5,
            "truncation_starvation on the way in: the last stretch's truncation rate past this share of trunc_high",
            OURS_WORLDS,
        ),
        _t(
            "score_drop",
            0.1,
            "a score has given ground when it lost at least this share of its own level (and goal_z "
            "standard errors): a reward starved by the cap, a goal falling under an entropy run-up",
            OURS_WORLDS,
        ),
        _t(
            "reward_died",
            0.1,
            "a reward ending at or below this share of its peak died (with the answers grown into the "
            "cap and no truncation rate logged)",
            OURS_WORLDS,
        ),
        _t(
            "entropy_onset",
            0.25,
            "an entropy collapse is dated where the entropy made this share of its way from its first "
            "tenth's level to its last",
            OURS_WORLDS,
        ),
        _t(
            "entropy_steady_first",
            0.15,
            "an early collapse warning needs a steady stretch first: the fall began after at "
            "least this share of the run",
            OURS_WORLDS,
        ),
        _t(
            "entropy_still_falling",
            0.85,
            "the entropy's last tenth at or below this share of the tenth before it: the fall "
            "is still under way (a low entropy that settled -- a converged run -- is heading nowhere)",
            OURS_WORLDS,
        ),
        _t(
            "entropy_late_fall",
            0.3,
            "an entropy gone to 0 after this share of the run is a late, abrupt fall: a warning even "
            "while the goal still improves",
            OURS_WORLDS,
        ),
        _t(
            "explode_recent",
            0.1,
            "one point at gnorm_blowup x its median counts as an explosion when it is within the last "
            "this share of the run (a prefix catching the explosion as it starts); earlier, three are needed",
            OURS_WORLDS,
        ),
        _t(
            "proxy_diff_level",
            0.5,
            "a sync proxy logged below this at its start is a difference (probs_diff_mean: healthy "
            "0), at or above it a ratio (healthy 1): halfway between the two",
            "arithmetic (between 0 and 1)",
        ),
        _t(
            "ratio_leaving",
            0.5,
            "sync_failure on the way out: the ratio at least this share of ratio_tol from 1 now",
            OURS_WORLDS,
        ),
        _t(
            "ratio_leaving_drift",
            0.25,
            "... or this share of it once the ratio's shape is already a monotonic drift",
            OURS_WORLDS,
        ),
        _t(
            "mismatch_start",
            0.2,
            "a mismatch proxy must end at twice its start, the start floored at this share of "
            "mismatch_high (a proxy starting at 0 is no doubling of nothing)",
            OURS_WORLDS,
        ),
        _t(
            "adv_std_fall",
            0.05,
            "data_too_easy: adv_std must have fallen at least this much over the run (unless the "
            "groups were uniform from the start)",
            OURS_WORLDS,
        ),
        _t(
            "mostly_right",
            0.5,
            "a score at or above this: most answers right (groups uniform because all-right, the "
            "lesson's pair B1); below it and not rising, easy data cannot be the cause",
            OURS_WORLDS,
        ),
        _t(
            "adv_std_margin",
            0.2,
            "data_too_hard: adv_std must end at least this far below adv_std_healthy (most groups without spread)",
            OURS_WORLDS + "; the lesson's adv_std table (0.5-0.8 watch)",
        ),
        _t(
            "still_move",
            0.01,
            "a policy metric (entropy, KL) moving less than this share of its level -- start, end and peak "
            "-- did not move (stalled)",
            OURS_WORLDS,
        ),
        _t(
            "kl_dust",
            0.01,
            "a KL below this share of kl_floor at every point never left numerical dust: the weights do not move",
            "ours; dust is below 1e-4 (a hundredth of kl_floor), which real LoRA runs pass within three logged "
            "points (the real logs)",
        ),
        _t(
            "stall_drift_z",
            2.5,
            "with the policy demonstrably still, a score whose fitted change stays below this many of "
            "its standard errors (and does not rise) is quiet",
            OURS_WORLDS + "; between 2 and goal_z",
        ),
        _t(
            "kl_onset_share",
            0.2,
            "a KL blow-up is dated where log(kl + kl_floor) made this share of its whole rise (a "
            "fifth; kl_jump_share re-dates a jump)",
            OURS_WORLDS,
        ),
        _t(
            "plateau_gain",
            0.1,
            "a plateau needs a goal that gained (ctx.gained) at least this share of its level first: "
            "learned, then flattened",
            OURS_WORLDS,
        ),
    ]
)


_OVERRIDES: dict[str, float] = {}


def get(name: str) -> float:
    """The value in force (an override from `using`, else the table's)."""
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    return TABLE[name].value


@contextmanager
def using(overrides: dict[str, float]) -> Iterator[None]:
    """Temporarily override threshold values (not thread-safe)."""
    unknown = set(overrides) - set(TABLE)
    if unknown:
        raise KeyError(f"unknown thresholds: {sorted(unknown)}")
    saved = dict(_OVERRIDES)
    _OVERRIDES.update({k: float(v) for k, v in overrides.items()})
    try:
        yield
    finally:
        _OVERRIDES.clear()
        _OVERRIDES.update(saved)


def calibrated() -> dict[str, Threshold]:
    """The thresholds a calibration may tune (those with a grid)."""
    return {k: t for k, t in TABLE.items() if t.grid}
