"""The threshold table's rows fixed by a source: the lesson's own tables, then papers and framework
defaults (shared/reference/rules-of-thumb.md).  thresholds.py assembles TABLE from these rows first."""

from __future__ import annotations

from .threshold_core import LESSON, Threshold, row

__all__ = ["SOURCE_ROWS"]

SOURCE_ROWS: tuple[tuple[str, Threshold], ...] = (
    # -- the lesson's tables ---------------------------------------------------------------------
    row(
        "adv_std_healthy",
        0.8,
        "adv_std at or above this is the healthy band (0.8-1.2): silent",
        LESSON + ", adv_std table",
    ),
    row(
        "adv_std_watch",
        0.5,
        "adv_std in [0.5, 0.8): normal late in a run, watch (info)",
        LESSON + ", adv_std table",
    ),
    row(
        "adv_std_degraded",
        0.3,
        "adv_std below this: many groups degenerate (used as 'groups uniform')",
        LESSON + ", adv_std table (0.3-0.5: change data / dynamic sampling)",
    ),
    row(
        "adv_std_stop",
        0.2,
        "adv_std below this: training has effectively stopped (critical)",
        LESSON + ", adv_std table (< 0.2)",
    ),
    row(
        "clip_high",
        0.20,
        "clip fraction above this: single updates too big",
        LESSON + " (clip_frac > 20%); PTT clip_fraction_high",
    ),
    row(
        "ratio_tol",
        0.02,
        "|ratio_mean - 1| below this is 'steady' (the lesson: constant ≈ 1.0)",
        LESSON + " (ratio_mean 恒 ≈ 1.0); TRL #3120 (ratio ≡ 1 with one update per batch)",
    ),
    row(
        "len_growth_healthy",
        2.0,
        "length may grow this much with accuracy (the lesson's healthy run: 78 → 152, x1.95)",
        LESSON + ", healthy table",
    ),
    # -- papers and framework defaults ------------------------------------------------------------
    row(
        "ratio_far",
        0.1,
        "|ratio_mean - 1| this large is a drift whatever its shape",
        "TRL docs ppo_trainer (ratio 2.0 or 0.1 = too drastic); ours",
    ),
    row(
        "ratio_tail",
        0.05,
        "sync_failure on the way out: the last stretch of ratio_mean (this share of the step span, at "
        "least 10 points: Kendall's tau of fewer is too coarse) whose distance from 1 must grow step by step (ratio_drift_tau, no step carrying half of it)",
        "the lesson (ratio 单调偏离 = 权重没同步); ours: the RL-loop simulator's stale sampler drifts 1e-4 to 3e-4 a step, "
        "so a twentieth of a 200-step run is 1-3e-3 of drift",
    ),
    row(
        "ratio_drift_tau",
        0.6,
        "Kendall's tau of that stretch's distances from 1 at or above this: a steady departure, not a jump or a wobble",
        "ours; noise alone reaches 0.6 over 10 points in under 1% of windows (tau's null sd 0.25 at n = 10)",
    ),
    row(
        "ratio_jump_share",
        0.5,
        "no single step may carry more than this share of that stretch's departure from 1: "
        "a ratio knocked off 1 at once (a learning rate raised, an entropy bonus switched on) is no drift",
        "ours; the RL-loop simulator's raised lr puts 75-100% of the move in one step, its stale sampler's largest "
        "step carries 20-45% of a 10-point stretch's drift",
    ),
    row(
        "ratio_late_share",
        0.25,
        "and the stretch's later half must still carry this share of the departure (a steady "
        "drift carries about half; a jump two or three steps long that then holds carries ~0)",
        "ours; half of the linear drift's expected share",
    ),
    row(
        "ratio_drift_min",
        0.002,
        "and the ratio at least this far from 1 now (a tenth of ratio_tol): a drift of "
        "numerical dust on a smoothed log is no departure",
        "ours; a tenth of ratio_tol",
    ),
    row(
        "mismatch_high",
        0.01,
        "a train/inference probability-difference proxy above this is a sync/precision problem",
        "verl docs/faq (probs_diff_mean < 0.005 normal, > 0.01 problem)",
    ),
    row(
        "clip_tail",
        0.05,
        "clip fraction held above clip_high over the last this share of the step span (at least 6 "
        "points) counts as held, as the last 30% of the points does, each beyond goal_z standard errors of its median",
        "ours; an lr raised mid-run lifts clip_frac past 20% within a few steps (both simulators); a 32-answer "
        "batch's clip_frac flickers by +-0.07 a step",
    ),
    row(
        "clip_normal",
        0.10,
        "clip fraction below this is normal",
        "classic PPO ~10% late (ImChong PR #502); PTT 'typically < 0.2'",
    ),
    row(
        "trunc_high",
        0.30,
        "truncation rate above this: too many answers cut at the cap",
        "PTT response_truncation (> 0.3); verl #2738",
    ),
    row("kl_high", 0.30, "KL to the reference above this is high", "PTT heuristics.py (kl > 0.3 high)"),
    row(
        "kl_floor",
        0.01,
        "KL this small is noise-level (added before ratios so 0.002 → 0.01 is no surge)",
        "Spinning Up target_kl 0.01",
    ),
    row("gnorm_rise", 3.0, "grad norm late/early above this: unstable", "PTT (instability when > 3x baseline)"),
    row(
        "update_growth",
        2.0,
        "clip fraction or grad norm on its last stretch (clip_tail) this many times above its own line "
        "before (beyond len_accel_z standard errors): the step size is growing now",
        "ours; PTT (3x baseline unstable): half of it, on the way there",
    ),
    row(
        "gnorm_explode",
        10.0,
        "a grad norm's last stretch this many times above its own line is exploding (with no clip "
        "fraction to tell a too-big step apart; with one, gnorm_rise while the clip fraction holds its line)",
        "PTT (explosion at 10x baseline); verl FAQ (a rising grad_norm = precision)",
    ),
    row(
        "gnorm_spike",
        30.0,
        "a grad-norm point this many times its ordinary level is a gradient spike (counted by gnorm_spikes)",
        "ours; between PTT's 10x explosion and verl PR #2328's orders of magnitude; the simulated healthy run's odd "
        "noisy-batch spikes reach 10-35x, at most one of them past 30x in 1000 steps",
    ),
    row(
        "nan_skips",
        2.0,
        "one curve non-finite at this many steps or fewer, every other curve finite and it finite and at "
        "its level after each, named as info -- not the numbers breaking down: a grad norm's are steps the "
        "optimizer skipped (mixed-precision loss scaling skips an overflowing step and lowers its scale), "
        "another curve's an estimate over nothing that step (a KL averaged over no tokens)",
        "ours; torch.cuda.amp GradScaler / DeepSpeed fp16 skip a step on inf/NaN gradients; a per-token mean "
        "over an empty completion mask is 0/0 = NaN; the peers' NaN scenarios stay NaN or recur",
    ),
    row(
        "gnorm_spikes",
        5.0,
        "this many gradient spikes (gnorm_spike) in a run: a gradient pathology, not the odd noisy batch",
        "ours; rl-doctor's grad_spikes scenario injects 7, rlprobe's grad_pathology ~25; the simulated healthy run has <= 1",
    ),
    row(
        "gnorm_blowup",
        100.0,
        "a loss / grad norm this many times its median is an explosion",
        "verl PR #2328 (spikes of orders of magnitude); PTT explosion at 10x",
    ),
    row(
        "spike_z",
        5.0,
        "a point this many robust sigmas (MAD) from its neighbours is an outlier",
        "Hampel filter, |z| > 3-5",
    ),
    row(
        "entropy_drop",
        0.80,
        "entropy ending below (1 - this) of its start is heading to 0",
        "Cui et al. arXiv 2505.22617 (a 73% early fall is normal, so more than that)",
        (0.7, 0.75, 0.8, 0.85, 0.9),
    ),
    row(
        "entropy_half",
        0.5,
        "entropy below (1 - this) of its start after a steady stretch, goal not improving: an early collapse warning",
        "ours; the simulator's collapses reach it 3-8% of the run after onset",
        (0.4, 0.5, 0.6),
    ),
    row(
        "entropy_zero",
        0.95,
        "entropy below (1 - this) of its start is at 0: the goal is then judged over the second half",
        "ours; the verl baseline keeps 13% of its start while its score climbs",
    ),
    row(
        "entropy_bend",
        0.05,
        "entropy's last stretch (clip_tail) this much (relative) above its own line before, beyond "
        "len_accel_z standard errors: running up now (a bonus or a temperature flattening the policy)",
        "ours; a healthy entropy drifts down by ~1% a tenth of the run with ~1% step noise; the lesson: entropy 上升 = 可能跑飞",
    ),
    row(
        "entropy_plunge",
        0.25,
        "entropy's last stretch (clip_tail) this much (relative) below its own line before, beyond "
        "len_accel_z standard errors: falling fast now (the lesson's 陡降, a collapse under way)",
        "ours; a healthy entropy falls ~1% a tenth of the run (the lesson: 1.842 -> 1.498 over 200 steps); "
        "Cui et al. arXiv 2505.22617's early fall is from the first step, so the line before carries it",
    ),
    row(
        "entropy_ok",
        1.0,
        "an entropy rising but still below this is no explosion",
        "rllm #116 (maintainer: ok to increase as long as < 1)",
    ),
    row(
        "entropy_floor",
        0.01,
        "an entropy whose level is below this (nats a token) is at 0 whatever its start: never 'far from 0'",
        LESSON + ", quiz (a flat reward beside entropy 0.009 is a collapse); a twentieth of the entropy "
        "Skywork-OR1's adaptive control holds a reasoning model at (0.2, arXiv 2505.22312)",
    ),
    row(
        "entropy_rise",
        1.6,
        "entropy ending this many times its start is running away",
        "ours; an entropy bonus doubles a low entropy healthily (verl LoRA 0.13 → 0.26); rllm #116 (< 1 is ok)",
    ),
    row(
        "low_entropy_loss",
        0.5,
        "an entropy run-away below entropy_ok is judged by the score alone: it must have given back at "
        "least this share of its gain (start to peak), not merely dipped from its best",
        "ours: the real corpus -- a reasoning model's run-away takes its score back to 0, while an "
        "entropy bonus's noisy plateau (verl LoRA, entropy x2 below 0.3) keeps most of its gain",
    ),
)
