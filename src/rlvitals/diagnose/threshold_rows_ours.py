"""The threshold table's rows we chose, with the worlds they were checked on (after the sources'
rows in thresholds.TABLE)."""

from __future__ import annotations

from .threshold_core import OURS_SIM, Threshold, row

__all__ = ["OURS_ROWS"]

OURS_ROWS: tuple[tuple[str, Threshold], ...] = (
    # -- ours -------------------------------------------------------------------------------------
    row(
        "goal_z",
        3.0,
        "a change of the goal larger than this many noise standard errors is real",
        "ours (3 sigma); " + OURS_SIM,
        (2.0, 2.5, 3.0, 4.0),
    ),
    row("rate_move", 0.02, "a rate (acc, trunc) must also move this many points to count as moving", OURS_SIM),
    row(
        "goal_material",
        0.05,
        "a goal's change is material when it is at least this share of the goal's own range (1 for "
        "a rate in [0, 1]: 5 points of accuracy; else the span of its middle 90%): a finding after whose onset the goal "
        "gained this much and kept it (or sat at its ceiling and lost less) did not hurt the goal and does not set the verdict",
        "ours; the lesson's healthy run gains 36 points of acc in 200 steps, its four broken sets none; chosen on every "
        "world (bench_worlds --calibrate, the real corpus per repository held out)",
        (0.03, 0.05, 0.1),
    ),
    row(
        "soft_level",
        0.1,
        "a format / length / style term of the reward has left its starting level once it moved this "
        "share of its rise, and reached its knee once it is within this share of its final level",
        "ours: a format term learned in the first tens of steps, then flat within a few points, on the peers' scenario "
        "files and the real runs with reward components",
    ),
    row(
        "fair_steps",
        100.0,
        "steps a run is given, from when a format term began to be learned, to show its truth "
        "moving: past them a truth still flat beside a reward carried by format is judged, however slowly the format came",
        "ours: the peers' healthy runs start on correctness 80-100 steps in, after a format learned in 40; the lesson's "
        "format-only rise is read as cheating over a 200-step run",
    ),
    row(
        "hack_share_follow",
        0.5,
        "a goal that gained at least this share of what the reward gained (each in its own range, "
        "since the parting) followed the reward: the parting did not hurt it (the lesson: acc 与 reward 同向 = 真能力)",
        "ours; the same half as hack_share and eval_follow's quarter (an eval lags its training accuracy)",
        (0.33, 0.5, 0.67),
    ),
    row(
        "eval_follow",
        0.25,
        "an eval accuracy gaining less than this share of the training accuracy's gain does not follow it",
        "ours; both are accuracies on one scale (the peers' length-hacking file: train +0.67, eval +0.05)",
    ),
    row("ceiling", 0.9, "an accuracy at or above this is at its ceiling: it cannot follow a rising reward", "ours"),
    row("near_zero", 0.10, "an accuracy below this is 'all wrong'", OURS_SIM),
    row(
        "min_points",
        24.0,
        "points a metric needs before 'it does not move' can be said",
        OURS_SIM,
        (12.0, 16.0, 24.0, 32.0),
    ),
    row(
        "skip_share",
        0.5,
        "share of the logged points of a run's last half at which a flag or count of skipped updates "
        "(update_skipped, skipped_iterations, an fp16 overflow) is above 0, at and above which the optimizer "
        "refused most recent updates: the weights barely moved (numeric_instability, critical; at min_points "
        "such points or more)",
        "ours: half or more of the recent updates not applied; a loss scaler skips steps only while it finds "
        "its scale (torch.cuda.amp GradScaler, DeepSpeed fp16: 16 halvings from 2**16 to 1, fewer than min_points)",
    ),
    row(
        "proof_points",
        36.0,
        "steps a goal's points must cover before a fitted line that rules out a material gain (its "
        "upper goal_z bound under goal_material of the goal's range) says the goal did not improve, "
        "short of twice min_points: the line shows what twice min_points points only presume",
        "ours: every world read at growing prefixes (bench_stability, bench_prefix) -- at min_points, runs "
        "of the real corpus and of the RL simulator that learn later were still flat with such a line; past "
        "30 steps none was",
    ),
    row(
        "sparse_points",
        10.0,
        "a log with a point every few steps (TRL's logging_steps, each point its window's mean) has "
        "enough data when its points cover the steps a rule asks for (min_points, stall_points, ...: each point counts "
        "for the steps it stands for) and number at least this many",
        "the shape classifier's own floor (shapes.MIN_POINTS: fewer points are 'too few to say'); a window mean "
        "carries its window's evidence at a smaller noise, which every standard error here already uses",
    ),
    row(
        "const_points",
        4.0,
        "points enough to say a goal logged at the very same value at every point does not improve "
        "(no noise to wait out)",
        "ours: the TRL zero-reward log (reward 0.0 at all 50 steps) read every 10 steps",
    ),
    row(
        "const_span",
        30.0,
        "steps a constant goal must cover before it is 'not learning' (a run's first few steps may "
        "all score 0 before anything is learned)",
        "ours",
    ),
    row(
        "stall_points",
        20.0,
        "points enough to call a stall when the policy (entropy, KL) is demonstrably still: its fitted "
        "change, two standard errors included, under still_move of its level",
        OURS_SIM,
    ),
    row(
        "stall_points_noisy",
        30.0,
        "points enough to call a stall when the policy shows no move only within its own noise (absence "
        "of evidence, not evidence of absence)",
        "ours: every world read at 8 growing prefixes (bench_stability) -- at 20 points real runs whose "
        "noisy entropy or KL showed no move yet were called stalls and moved later; 30 keeps every real stall",
    ),
    row(
        "stall_dust_points",
        8.0,
        "points enough for an early stall warning when KL never left dust (< kl_floor / 100) and entropy moved < 1%",
        "ours; real LoRA runs pass 1e-4 by their 3rd logged point (gemma, mistral fixtures)",
    ),
    row(
        "kl_surge",
        20.0,
        "a rise of (kl + kl_floor) this large within a fifth of the run is a blow-up",
        "ours; simulated blow-ups 58-370x, a too-high LR < 10x",
        (10.0, 20.0, 40.0),
    ),
    row(
        "kl_fast",
        3.0,
        "KL's last tenth this many times the tenth before (+ kl_floor): a run-away on its way (warning)",
        "ours; a healthy KL grows ~1.1-2x per tenth of a prefix",
    ),
    row("kl_danger", 0.5, "a KL this large has left the reference whatever its speed", "ours; PTT kl > 0.3 high"),
    row(
        "kl_jump_share",
        0.5,
        "kl_blowup's onset: a KL whose largest kl_jump_steps window carries this share of its whole log rise "
        "jumped, and began there (not where a slow healthy climb made a fifth of the rise)",
        "ours (most of the rise in one jump): RL-loop blow-ups 0.55-0.65, the first simulator's ramps 0.19-0.29",
    ),
    row(
        "kl_abrupt",
        0.4,
        "share of the KL's peak gained within kl_jump_steps: at or above this the KL jumped "
        "(a blow-up's step); below it the KL climbed, and a climb in step with an entropy heading to 0 (or running up) "
        "is that entropy move's consequence, not a blow-up",
        "ours; RL-loop simulator: collapses' KL climbs 0.26-0.27, blow-ups' and explosions' jumps 0.83-0.95; "
        "an exponential run-away (tau = 10 steps) 0.45",
        (0.35, 0.4, 0.45),
    ),
    row(
        "together",
        0.02,
        "two findings whose onsets are within this share of the run began together: neither is the "
        "other's cause (verdict.CHAINS), and a warning that began within it of a dead run's critical is no aftermath",
        "ours (the order rule of the lesson's KL/entropy pair: 谁先动谁是因; 2% = 4 steps of a 200-step run)",
    ),
    row(
        "kl_rise_start",
        0.2,
        "the KL's rise is dated where log(kl + a thousandth of its peak) left its starting level "
        "for good, past this share of its way from its first tenth to its last; an entropy whose fall (entropy_fall_start) "
        "began within kl_jump_steps of it moved with it: the lesson's order rule for the pair",
        "the lesson (KL vs entropy: the one that began first is the cause); ours: RL-loop collapses' KL leaves its "
        "start 2-6 steps before the entropy moves, its blow-ups' KL leaves its start 50-90 steps before the entropy drops; the peers' blow-ups' entropy declines 17-230 steps before their KL rises",
    ),
    row(
        "entropy_fall_start",
        0.1,
        "an entropy fall begins where the entropy made this share of its way from its first "
        "tenth's level to its last tenth's (kl_rise_start compares the two)",
        "ours; a tenth of the fall is past the block noise of a simulated or logged entropy",
    ),
    row(
        "entropy_at_once",
        0.8,
        "share of the entropy's fall made within kl_jump_steps: at or above this the entropy "
        "dropped at once, in the same few steps as a KL jump (one update-scale event: a blow-up's); below it the "
        "entropy slid down and a KL rising with it follows the narrowing (entropy_led_kl)",
        "ours; RL-loop collapses' prefixes 0.41-0.70, its blow-ups 0.70-0.94, an abrupt synthetic surge 0.96",
    ),
    row(
        "entropy_leap",
        0.6,
        "share of the entropy's rise made within kl_jump_steps: at or above this the "
        "entropy leapt (a policy flattening at once, dragging the KL along in the same steps)",
        "ours; RL-loop explosions 0.94-0.99, the simulator's KL blow-ups (entropy drifting up with the KL) 0.31-0.36",
        (0.5, 0.6, 0.7, 0.8),
    ),
    row(
        "kl_jump_steps",
        9.0,
        "the window (in training steps, at least one block of a hundredth of the run) a KL jump or "
        "an entropy leap is measured over (kl_abrupt, entropy_leap): an update-scale event, whatever the run's length",
        "ours; RL-loop blow-ups jump x3-10 within ~10 steps (fixed: the calibration tunes kl_abrupt and entropy_leap "
        "measured over it, and keeps to at most 12 knobs)",
    ),
    row(
        "entropy_rise_fail",
        1.3,
        "entropy ending this many times its start (above entropy_ok) while the goal gave ground "
        "from its peak is an explosion (entropy_rise alone needs no failing goal)",
        "ours; RL-loop explosions run 1.85 → 2.77 (x1.5, the uniform policy's ceiling) while acc falls 0.5 → 0.04",
        (1.2, 1.3, 1.4, 1.5),
    ),
    row(
        "kl_sharpen",
        1.5,
        "a KL never more than this many times the entropy lost (nats) is what a sharpening policy costs, not a blow-up",
        "KL(pi||ref) <= H(ref) - H(pi) for pi = ref^b/Z, b >= 1 (derivation); x1.5 for the "
        "estimators' noise (ours, RL loop)",
    ),
    row(
        "kl_flatten",
        1.0,
        "a KL gained never more than the entropy gained (nats), once the entropy rose by a tenth, is "
        "what a flattening policy costs (an entropy run-away's consequence), not a blow-up",
        "pi = ref^b/Z with b < 1 on Zipf-like references: KL(pi||ref) / (H(pi) - H(ref)) <= 0.73 (numerical check, "
        "b 0.4-0.95); RL-loop explosions 0.35-0.96 in their first 10 steps, sim blow-ups >= 1.24",
    ),
    row("kl_min", 0.05, "below this a KL is not dangerous whatever its shape", "ours; PTT kl > 0.3 high"),
    row(
        "kl_spike",
        10.0,
        "a one-step KL this many times its local level (and >= kl_high) is an outlier step",
        "ours",
    ),
    row(
        "len_explode",
        2.5,
        "length growing this much is an explosion (without accuracy to judge by)",
        OURS_SIM,
        (2.0, 2.5, 3.0, 4.0),
    ),
    row(
        "len_tail",
        0.05,
        "length_hacking on the way up: the last stretch of log-length tested against its line before, "
        "as a share of the step span (at least 6 points)",
        "ours; simulated padding bends the length within 3-8% of the run",
    ),
    row(
        "len_accel",
        0.08,
        "that stretch's median length above the line's extrapolation, relative (0.08 = 8% longer than the trend)",
        "ours; the length's own step noise is 2-4% (a mean of hundreds of answers)",
        (0.05, 0.08, 0.12),
    ),
    row(
        "len_accel_z",
        5.0,
        "and beyond this many standard errors (residual noise and the line's extrapolation error)",
        "ours (one-sided, beyond the 3-sigma goal_z: a healthy prefix must never warn)",
    ),
    row("trunc_rise", 0.05, "truncation rising by this many points is rising", OURS_SIM),
    row(
        "trunc_tail",
        0.05,
        "truncation_starvation on the way in: the last stretch of the trunc rate tested against its line before, "
        "as a share of the step span (at least 6 points; the z bar is len_accel_z)",
        "ours; the simulated cap bites within 3-8% of the run",
    ),
    row(
        "trunc_jump",
        0.10,
        "that stretch's median trunc rate above the line's extrapolation, in points (with a level past trunc_high / 2)",
        "ours; twice trunc_rise",
    ),
    row(
        "trunc_starve",
        0.5,
        "truncation above this while the goal does not gain: answers starved of reward",
        OURS_SIM,
    ),
    row("len_pinned", 0.7, "share of steps at the length maximum that counts as pinned at the cap", OURS_SIM),
    row(
        "noisy",
        0.5,
        "step-to-step noise this large next to the trend's range: the curve is noise-dominated",
        OURS_SIM,
        (0.3, 0.5, 0.8, 1.2),
    ),
    row("noisy_rate", 0.08, "step-to-step noise of a rate (acc) this large in points: a small batch", OURS_SIM),
    row("gnorm_high", 3.0, "an absolute grad norm above this (after clipping most runs log < 1-2)", OURS_SIM),
    row("gnorm_jitter", 0.5, "grad-norm residual / level above this is jumpy", "ours; PTT std > 3x baseline"),
    row(
        "gnorm_climb",
        5.0,
        "grad norm late/early above this on its own (no clip fraction) is too-big updates",
        "ours; PTT 3x unstable, 10x explosion",
    ),
    row(
        "magnitude_floor",
        0.1,
        "a loss/grad norm median below this is floored before ratios (GRPO losses ~1e-5): "
        "an explosion must reach gnorm_blowup x this at least",
        "ours; an entropy-bonus loss moving 0 → -1.4 is no overflow (RL-loop simulator)",
    ),
    row("kl_negative", -0.05, "KL below this on 3+ steps: the estimator itself broke", "ours (rookworld log)"),
    row(
        "hack_gap",
        0.5,
        "after the parting the reward gains this many of its spreads more than the truth",
        OURS_SIM,
        (0.3, 0.5, 0.8),
    ),
    row(
        "hack_tail",
        0.04,
        "reward_hacking on the way up: the last stretch tested against the reward-truth line before it, "
        "as a share of the step span (at least 6 points)",
        "ours; simulated hacks part within 3-8% of the run",
    ),
    row(
        "hack_z",
        5.0,
        "that stretch's median excess reward beyond this many standard errors of the line's residual noise",
        "ours (one-sided, far beyond the 3-sigma goal_z: a healthy prefix must never warn)",
    ),
    row(
        "hack_shift",
        0.2,
        "and beyond this share of the reward's 10-90% spread before the stretch (a size, not only a z)",
        "ours; 0.1 warned on a healthy_long prefix (a format term learned mid-run)",
        (0.15, 0.2, 0.3),
    ),
    row(
        "hack_min_after",
        10,
        "reward points after a parting (twice this for a component to be 'flat'): fewer cannot show a trend one way and flatness the other",
        "ours (statistical floor)",
    ),
    row(
        "truth_min_after",
        6,
        "points of the truth metric after a parting (a sparse eval has few); stretches.since needs 6",
        "ours (statistical floor)",
    ),
    row(
        "track_corr",
        0.9,
        "the reward's step-to-step changes correlate with the accuracy's at least this much: the reward "
        "is the verifier's score (give or take a steady term), so its moves are the accuracy's",
        "ours; both simulators' rewards of correctness plus a steady format term correlate 1.0, "
        "a hacked or length-paid reward 0.8-0.86, a loophole-scored one < 0",
    ),
    row(
        "hack_share",
        0.25,
        "a format/length/style term rising alone: the correctness term gains at most this share of it "
        "(and a flat truth beside a parting reward gains at most this share of the reward's)",
        "ours (the lesson: 涨的是真能力，不是格式分)",
        (0.15, 0.25, 0.4),
    ),
    row("reward_climb", 0.15, "a reward gaining this fraction is climbing (vetoes 'data too hard')", OURS_SIM),
    row("entropy_healthy", 0.3, "entropy ending above this share of its start is far from 0 (healthy)", OURS_SIM),
    row("plateau_share", 0.25, "the flat part must cover this much of the run to be a plateau", OURS_SIM),
    row(
        "plateau_settle",
        0.9,
        "a plateau's gains ran out where the goal first made this share of its rise to the level after the knee",
        "the 10-90% rise-time convention of control engineering",
    ),
    row("plateau_slope", 0.2, "slope after the knee below this share of the slope before: flat", OURS_SIM),
    row("len_shrink", 0.5, "answers ending below this share of their start length shrank", OURS_SIM),
    row("diversity_low", 0.15, "sample diversity below this: near-identical answers", OURS_SIM),
)
