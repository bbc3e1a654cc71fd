"""A step the optimizer skipped is not the numbers breaking down.

A loss scaler (torch.amp's GradScaler, DeepSpeed fp16) meets an overflowing gradient, logs a
non-finite grad norm, skips the step and lowers its scale: the next steps are finite and ordinary.
One or two such steps (nan_skips) with every other curve finite are named as info; a NaN that
stays, spreads to the loss, or keeps coming back is numeric_instability at critical.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from simruns import simulate_rl

from rlvitals.diagnose import diagnose
from rlvitals.run import Series


def _with_gnorm(run, values):
    g = run.series["gnorm"]
    return replace(run, series={**run.series, "gnorm": Series("gnorm", g.steps, values, g.source)})


def _healthy_with_nan_at(*at: int):
    run = simulate_rl("healthy", seed=1000, steps=200)
    v = run.series["gnorm"].values.astype(float).copy()
    for i in at:
        v[i] = np.nan
    return _with_gnorm(run, v)


def test_one_skipped_step_in_a_healthy_run_is_a_note():
    d = diagnose(_healthy_with_nan_at(90))
    ni = [f for f in d.findings if f.id == "numeric_instability"]
    assert d.verdict == "learning", [(f.id, f.severity) for f in d.findings]
    assert ni and ni[0].severity == "info" and ni[0].evidence["gnorm_skipped_steps"] == 1


def test_a_nan_that_stays_or_keeps_coming_is_critical():
    for run in (_healthy_with_nan_at(*range(150, 200)), _healthy_with_nan_at(40, 80, 120, 160)):
        d = diagnose(run)
        assert d.verdict == "dead" and d.findings[0].id == "numeric_instability"
        assert d.findings[0].severity == "critical"


def test_the_note_says_the_step_was_skipped_in_both_languages():
    from rlvitals.render.words import finding_summary

    f = next(f for f in diagnose(_healthy_with_nan_at(90)).findings if f.id == "numeric_instability")
    assert "skipped" in finding_summary(f, "en") and f"step {f.onset_step}" in finding_summary(f, "en")
    assert "跳过" in finding_summary(f, "zh")


def _with_nan(run, metric: str, at):
    s = run.series[metric]
    v = s.values.astype(float).copy()
    v[list(at)] = np.nan
    return replace(run, series={**run.series, metric: Series(metric, s.steps, v, s.source)})


def test_a_curve_that_could_not_be_measured_at_a_step_is_a_note():
    # a KL averaged over no tokens at one logged step, every curve finite before and after it: the
    # weights did not break (they would leave every later point NaN), so the verdict stays
    run = _with_nan(simulate_rl("healthy", seed=1000, steps=200), "kl", [90])
    d = diagnose(run)
    ni = next(f for f in d.findings if f.id == "numeric_instability")
    assert d.verdict == "learning" and ni.severity == "info" and ni.evidence["kl_unmeasured_steps"] == 1
    from rlvitals.render.words import finding_summary

    assert "could not be measured" in finding_summary(ni, "en") and "没测出来" in finding_summary(ni, "zh")


def test_a_nan_in_two_curves_or_one_that_stays_is_still_critical():
    healthy = simulate_rl("healthy", seed=1000, steps=200)
    for run in (
        _with_nan(_with_nan(healthy, "kl", [90]), "entropy", [90]),  # two curves at once
        _with_nan(healthy, "kl", range(150, 200)),  # a KL NaN from then on
    ):
        d = diagnose(run)
        assert d.verdict == "dead" and d.findings[0].id == "numeric_instability", [f.id for f in d.findings]
        assert d.findings[0].severity == "critical"


def test_a_nan_loss_at_one_step_is_still_critical():
    # the loss is what the update is made of: a NaN there is the update going NaN, not a curve that
    # failed to measure, even when the next points are finite again
    from rlvitals.run import Run

    s = np.arange(40)
    loss = 1.8 * np.exp(-s / 20.0)
    loss[25] = np.nan
    d = diagnose(Run.from_arrays("general", s, {"loss": loss}))
    assert d.verdict == "dead" and d.findings[0].id == "numeric_instability"
    assert d.findings[0].severity == "critical"


# -- updates the optimizer refused: a flag or count of skipped updates --------------------------------


def _with_skips(run, hit):
    """`run` with an `update_skipped` flag logged at each of its gnorm steps: 1 where `hit` says so."""
    steps = run.series["gnorm"].steps
    flags = np.asarray([1.0 if hit(i) else 0.0 for i in range(steps.size)])
    return replace(run, extras={**run.extras, "train/update_skipped": Series("train/update_skipped", steps, flags)})


def test_an_optimizer_that_skips_most_updates_is_dead_from_the_first_skip(tmp_path):
    # a hand-written loop's JSON Lines: the flag is a JSON boolean, the grad norm huge and steady, and
    # nothing else moves: every update refused, so the weights never moved
    from rlvitals import read

    rng = np.random.default_rng(5)
    lines = [
        f'{{"step": {i}, "grad_norm": {3400 + 150 * rng.standard_normal():.1f}, "update_skipped": {"true" if i >= 20 else "false"}, "learning_rate": 1e-06}}'
        for i in range(120)
    ]
    path = tmp_path / "loop.jsonl"
    path.write_text("\n".join(lines) + "\n")
    d = diagnose(read(path))
    top = d.findings[0]
    assert d.verdict == "dead" and top.id == "numeric_instability" and top.severity == "critical"
    assert top.evidence["reading"] == "skipped" and top.onset_step == 20
    assert top.evidence["skipped_points"] == top.evidence["skip_window"] == 60
    from rlvitals.render.words import finding_summary

    assert "skipped its update at 60 of the last 60" in finding_summary(top, "en")
    assert "跳过了更新" in finding_summary(top, "zh")


def test_a_loss_scaler_finding_its_scale_or_a_rare_skip_says_nothing():
    healthy = simulate_rl("healthy", seed=1000, steps=200)
    for hit in (lambda i: i < 14, lambda i: i % 10 == 3):  # the scale's search at the start; an odd overflow
        d = diagnose(_with_skips(healthy, hit))
        assert d.verdict == "learning" and not [f for f in d.findings if f.id == "numeric_instability"]


def test_skips_that_took_over_late_are_named_where_their_stretch_began():
    healthy = simulate_rl("healthy", seed=1000, steps=200)
    d = diagnose(_with_skips(healthy, lambda i: i >= 120))
    ni = next(f for f in d.findings if f.id == "numeric_instability")
    assert ni.severity == "critical" and ni.evidence["reading"] == "skipped"
    assert ni.onset_step == int(healthy.series["gnorm"].steps[120])
