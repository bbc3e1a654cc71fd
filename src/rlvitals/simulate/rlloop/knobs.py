"""The knobs of the RL loop: defaults (a healthy run), their ranges, and mid-run changes.

Every knob is one field of `Knobs`; `KNOB_HELP` says what it does in one line (en/zh) and
`check_knobs` turns a bad value into one sentence.  A scenario sets some knobs from step one
and its *cause* from its onset step; `Knobs.at(t)` gives the knobs in force at step t.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from ...errors import RlvitalsError

__all__ = ["KNOB_HELP", "RUN_LEVEL", "BadKnob", "Knobs", "check_knobs"]


class BadKnob(RlvitalsError):
    """A knob name the loop does not have, or a value outside its range."""


@dataclass(frozen=True)
class Knobs:
    steps: int = 300
    lr: float = 0.02  # Adam step size on the logits
    warmup: int = 30  # linear lr warm-up over this many steps
    batch: int = 64  # prompts per step
    group: int = 8  # answers per prompt (G)
    minibatches: int = 4  # optimizer steps per rollout batch
    temperature: float = 1.0  # rollout (and scoring) temperature
    eps_low: float = 5e-4  # clip range below 1
    eps_high: float = 7e-4  # clip range above 1 (DAPO's clip-higher)
    ratio_level: str = "sequence"  # "sequence" (GSPO) or "token" (GRPO/PPO)
    kl_coef: float = 0.01  # k3 KL-to-reference penalty in the loss
    ent_coef: float = 0.0  # entropy bonus in the loss
    max_grad_norm: float = 1.0  # gradient clipping
    cap: int = 512  # max response length (tokens)
    w_fmt: float = 0.3  # format term (answer marker present)
    len_bonus: float = 0.0  # length term: len_bonus * min(len / len_target, 1)
    len_target: int = 512
    hack_bonus: float = 0.0  # lenient verifier: pays this for >= hack_marks markers
    hack_marks: int = 6
    slip: float = 0.0  # per-token slip probability (errors the policy cannot unlearn)
    need_median: float = 28.0  # median steps a prompt needs (difficulty)
    unsolvable: float = 0.15  # share of prompts no answer can solve
    stale_from: int | None = None  # rollout weights stop syncing at this step (1-based)
    sync_lag: int = 0  # rollouts use the weights of this many steps ago (async RL)
    frozen: bool = False  # gradients computed, never applied
    fp16: bool = False  # float16 gradients with a dynamic loss scale
    fp16_check: bool = True  # skip overflowing steps (GradScaler); off = inf reaches the weights
    val_every: int = 10  # held-out accuracy every this many steps
    late: dict[str, Any] = field(default_factory=dict)  # knobs that change at `late_from`
    late_from: int | None = None  # 0-based step index where `late` takes effect

    def at(self, t: int) -> Knobs:
        """The knobs in force at 0-based step t."""
        if self.late and self.late_from is not None and t >= self.late_from:
            return replace(self, **self.late, late={}, late_from=None)
        return self

    def lr_at(self, t: int) -> float:
        return self.lr * min(1.0, (t + 1) / self.warmup) if self.warmup > 0 else self.lr


# Knobs fixed for the whole run (the task and the precision are built once).
RUN_LEVEL = frozenset({"steps", "need_median", "unsolvable", "fp16", "fp16_check", "val_every"})

_INT_MIN = {
    "steps": 20,
    "warmup": 0,
    "batch": 1,
    "group": 2,
    "minibatches": 1,
    "cap": 10,
    "len_target": 1,
    "hack_marks": 1,
    "stale_from": 1,
    "sync_lag": 0,
    "val_every": 1,
}
_FLOAT_RANGE = {
    "lr": (0.0, 10.0),
    "temperature": (0.05, 10.0),
    "eps_low": (0.0, 1.0),
    "eps_high": (0.0, 100.0),
    "kl_coef": (0.0, 100.0),
    "ent_coef": (0.0, 100.0),
    "max_grad_norm": (1e-6, 1e9),
    "w_fmt": (0.0, 10.0),
    "len_bonus": (0.0, 10.0),
    "hack_bonus": (0.0, 10.0),
    "slip": (0.0, 0.5),
    "need_median": (0.5, 5000.0),
    "unsolvable": (0.0, 1.0),
}
_BOOL = ("frozen", "fp16", "fp16_check")
_CHOICE = {"ratio_level": ("sequence", "token")}

KNOB_HELP: dict[str, tuple[str, str]] = {
    "steps": (
        "training steps (set with --steps / steps=, not as a knob)",
        "训练步数（用 --steps / steps= 设置，不作为旋钮）",
    ),
    "lr": ("learning rate (Adam, on the policy's logits)", "学习率（Adam，作用在策略 logits 上）"),
    "warmup": ("linear learning-rate warm-up, in steps", "学习率线性预热步数"),
    "batch": ("prompts per step", "每步 prompt 数"),
    "group": ("answers sampled per prompt (G)", "每个 prompt 采样的回答数（G）"),
    "minibatches": ("optimizer steps per rollout batch", "每批 rollout 的优化器更新次数"),
    "temperature": ("rollout temperature", "采样温度"),
    "eps_low": (
        "clip range below 1 (sequence ratio: ~5e-4; with ratio_level=token use ~0.2)",
        "裁剪下界 ε_low（序列级比率约 5e-4；ratio_level=token 时用约 0.2）",
    ),
    "eps_high": ("clip range above 1 (clip-higher when > eps_low)", "裁剪上界 ε_high（大于 ε_low 即 clip-higher）"),
    "ratio_level": (
        "importance ratio per 'sequence' (GSPO) or per 'token' (GRPO)",
        "重要性比率按 'sequence'（GSPO）或按 'token'（GRPO）计算",
    ),
    "kl_coef": ("KL-to-reference penalty (k3)", "对参考策略的 KL 惩罚系数（k3）"),
    "ent_coef": ("entropy bonus", "熵奖励系数"),
    "max_grad_norm": ("gradient-norm clipping", "梯度范数裁剪"),
    "cap": ("max response length in tokens", "最大回答长度（token）"),
    "w_fmt": ("format term: reward for an answer marker", "格式分：有答案标记即得分"),
    "len_bonus": ("length term: len_bonus x min(len / len_target, 1)", "长度分：len_bonus × min(len / len_target, 1)"),
    "len_target": ("length the length term saturates at", "长度分饱和时的长度"),
    "hack_bonus": (
        "lenient verifier: pays this for answers listing many markers",
        "宽松的判分器：列出很多个答案标记就给这么多分",
    ),
    "hack_marks": ("markers the lenient verifier wants", "宽松判分器要求的标记数"),
    "slip": ("per-token slip probability (errors the policy cannot unlearn)", "每个 token 的失误概率（学不掉的错误）"),
    "need_median": ("difficulty: median reasoning steps a prompt needs", "难度：每题所需推理步数的中位数"),
    "unsolvable": ("share of prompts no answer can solve", "无解题目的比例"),
    "stale_from": ("rollout weights stop syncing at this step", "从这一步起 rollout 权重不再同步"),
    "sync_lag": (
        "rollouts use the weights of this many steps ago (bounded staleness, as in async RL)",
        "rollout 使用若干步之前的权重（有界的过时，如异步 RL）",
    ),
    "frozen": ("gradients computed but never applied (1/0)", "梯度照算但从不更新权重（1/0）"),
    "fp16": ("float16 gradients with a dynamic loss scale (1/0)", "float16 梯度 + 动态 loss scale（1/0）"),
    "fp16_check": ("skip overflowing steps (0 = inf reaches the weights)", "跳过溢出的步（0 = inf 直接进权重）"),
    "val_every": ("held-out accuracy every this many steps", "每隔多少步测一次留出集正确率"),
    "onset": (
        "step at which the scenario's cause (or the knobs you set) takes effect",
        "场景的成因（或你设的旋钮）从这一步开始生效",
    ),
}

_NAMES = tuple(f.name for f in fields(Knobs) if f.name not in ("late", "late_from"))


def _bad(name: str, value: object, want: str) -> BadKnob:
    return BadKnob(f"knob {name}={value!r} is out of range: {want}.")


def coerce(name: str, value: object) -> Any:
    """One knob's value, checked and converted (strings from the command line are accepted)."""
    if name not in _NAMES and name != "onset":
        raise BadKnob(f"unknown knob {name!r}; knobs are: {', '.join((*_NAMES, 'onset'))}.")
    if name in _BOOL:
        if isinstance(value, str):
            low = value.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise _bad(name, value, "use 1 or 0")
        if isinstance(value, (bool, int)) and value in (0, 1):
            return bool(value)
        raise _bad(name, value, "use 1 or 0")
    if name in _CHOICE:
        if value not in _CHOICE[name]:
            raise _bad(name, value, "one of " + ", ".join(_CHOICE[name]))
        return value
    if name in _INT_MIN or name == "onset":
        if name == "stale_from" and value in (None, "none", "None"):
            return None
        try:
            iv = int(str(value)) if isinstance(value, str) else value
        except ValueError:
            raise _bad(name, value, "an integer") from None
        if not isinstance(iv, int) or isinstance(iv, bool):
            raise _bad(name, value, "an integer")
        lo = _INT_MIN.get(name, 1)
        if iv < lo:
            raise _bad(name, value, f"an integer >= {lo}")
        return iv
    flo, fhi = _FLOAT_RANGE[name]
    try:
        fv = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise _bad(name, value, "a number") from None
    if not flo <= fv <= fhi or fv != fv:
        raise _bad(name, value, f"a number in [{flo:g}, {fhi:g}]")
    return fv


def check_knobs(knobs: dict[str, object]) -> dict[str, Any]:
    """Every knob checked and converted; the first bad one raises `BadKnob` with one sentence."""
    return {k: coerce(k, v) for k, v in knobs.items()}
