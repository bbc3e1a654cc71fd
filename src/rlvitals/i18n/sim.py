"""Strings of `rlvitals simulate --engine rl` (the RL-loop engine's listing and notes).

Keys start with "sim.".  The scenario descriptions themselves live in the scenario table
(`rlvitals.simulate.rlloop.scenarios.SCENARIOS`, `summary` / `summary_zh`) and the knob help in
`rlvitals.simulate.rlloop.knobs.KNOB_HELP`, each in both languages.
"""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "sim.rl.scenarios": "RL-loop scenarios (a GRPO loop on a toy task; each failure is a cause, not a drawn curve):",
        "sim.rl.truth": "truth",
        "sim.rl.healthy": "healthy",
        "sim.rl.knobs": "knobs (--knob NAME=VALUE; default in brackets):",
        "sim.rl.example": "e.g.  rlvitals simulate --engine rl healthy --knob temperature=0.4 --knob kl_coef=0 --knob onset=120",
    },
    "zh": {
        "sim.rl.scenarios": "RL 循环场景（在玩具任务上跑真实的 GRPO 循环；每种故障都来自一个成因，而不是画出来的曲线）：",
        "sim.rl.truth": "真值",
        "sim.rl.healthy": "健康",
        "sim.rl.knobs": "旋钮（--knob 名称=值；方括号内为默认值）：",
        "sim.rl.example": "例如  rlvitals simulate --engine rl healthy --knob temperature=0.4 --knob kl_coef=0 --knob onset=120",
    },
}
