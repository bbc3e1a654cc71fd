"""The catalog of simulated scenarios: name, one-line summary (en/zh) and the ground truth.

Each scenario is one mechanism from the lesson (or one healthy variant that must stay silent).
`finding` is the id the diagnosis should put on top (None for healthy variants), `verdict` the
verdict it implies, `severity` the severity expected for that finding, `onset` how the true onset
step is defined: "none" (healthy), "start" (wrong from step one), "mid" (begins at a random 30–60%
of the run), or "derived" (read off the dice, e.g. when adv_std first sinks below 0.5).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnose.model import FINDING_IDS, SEVERITIES, VERDICTS
from ..errors import RlvitalsError
from ..i18n import t

__all__ = ["SCENARIOS", "Scenario", "UnknownScenario", "get_scenario", "truth_text"]


class UnknownScenario(RlvitalsError):
    """A scenario name the simulator does not know (the message lists the valid ones)."""


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    summary_zh: str
    finding: str | None
    verdict: str
    severity: str | None
    onset: str

    def __post_init__(self) -> None:
        check_truth(self.name, self.finding, self.verdict, self.severity, self.onset)


def check_truth(name: str, finding: str | None, verdict: str, severity: str | None, onset: str) -> None:
    """A scenario's truth must speak the diagnosis' vocabulary, or every accuracy number is
    meaningless (shared by both simulators)."""
    if finding is not None and FINDING_IDS[finding] != verdict:
        raise ValueError(f"{name}: finding {finding} implies {FINDING_IDS[finding]}")
    if verdict not in VERDICTS or (severity is not None and severity not in SEVERITIES):
        raise ValueError(f"{name}: bad verdict/severity")
    if onset not in ("none", "start", "mid", "derived"):
        raise ValueError(f"{name}: bad onset kind {onset!r}")


def _s(
    name: str, summary: str, summary_zh: str, finding: str | None, verdict: str, severity: str | None, onset: str
) -> tuple[str, Scenario]:
    return name, Scenario(name, summary, summary_zh, finding, verdict, severity, onset)


SCENARIOS: dict[str, Scenario] = dict(
    [
        _s(
            "healthy",
            "the lesson's healthy 200-step run: reward and acc rise together, entropy eases down, ratio stays at 1",
            "课程里健康的 200 步：reward 与 acc 同向上升，熵缓降，ratio 恒为 1",
            None,
            "learning",
            None,
            "none",
        ),
        _s(
            "healthy_long",
            "healthy, with answers growing 2-4x longer as accuracy rises; truncation stays low",
            "健康：正确率上升的同时回答变长 2-4 倍，截断率始终很低",
            None,
            "learning",
            None,
            "none",
        ),
        _s(
            "healthy_grad_spike",
            "healthy, with a few one-step grad-norm spikes that nothing else notices",
            "健康：grad norm 偶有单步尖刺，其他指标毫无反应",
            None,
            "learning",
            None,
            "none",
        ),
        _s(
            "healthy_reasoning",
            "a reasoning model's healthy run: entropy 0.45 -> 0.15 while accuracy keeps rising",
            "推理模型的健康训练：熵从 0.45 降到 0.15，正确率持续上升",
            None,
            "learning",
            None,
            "none",
        ),
        _s(
            "batch_noise",
            "a batch of 8 prompts: reward jitters, but clip ~1% and grad norm ~0.8 are calm",
            "batch 只有 8 个 prompt：reward 抖动，但 clip≈1%、grad norm≈0.8 都平稳",
            "batch_noise",
            "learning",
            "info",
            "start",
        ),
        _s(
            "lr_too_high",
            "learning rate warms up past what the model takes: clip 30-45%, grad norm 5-8, reward swings",
            "学习率预热超过模型能承受的值：clip 30-45%，grad norm 5-8，reward 来回摆",
            "lr_too_high",
            "unstable",
            "warning",
            "mid",
        ),
        _s(
            "entropy_collapse",
            "entropy decays to ~0, each group's 8 samples become one answer, adv_std and reward flatten",
            "熵衰减到接近 0，每组 8 条采样变成同一个答案，adv_std 与 reward 平掉",
            "entropy_collapse",
            "dead",
            "critical",
            "mid",
        ),
        _s(
            "sync_failure",
            "rollout weights stop syncing: ratio drifts monotonically from 1, entropy stays normal, reward flattens",
            "权重同步失效：ratio 单调偏离 1，熵正常，reward 平掉",
            "sync_failure",
            "dead",
            "critical",
            "mid",
        ),
        _s(
            "data_too_easy",
            "the model outgrows the data: most groups are all right (or all wrong), adv_std sinks below 0.5",
            "模型超过了数据难度：大多数组全对（或全错），adv_std 降到 0.5 以下",
            "data_too_easy",
            "learning",
            "warning",
            "derived",
        ),
        _s(
            "data_too_hard",
            "the data is beyond the model: groups all wrong, reward ~0, adv_std ~0, entropy normal",
            "数据超出模型能力：整组全错，reward≈0，adv_std≈0，熵正常",
            "data_too_hard",
            "dead",
            "critical",
            "start",
        ),
        _s(
            "reward_hacking",
            "the policy finds a loophole: reward keeps rising while accuracy stays flat or falls",
            "策略找到了奖励漏洞：reward 持续上升，acc 持平或下降",
            "reward_hacking",
            "cheating",
            "critical",
            "mid",
        ),
        _s(
            "length_hacking",
            "answers balloon for the process score: length explodes, acc flat, truncation rising",
            "为过程分注水：长度暴涨，acc 不涨，截断率上升",
            "length_hacking",
            "cheating",
            "warning",
            "mid",
        ),
        _s(
            "kl_blowup",
            "the policy runs away from the reference: kl jumps by orders of magnitude, entropy rises, reward falls",
            "策略跑飞：kl 陡增几个数量级，熵上升，reward 下降",
            "kl_blowup",
            "dead",
            "critical",
            "mid",
        ),
        _s(
            "stalled",
            "the weights never change: reward, entropy and kl flat from step one, clip 0, ratio exactly 1",
            "权重从未更新：reward、熵、kl 从第一步起就平，clip 为 0，ratio 恰好为 1",
            "stalled",
            "dead",
            "critical",
            "start",
        ),
        _s(
            "numeric_instability",
            "grad norm explodes, then NaN/inf appear and the model emits garbage",
            "grad norm 爆炸，随后出现 NaN/inf，模型输出乱码",
            "numeric_instability",
            "dead",
            "critical",
            "mid",
        ),
        _s(
            "truncation_starvation",
            "answers outgrow the length cap: trunc -> ~1, reward -> 0, adv_std -> 0",
            "回答超过长度上限：截断率趋近 1，reward 与 adv_std 归零",
            "truncation_starvation",
            "dead",
            "critical",
            "mid",
        ),
        _s(
            "entropy_explosion",
            "entropy runs away upward, answers turn to noise and reward falls",
            "熵失控上升，回答变成噪声，reward 下降",
            "entropy_explosion",
            "dead",
            "critical",
            "mid",
        ),
        _s(
            "plateau",
            "learned, then flat: reward and acc level off while nothing else goes wrong",
            "学到一定程度后平台期：reward 和 acc 趋平，其他指标都正常",
            "plateau",
            "learning",
            "info",
            "mid",
        ),
    ]
)


def get_scenario(name: str) -> Scenario:
    """The scenario called `name`, or a one-sentence error listing the valid names."""
    try:
        return SCENARIOS[name]
    except (KeyError, TypeError):
        raise UnknownScenario(f"unknown scenario {name!r}; valid scenarios are: {', '.join(SCENARIOS)}.") from None


def truth_text(finding: str | None, verdict: str, lang: str) -> str:
    """A scenario's truth as the listing shows it: "entropy_collapse（熵崩塌）/ 废了" in Chinese."""
    if not finding:
        return t("sim.rl.healthy", lang)
    name = t(f"finding.{finding}.title", lang)
    shown = f"{finding}（{name}）" if lang == "zh" and name != f"finding.{finding}.title" else finding
    return f"{shown} / {t(f'sim.verdict.{verdict}', lang)}"
