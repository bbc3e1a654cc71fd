"""`rlvitals vitals`: every canonical metric listed, proxies, NaNs, constants, skips and restarts shown."""

from __future__ import annotations

import json

import numpy as np
import pytest
import render_cases as rc

from rlvitals.render import render_vitals
from rlvitals.render.charts import display_width
from rlvitals.run import CANONICAL, Run


def test_text_lists_every_canonical_metric():
    text = render_vitals(rc.vitals_run(), "text", "en")
    lines = text.splitlines()
    for m in CANONICAL:
        assert any(ln.split()[:1] == [m] for ln in lines), m
    assert sum("not logged" in ln for ln in lines) == len(CANONICAL) - 3


def test_text_shows_what_was_read_and_what_was_not():
    text = render_vitals(rc.vitals_run(), "text", "en")
    reward = next(ln for ln in text.splitlines() if ln.startswith("  reward"))
    assert "train/reward" in reward and "200" in reward and reward.rstrip().endswith("2")  # 2 NaN
    assert "frac_reward_zero_std *" in text and "proxy: adv_std derived from frac_reward_zero_std" in text
    clip = next(ln for ln in text.splitlines() if ln.startswith("  clip_frac"))
    assert clip.rstrip().endswith("constant")
    assert "Lines skipped (18)" in text and "no metrics" in text and "17" in text
    assert "Keys seen but not read (2)" in text and "completions/clipped_text" in text
    assert "Other numeric keys kept (2)" in text and "train/epoch" in text
    assert "steps 120 → 200 (81 rows from line 160)" in text
    assert "steps inferred from logging_steps=10" in text


def test_text_zh_aligns():
    text = render_vitals(rc.vitals_run(), "text", "zh")
    rows = [ln for ln in text.splitlines() if ln.startswith("  ") and ln.split()[0] in CANONICAL]
    # the column after the source starts at the same display column on every logged row
    logged = [ln for ln in rows if "未记录" not in ln]
    ends = {display_width(ln[: ln.index(" 200 ") + 4]) for ln in logged}
    assert len(ends) == 1
    assert "跳过的行（18）" in text


def test_json_schema():
    obj = json.loads(render_vitals(rc.vitals_run(), "json"))
    assert obj["schema"] == "rlvitals.vitals/1"
    assert list(obj["metrics"]) == list(CANONICAL)
    assert obj["metrics"]["acc"] is None
    r = obj["metrics"]["reward"]
    assert {"source", "proxy", "note", "count", "first", "last", "min", "max", "nan", "constant"} <= set(r)
    assert r["nan"] == 2 and r["count"] == 200 and r["source"] == "train/reward"
    assert obj["metrics"]["clip_frac"]["constant"] is True
    assert obj["metrics"]["adv_std"]["proxy"] is True
    assert obj["steps"] == {"count": 200, "first": 1, "last": 200}
    assert len(obj["segments"]) == 2
    assert obj["skipped_lines"] == {"no metrics": 17, "truncated last line": 1}
    assert obj["unrecognized"]["completions/clipped_text"] == 3
    assert obj["extras"]["train/epoch"]["count"] == 200


def test_empty_and_all_nan_runs_do_not_crash():
    run = Run(name="empty", format="lesson")
    assert "no steps" in render_vitals(run, "text")
    obj = json.loads(render_vitals(run, "json"))
    assert obj["steps"]["count"] == 0 and obj["steps"]["first"] is None
    run = Run.from_arrays("nan", np.arange(3), {"kl": np.full(3, np.nan)})
    text = render_vitals(run, "text")
    kl = next(ln for ln in text.splitlines() if ln.startswith("  kl"))
    assert "— → —" in kl and kl.rstrip().endswith("3")  # no finite value: no start or end
    obj = json.loads(render_vitals(run, "json"), parse_constant=lambda c: pytest.fail(c))
    assert obj["metrics"]["kl"]["min"] is None and obj["metrics"]["kl"]["nan"] == 3


def test_unknown_vitals_format():
    with pytest.raises(ValueError):
        render_vitals(rc.vitals_run(), "markdown")


def test_steps_are_the_union_of_every_cadence():
    from rlvitals.run import Series

    run = Run.from_arrays("c", np.arange(1, 101), {"reward": np.linspace(0, 1, 100)})
    run.series["val_acc"] = Series("val_acc", np.arange(0, 105, 10), np.linspace(0.2, 0.5, 11), "val/acc")
    obj = json.loads(render_vitals(run, "json"))
    assert obj["steps"] == {"count": 101, "first": 0, "last": 100}  # step 0 only from val_acc
    assert obj["metrics"]["val_acc"]["first_step"] == 0 and obj["metrics"]["val_acc"]["count"] == 11
