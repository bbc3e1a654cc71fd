"""The words inside the lesson's figure (`rlvitals plot`), in English and Chinese.

Metric names are never translated (they are the canonical vocabulary); with `lang="zh"` and no CJK
font on the machine the figure falls back to these English words.
"""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "plot.title": "{name} — {format} — {points} logged steps ({first} → {last})",
        "plot.proxy": "proxy",
        "plot.step": "step",
        "plot.restart": "restart",
        "plot.nonfinite": "{n} NaN/inf (x)",
        "plot.no_finite": "no finite value",
        "plot.all_zero": "exactly 0 at every step",
        "plot.clip_na": "exactly 0 at every step: not applicable (one update per batch)",
        "plot.val": "validation",
        "plot.train": "train",
        "plot.healthy_band": "healthy 0.8–1.2 (the lesson)\nlower: groups agree, less signal",
        "plot.ratio_ref": "should stay at 1.0 (drift = weights out of sync)",
        "plot.clip_ref": "20%: single updates too big",
    },
    "zh": {
        "plot.title": "{name} — {format} — 记录了 {points} 步（{first} → {last}）",
        "plot.proxy": "代理",
        "plot.step": "步",
        "plot.restart": "重启",
        "plot.nonfinite": "{n} 个 NaN/inf（x）",
        "plot.no_finite": "没有有限值",
        "plot.all_zero": "每一步都恰为 0",
        "plot.clip_na": "每一步都恰为 0：不适用（每批只更新一次）",
        "plot.val": "验证集",
        "plot.train": "训练",
        "plot.healthy_band": "健康区间 0.8–1.2（课程）\n更低：组内答案趋同，信号变少",
        "plot.ratio_ref": "本该恒为 1.0（偏离 = 权重没同步）",
        "plot.clip_ref": "20%：单次更新太大",
    },
}
