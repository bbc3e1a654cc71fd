"""The next knob for each finding: parameter, direction, typical value, why, and the source.

Numbers come from `shared/reference/rules-of-thumb.md`; the "why" is an i18n key under
`action_why.` so the sentence exists in both languages.  `knob` names a parameter (a config key
is the same in every language) and `typical` is a value, not prose: the explanation lives in
the translated `action_why` string.  Kept in one table so the advice is
reviewed in one place and the docs (docs/findings.md) can list it verbatim.
"""

from __future__ import annotations

from .model import Action

__all__ = ["ACTIONS", "action_for"]

ACTIONS: dict[str, Action] = {
    "entropy_collapse": Action(
        knob="clip_ratio_high (clip-higher) / rollout temperature",
        direction="raise",
        typical="ε_high 0.28 (ε_low 0.2); temperature 1.0",
        why="entropy_collapse",
        source="DAPO arXiv 2503.14476; Cui et al. arXiv 2505.22617",
    ),
    "sync_failure": Action(
        knob="rollout weight sync (compare rollout vs trainer log-probs)",
        direction="check",
        typical="probs_diff_mean < 0.005 (> 0.01 = bug); TIS C = 2.0",
        why="sync_failure",
        source="verl docs/faq; Yao et al. off-policy RL (TIS)",
    ),
    "reward_hacking": Action(
        knob="reward function",
        direction="check",
        typical="reward ← verifier (acc)",
        why="reward_hacking",
        source="Gao et al. arXiv 2210.10760; L. Weng 2024",
    ),
    "length_hacking": Action(
        knob="overlong reward shaping / loss normalisation",
        direction="enable",
        typical="16384 + 4096 buffer (DAPO) / Dr. GRPO",
        why="length_hacking",
        source="DAPO arXiv 2503.14476; Dr. GRPO arXiv 2503.20783",
    ),
    "kl_blowup": Action(
        knob="learning rate / KL coefficient",
        direction="lower",
        typical="LR × 0.5; kl_coef ↑",
        why="kl_blowup",
        source="PTT heuristics (kl > 0.3 high); TRL PPO docs",
    ),
    "lr_too_high": Action(
        knob="learning rate",
        direction="lower",
        typical="LR × 0.5 (clip_frac < 20%)",
        why="lr_too_high",
        source="PTT clip_fraction_high (> 0.2-0.3); 37 PPO implementation details",
    ),
    "batch_noise": Action(
        knob="batch size (optional)", direction="check", typical="—", why="batch_noise", source="the lesson, pair D"
    ),
    "data_too_easy": Action(
        knob="training data / dynamic sampling",
        direction="replace",
        typical="filter_groups (DAPO)",
        why="data_too_easy",
        source="DAPO arXiv 2503.14476; verl filter_groups",
    ),
    "data_too_hard": Action(
        knob="training data / SFT warm-up",
        direction="replace",
        typical="pass@k > 0; SFT warm-up",
        why="data_too_hard",
        source="DAPO arXiv 2503.14476 (dynamic sampling)",
    ),
    "stalled": Action(
        knob="pipeline (reward, advantages, optimizer step)",
        direction="check",
        typical="reward std > 0; adv ≠ 0; lr > 0",
        why="stalled",
        source="A. Jones, RL debugging; 37 PPO implementation details",
    ),
    "numeric_instability": Action(
        knob="precision / gradient clipping / learning rate",
        direction="lower",
        typical="fp32 loss; grad_clip 1.0; LR × 0.5",
        why="numeric_instability",
        source="verl FAQ (rising grad_norm = precision); verl PR #2328",
    ),
    "truncation_starvation": Action(
        knob="max_response_length (or shorter prompts)",
        direction="raise",
        typical="trunc < 30%",
        why="truncation_starvation",
        source="verl #2738; PTT response_truncation (> 0.3); Skywork-OR1",
    ),
    "entropy_explosion": Action(
        knob="entropy bonus / learning rate",
        direction="lower",
        typical="entropy_coeff 0; LR × 0.5",
        why="entropy_explosion",
        source="rllm #116 (maintainer); Skywork-OR1 adaptive entropy target 0.2",
    ),
    "plateau": Action(
        knob="data difficulty / stopping",
        direction="check",
        typical="—",
        why="plateau",
        source="the lesson (平掉 = converged or stuck)",
    ),
    "not_learning": Action(
        knob="pipeline and the missing vitals",
        direction="check",
        typical="log entropy, ratio_mean, adv_std, trunc",
        why="not_learning",
        source="the lesson (症状告诉你不对，正常的指标告诉你不对在哪); A. Jones, RL debugging",
    ),
    "outlier_step": Action(
        knob="gradient clipping / the batch at that step",
        direction="check",
        typical="grad_clip 1.0; skip steps with a huge grad norm",
        why="outlier_step",
        source="verl PR #2328 (skip steps with huge grad norm); NeMo-RL (spikes that return are OK)",
    ),
}


def action_for(finding_id: str) -> Action | None:
    return ACTIONS.get(finding_id)
