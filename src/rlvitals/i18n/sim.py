"""Strings of `rlvitals simulate --engine rl` (the RL-loop engine's listing and notes).

Keys start with "sim.".  The scenario descriptions themselves live in the scenario table
(`rlvitals.simulate.rlloop.scenarios.SCENARIOS`, `summary` / `summary_zh`) and the knob help in
`rlvitals.simulate.rlloop.knobs.KNOB_HELP`, each in both languages.
"""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "sim.note.rl_scenario": "RL-loop scenario {name} (seed {seed}): {summary}",
        "sim.note.knobs": "knobs changed ({knobs}): the truth is the scenario's and may no longer hold",
        "sim.rl.scenarios": "RL-loop scenarios (a GRPO loop on a toy task; each failure is a cause, not a drawn curve):",
        "sim.rl.truth": "truth",
        "sim.rl.healthy": "healthy",
        "sim.rl.knobs": "knobs (--knob NAME=VALUE; default in brackets):",
        "sim.rl.example": "e.g.  rlvitals simulate --engine rl healthy --knob temperature=0.4 --knob kl_coef=0 --knob onset=120",
        "sim.dice.scenarios": "Scenarios (GRPO dice: each failure bends the curves its own way; the truth in brackets):",
        "sim.dice.example": "e.g.  rlvitals simulate entropy_collapse --seed 3 -o ec.log   (--engine rl: a real GRPO loop)",
        "sim.verdict.learning": "learning",
        "sim.verdict.cheating": "cheating",
        "sim.verdict.dead": "dead",
        "sim.verdict.unstable": "unstable",
    },
    "zh": {
        "sim.note.rl_scenario": "RL 循环场景 {name}（seed {seed}）：{summary}",
        "sim.note.knobs": "改动了旋钮（{knobs}）：标注的真实情况是原场景的，未必还成立",
        "sim.rl.scenarios": "RL 循环场景（在玩具任务上跑真实的 GRPO 循环；每种故障都来自一个成因，而不是画出来的曲线）：",
        "sim.rl.truth": "真值",
        "sim.rl.healthy": "健康",
        "sim.rl.knobs": "旋钮（--knob 名称=值；方括号内为默认值）：",
        "sim.rl.example": "例如  rlvitals simulate --engine rl healthy --knob temperature=0.4 --knob kl_coef=0 --knob onset=120",
        "sim.dice.scenarios": "场景（GRPO 掷骰模拟：每种故障按自己的方式弯曲曲线；方括号里是真值）：",
        "sim.dice.example": "例如  rlvitals simulate entropy_collapse --seed 3 -o ec.log（--engine rl：真实的 GRPO 循环）",
        "sim.verdict.learning": "在学",
        "sim.verdict.cheating": "作弊",
        "sim.verdict.dead": "废了",
        "sim.verdict.unstable": "不稳",
    },
}
