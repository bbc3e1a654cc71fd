"""One alert per finding, held for two checks, escalation, the words, JSON, --exec and --webhook."""

from __future__ import annotations

import json
import math

import pytest

from rlvitals.diagnose.model import Action, Diagnosis, Finding, RuledOut
from rlvitals.watch.alerts import Alert, AlertTracker, alert_payload, format_alert, jsonable
from rlvitals.watch.sinks import post_webhook, run_exec


def diag(*findings):
    return Diagnosis("dead" if findings else "learning", tuple(findings), {}, {})


def finding(fid="entropy_collapse", sev="warning", onset=40, **kw):
    return Finding(fid, sev, onset, **kw)


def test_blip_never_alerts():
    tr = AlertTracker(persist=2, persist_steps=0)
    for step, d in enumerate([diag(finding()), diag(), diag(finding()), diag()]):
        assert tr.update(d, step) == []
    assert tr.alerted == {}


def test_one_alert_per_finding_then_escalation_once():
    tr = AlertTracker(persist=2, persist_steps=0, confirm=1)
    assert tr.update(diag(finding()), 10) == []
    first = tr.update(diag(finding()), 11)
    assert [(a.id, a.severity, a.step, a.escalated) for a in first] == [("entropy_collapse", "warning", 11, False)]
    assert tr.update(diag(finding()), 12) == []
    # critical must hold for two checks too before it escalates
    assert tr.update(diag(finding(sev="critical")), 13) == []
    esc = tr.update(diag(finding(sev="critical")), 14)
    assert [(a.severity, a.escalated) for a in esc] == [("critical", True)]
    # back to warning and critical again: nothing new, it was already said
    for step in range(15, 20):
        assert tr.update(diag(finding(sev="critical" if step % 2 else "warning")), step) == []


def test_info_findings_do_not_alert_and_order_is_worst_first():
    tr = AlertTracker(persist=1, confirm=1)
    got = tr.update(
        diag(
            finding("batch_noise", "info"), finding("kl_blowup", "warning"), finding("numeric_instability", "critical")
        ),
        5,
    )
    assert [a.id for a in got] == ["numeric_instability", "kl_blowup"]


def test_a_finding_must_hold_over_steps_not_just_checks():
    tr = AlertTracker(persist=2, persist_steps=5)
    # checks at steps 40, 41, 42 (a fast cadence): present, but only over 2 steps
    assert [tr.update(diag(finding()), s) for s in (40, 41, 42)] == [[], [], []]
    tr.update(diag(), 43)  # gone at 43: the streak restarts
    assert [len(tr.update(diag(finding()), s)) for s in (44, 47, 49)] == [0, 0, 1]


def test_young_runs_alert_only_what_one_step_proves():
    tr = AlertTracker(persist=1, min_steps=20)
    both = diag(finding("stalled", "critical"), finding("numeric_instability", "critical"))
    assert [a.id for a in tr.update(both, 12, n_steps=12)] == ["numeric_instability"]
    # stalled is sighted first at 20 (young before): a critical that one step cannot prove is said
    # when the diagnosis names it again, two steps on
    assert [a.id for a in tr.update(both, 20, n_steps=20)] == []
    assert [a.id for a in tr.update(both, 22, n_steps=22)] == ["stalled"]


def test_confirmed_diagnosis_needs_no_second_check():
    tr = AlertTracker(persist=2, persist_steps=5)
    assert len(tr.update(diag(finding()), 300, confirmed=True)) == 1


def test_reset_forgets_alerts():
    tr = AlertTracker()
    assert [len(tr.update(diag(finding()), s)) for s in (1, 3)] == [0, 1]
    tr.reset()
    # the sightings are forgotten too: the new run needs its own second sighting
    assert [len(tr.update(diag(finding()), s)) for s in (1, 3)] == [0, 1]


def test_persist_must_be_positive():
    with pytest.raises(ValueError):
        AlertTracker(persist=0)


def rich_finding():
    return finding(
        evidence={"entropy_start": 1.842, "entropy_end": 0.0091, "reward_slope": float("nan")},
        ruled_out=(RuledOut("sync_failure", "ratio_mean", 1.0, "ratio_flat"),),
        missing=("samples",),
        action=Action(
            "actor_rollout_ref.rollout.temperature", "raise", "1.0", "entropy_collapse", "DAPO arXiv 2503.14476"
        ),
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_alert_text_says_what_since_when_evidence_and_knob(lang):
    a = Alert(rich_finding(), "warning", 57)
    text = format_alert(a, lang)
    assert "57" in text and "40" in text  # current step and onset
    assert "entropy_collapse" in text
    assert "entropy_end=0.0091" in text and "entropy_start=1.842" in text
    from rlvitals.i18n import t

    assert t("finding.sync_failure.title", lang) in text and "ratio_mean = 1" in text
    assert "actor_rollout_ref.rollout.temperature" in text and "DAPO arXiv 2503.14476" in text
    if lang == "zh":
        assert "证据" in text and "排除" in text and "调高" in text
    else:
        assert "evidence" in text and "ruled out" in text and "raise" in text


def test_payload_is_valid_json_with_nan_as_null():
    a = Alert(rich_finding(), "critical", 57, escalated=True, run="r", source="/x/train.log")
    p = alert_payload(a)
    text = json.dumps(p, allow_nan=False)  # would raise on NaN
    back = json.loads(text)
    assert back["schema"] == "rlvitals.alert/1"
    assert back["finding"] == "entropy_collapse" and back["severity"] == "critical"
    assert back["verdict"] == "dead" and back["onset_step"] == 40 and back["step"] == 57
    assert back["evidence"]["reward_slope"] is None
    assert back["ruled_out"][0]["metric"] == "ratio_mean"
    assert back["action"]["typical"] == "1.0"


def test_jsonable_numpy_and_inf():
    np = pytest.importorskip("numpy")
    out = jsonable({"a": np.float64(0.5), "b": np.int64(3), "c": (math.inf, -math.inf), "d": np.array([1.0])})
    assert out["a"] == 0.5 and out["b"] == 3 and out["c"] == [None, None]
    json.dumps(out, allow_nan=False)


def test_exec_gets_the_finding_in_its_environment(tmp_path):
    out = tmp_path / "env.txt"
    a = Alert(rich_finding(), "warning", 57)
    code, err = run_exec(
        f'printf "%s|%s|%s|%s" "$RLVITALS_FINDING" "$RLVITALS_SEVERITY" "$RLVITALS_STEP" "$RLVITALS_JSON" > {out}',
        a,
        alert_payload(a),
    )
    assert (code, err) == (0, "")
    fid, sev, step, js = out.read_text().split("|", 3)
    assert (fid, sev, step) == ("entropy_collapse", "warning", "57")
    assert json.loads(js)["finding"] == "entropy_collapse"


def test_exec_failure_reports_status():
    a = Alert(rich_finding(), "warning", 1)
    assert run_exec("exit 7", a, {}) == (7, "")
    code, err = run_exec("sleep 5", a, {}, timeout=0.2)
    assert code is None and "timed out" in err


def test_webhook_posts_json_to_a_local_server(local_server):
    url, received = local_server
    a = Alert(rich_finding(), "warning", 57)
    assert post_webhook(url + "/ok", alert_payload(a)) == ""
    ctype, body = received[0]
    assert ctype.startswith("application/json")
    assert body["finding"] == "entropy_collapse" and body["step"] == 57
    assert post_webhook(url + "/fail", alert_payload(a)) == "HTTP 500"


def test_webhook_errors_are_one_line_not_exceptions():
    assert post_webhook("ftp://x", {}) != ""
    # a closed port on localhost: connection refused, reported, not raised
    err = post_webhook("http://127.0.0.1:9/", {}, deadline=1)
    assert err and "\n" not in err


def test_alerts_of_one_check_follow_the_diagnosis_order_not_confidence():
    """Two warnings named at the same check: the first alert is the one `diagnose` ranks first (its
    precedence table), even when the other carries a higher confidence."""
    tr = AlertTracker(persist=1, min_steps=0, confirm=1)
    got = tr.update(
        diag(finding("truncation_starvation", confidence=0.6), finding("length_hacking", confidence=0.9)), 30
    )
    assert [a.id for a in got] == ["truncation_starvation", "length_hacking"]


def test_a_warning_alerts_at_its_second_sighting_a_nan_at_its_first():
    tr = AlertTracker()
    # a one-check blip (named at step 30, withdrawn at 31) is not news
    assert tr.update(diag(finding()), 30) == [] and tr.update(diag(), 31) == []
    assert tr.unconfirmed is False and tr.alerted == {}
    # named again, two steps after the first sighting (not necessarily in a row): alerted
    got = tr.update(diag(finding()), 32)
    assert [(a.id, a.severity, a.step) for a in got] == [("entropy_collapse", "warning", 32)]
    # two sightings one step apart are not yet "again on more data"
    tr2 = AlertTracker()
    assert [len(tr2.update(diag(finding("kl_blowup")), s)) for s in (40, 41, 42)] == [0, 0, 1]
    # what one step proves (a NaN) is said at once, and so is a warning's escalation to critical
    tr3 = AlertTracker()
    got = tr3.update(diag(finding("numeric_instability", "critical")), 5)
    assert [(a.id, a.severity) for a in got] == [("numeric_instability", "critical")]
    assert tr2.update(diag(finding("kl_blowup", "critical")), 43)[0].escalated


def test_a_critical_named_once_and_withdrawn_is_not_news():
    # the RL-loop numeric run in the lesson format: one prefix (step 31) reads reward_hacking
    # critical while the format score is being learned, the next does not; the overflow comes at 105
    tr = AlertTracker()
    assert tr.update(diag(finding("reward_hacking", "critical")), 31) == []
    assert tr.update(diag(), 33) == [] and tr.alerted == {}
    # a critical that holds is said at its second sighting, two steps on
    assert tr.update(diag(finding("kl_blowup", "critical")), 40) == []
    got = tr.update(diag(finding("kl_blowup", "critical")), 42)
    assert [(a.id, a.severity, a.step) for a in got] == [("kl_blowup", "critical", 42)]


def test_a_final_diagnosis_needs_no_second_sighting():
    tr = AlertTracker()
    assert tr.update(diag(finding()), 10) == [] and tr.unconfirmed
    assert len(tr.update(diag(finding()), 10, confirmed=True)) == 1


def test_confirm_must_be_positive():
    with pytest.raises(ValueError):
        AlertTracker(confirm=0)
