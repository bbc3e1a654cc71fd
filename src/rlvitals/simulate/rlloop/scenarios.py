"""The RL loop's scenarios: each failure is a cause (a knob) and the loop makes the curves.

`start` knobs hold from step one; `cause` knobs take effect at the onset.  Onset kinds:
  none     healthy (no cause);
  start    the cause holds from step 1 (onset_step = 1);
  mid      the cause starts at a step drawn per seed in 30-60% of the run (a resumed run with a
           changed config, a sync that breaks), or at the `onset` knob;
  derived  the cause holds from step 1 but the failure begins later; the onset is read off the
           loop by the rule in `rule` (see `derived_onset` below), e.g. the first step whose
           overflow made the weights NaN.
The truth (finding, verdict, severity) uses the diagnosis' vocabulary (diagnose/model.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import RlvitalsError
from ..scenarios import check_truth

if TYPE_CHECKING:
    from .loop import Trace

__all__ = ["SCENARIOS", "RLScenario", "UnknownRLScenario", "derived_onset", "get_rl_scenario"]


class UnknownRLScenario(RlvitalsError):
    """A scenario name the RL loop does not know (the message lists the valid ones)."""


@dataclass(frozen=True)
class RLScenario:
    name: str
    summary: str
    summary_zh: str
    finding: str | None
    verdict: str
    severity: str | None
    onset: str  # none | start | mid | derived
    start: dict[str, Any] = field(default_factory=dict)
    cause: dict[str, Any] = field(default_factory=dict)
    rule: str = ""  # derived onsets: which rule

    def __post_init__(self) -> None:
        check_truth(self.name, self.finding, self.verdict, self.severity, self.onset)

    @property
    def truth(self) -> dict[str, Any]:
        return {"scenario": self.name, "finding": self.finding, "verdict": self.verdict, "severity": self.severity}


def _s(
    name: str,
    summary: str,
    summary_zh: str,
    finding: str | None,
    verdict: str,
    severity: str | None,
    onset: str,
    start: dict[str, Any] | None = None,
    cause: dict[str, Any] | None = None,
    rule: str = "",
) -> tuple[str, RLScenario]:
    return name, RLScenario(
        name, summary, summary_zh, finding, verdict, severity, onset, start or {}, cause or {}, rule
    )


SCENARIOS: dict[str, RLScenario] = dict(
    [
        _s(
            "healthy",
            "GRPO on the toy task with sane knobs: reward and acc rise together, entropy eases, ratio stays at 1",
            "参数合理的 GRPO：reward 与 acc 同升，熵缓降，ratio 恒为 1",
            None,
            "learning",
            None,
            "none",
        ),
        _s(
            "batch_noise",
            "4 prompts a step (32 answers): the same learning, seen through a noisy estimate",
            "每步只有 4 个 prompt（32 条回答）：一样在学，只是估计噪声大",
            "batch_noise",
            "learning",
            "info",
            "start",
            start={"batch": 4},
        ),
        _s(
            "lr_too_high",
            "mid-run the learning rate goes to 25x the healthy one: every update overshoots the trust "
            "region, clip_frac jumps past 20%, the ratio wobbles and reward slides back",
            "中途学习率升到健康值的 25 倍：每次更新都冲出信任域，clip_frac 跳过 20%，ratio 摇摆，reward 回落",
            "lr_too_high",
            "unstable",
            "warning",
            "mid",
            cause={"lr": 0.5},
        ),
        _s(
            "entropy_collapse",
            "sampling at temperature 0.4, a per-token ratio clipped at 0.2 on both sides (no "
            "clip-higher), a pure-correctness reward, a near-zero KL (0.001) and a 10x learning rate: the policy sharpens on "
            "what it already samples, entropy heads to 0 (wrong steps locked in on some topics), groups turn identical, "
            "adv_std and reward stall",
            "温度 0.4 采样、逐 token 比率上下都裁剪在 0.2（没有 clip-higher）、奖励只看对错、KL 几乎为 0（0.001）、学习率 10 倍："
            "策略在已采到的答案上越来越尖，熵趋向 0（部分题型锁死在错误步骤上），组内答案趋同，adv_std 与 reward 停滞",
            "entropy_collapse",
            "dead",
            "critical",
            "derived",
            start={
                "temperature": 0.4,
                "ratio_level": "token",
                "eps_low": 0.2,
                "eps_high": 0.2,
                "kl_coef": 0.001,
                "lr": 0.2,
                "w_fmt": 0.0,
            },
            rule="entropy_half",
        ),
        _s(
            "sync_failure",
            "the rollout engine stops receiving new weights: answers come from a stale policy, the "
            "importance ratio drifts away from 1 and learning stops",
            "rollout 引擎不再收到新权重：回答来自过时的策略，重要性比率偏离 1，学习停止",
            "sync_failure",
            "dead",
            "critical",
            "mid",
            cause={"stale_from": 1},
        ),
        _s(
            "data_too_easy",
            "prompts need one right step and the reward is pure correctness: ~94% of answers are right, "
            "most groups all right, adv_std below 0.5 while entropy stays normal",
            "题目只需一个正确步骤、奖励只看对错：约 94% 的回答都对，多数组全对，adv_std 低于 0.5 而熵正常",
            "data_too_easy",
            "learning",
            "warning",
            "derived",
            start={"need_median": 1.0, "unsolvable": 0.02, "w_fmt": 0.0},
            rule="adv_std_half",
        ),
        _s(
            "data_too_hard",
            "prompts need ~300 right steps: no group is ever solved, reward ~0, adv_std ~0, nothing to learn from",
            "题目需要约 300 个正确步骤：没有一组能做对，reward≈0，adv_std≈0，无从学起",
            "data_too_hard",
            "dead",
            "critical",
            "start",
            start={"need_median": 300.0, "w_fmt": 0.0},
        ),
        _s(
            "reward_hacking",
            "a lenient verifier scores answers that list 8+ answer markers at 1.3, above a right answer: "
            "the policy finds it, reward climbs while true and held-out accuracy fall",
            "宽松的判分器给列出 8 个以上答案标记的回答打 1.3 分，比答对还高：策略找到漏洞，reward 上升而真实与留出集正确率下降",
            "reward_hacking",
            "cheating",
            "critical",
            "derived",
            start={"hack_bonus": 1.3, "hack_marks": 8},
            rule="hacked_share",
        ),
        _s(
            "length_hacking",
            "a length term (1.5 x len/512) is added mid-run: answers grow to the cap, wrong steps pile "
            "up, truncation rises, accuracy does not",
            "中途加入长度分（1.5 × len/512）：回答一路变长到上限，错误步骤增多，截断率上升，正确率不升",
            "length_hacking",
            "cheating",
            "warning",
            "mid",
            cause={"len_bonus": 1.5},
        ),
        _s(
            "kl_blowup",
            "mid-run the KL penalty is dropped, grad clipping is off and the lr is raised 250x: within a few "
            "steps the policy jumps far from the reference (KL x10-50) and reward collapses",
            "中途去掉 KL 惩罚、关掉梯度裁剪、学习率提高 250 倍：几步之内策略跳离参考模型（KL 涨 10-50 倍），reward 崩塌",
            "kl_blowup",
            "dead",
            "critical",
            "mid",
            cause={"kl_coef": 0.0, "lr": 5.0, "max_grad_norm": 1e9},
        ),
        _s(
            "stalled",
            "the optimizer never applies its updates: reward flat, kl exactly 0, ratio exactly 1, clip 0",
            "优化器从不应用更新：reward 平，kl 恰为 0，ratio 恰为 1，clip 为 0",
            "stalled",
            "dead",
            "critical",
            "start",
            start={"frozen": True},
        ),
        _s(
            "numeric_instability",
            "fp16 gradients with the overflow check off: the loss scale grows until a gradient "
            "overflows, inf reaches the weights and everything is NaN",
            "fp16 梯度且关掉溢出检查：loss scale 一路增长直到梯度溢出，inf 进入权重，之后全是 NaN",
            "numeric_instability",
            "dead",
            "critical",
            "derived",
            start={"fp16": True, "fp16_check": False},
            rule="overflow",
        ),
        _s(
            "truncation_starvation",
            "the length cap is cut to 24 tokens mid-run: most answers are cut, reward ~0, no gradient",
            "中途把长度上限降到 24：大多数回答被截断，reward≈0，没有梯度",
            "truncation_starvation",
            "dead",
            "critical",
            "mid",
            cause={"cap": 24},
        ),
        _s(
            "entropy_explosion",
            "an entropy bonus of 0.5 is switched on mid-run: entropy runs up, answers turn random, reward falls",
            "中途打开 0.5 的熵奖励：熵一路上升，回答变随机，reward 下降",
            "entropy_explosion",
            "dead",
            "critical",
            "mid",
            cause={"ent_coef": 0.5},
        ),
        _s(
            "plateau",
            "easier prompts, 40% unsolvable, and a slip rate the policy cannot unlearn: the run learns what it "
            "can, then reward and acc level off below the ceiling",
            "题目较易、40% 无解、且有学不掉的失误率：模型学完能学的，之后 reward 与 acc 在上限以下趋平",
            "plateau",
            "learning",
            "info",
            "derived",
            start={"unsolvable": 0.4, "need_median": 6.0, "slip": 0.008, "lr": 0.08},
            rule="plateau",
        ),
    ]
)


def get_rl_scenario(name: str) -> RLScenario:
    """The RL-loop scenario `name`, or a one-sentence error listing the valid names."""
    try:
        return SCENARIOS[name]
    except (KeyError, TypeError):
        raise UnknownRLScenario(
            f"unknown RL-loop scenario {name!r}; valid scenarios are: {', '.join(SCENARIOS)}."
        ) from None


def _smooth(x: np.ndarray) -> np.ndarray:
    w = max(3, x.size // 30) | 1
    pad = np.concatenate([np.full(w // 2, x[0]), x, np.full(w // 2, x[-1])])
    return np.convolve(pad, np.ones(w) / w, mode="valid")


def _first(mask: np.ndarray) -> int | None:
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


def derived_onset(rule: str, tr: Trace) -> int | None:
    """0-based onset index of a failure whose cause holds from step one (None: it never began).

    entropy_half  first step the smoothed entropy is below half its value over the first 5 steps
    adv_std_half  first step the smoothed adv_std is below 0.5 (the lesson's "many groups degenerate")
    hacked_share  first step the smoothed share of rewarded-but-wrong answers exceeds 10%
    overflow      the first step a gradient overflowed float16
    plateau       first step the smoothed acc has made 90% of its rise to its final level (last 20%)
    """
    c = tr.cols
    if rule == "overflow":
        return tr.overflow_step
    if rule == "entropy_half":
        e = c["entropy"]
        return _first(_smooth(e) < 0.5 * float(np.mean(e[:5])))
    if rule == "adv_std_half":
        return _first(_smooth(c["adv_std"]) < 0.5)
    if rule == "hacked_share":
        return _first(_smooth(c["hacked"]) > 0.10)
    if rule == "plateau":
        a = _smooth(c["acc"])
        final = float(np.mean(a[-max(1, a.size // 5) :]))
        return _first(a >= a[0] + 0.9 * (final - a[0]))
    raise ValueError(f"unknown onset rule {rule!r}")
