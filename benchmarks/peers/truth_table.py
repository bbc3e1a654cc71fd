"""Write tests/fixtures/peers/truth.json: each peer file, the label its tool gives it, and that label
in rlvitals' vocabulary (verdict learning/cheating/dead/unstable, finding id or null).

The mapping is by hand, from each peer's own scenario name and expected detections (rldoctor
`simulate.EXPECTED_DETECTIONS`, rlprobe `synth.PATHOLOGIES` and the injector's docstrings, rlwatch's
replay-test `FIXTURES`), never from rlvitals' output.  Where the peer's scenario fits two of our
names (e.g. clip saturation with entropy falling with it), `verdicts`/`findings` list the accepted
ones, the first being the primary.  Run: python benchmarks/peers/truth_table.py (no peer needed);
it also refreshes the table in tests/fixtures/peers/README.md.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "peers" / "truth.json"

# name: (peer's expected detections, verdicts, findings, onset_step, note)
RLDOCTOR = {
    "healthy": ((), ["learning"], [None], None, ""),
    "entropy_collapse": (
        ("entropy_collapse",),
        ["dead"],
        ["entropy_collapse"],
        None,
        "entropy 0.62 → 0.006, pass rate plateaus at 0.45",
    ),
    "saturated_groups": (
        ("advantage_collapse",),
        ["learning"],
        ["data_too_easy"],
        None,
        "pass rate → 0.965: groups all-correct, no advantage left",
    ),
    "too_hard": (("advantage_collapse",), ["dead"], ["data_too_hard"], None, "pass rate flat at 3.5%"),
    "reward_hacking": (
        ("reward_hacking",),
        ["cheating"],
        ["reward_hacking"],
        None,
        "train pass rate → 0.93 while eval/accuracy peaks at a third of the run and falls",
    ),
    "length_hacking": (
        ("length_pathology",),
        ["cheating"],
        ["length_hacking"],
        None,
        "length ×3.6 while eval/accuracy stays ≈ 0.21–0.24",
    ),
    "truncation": (
        ("length_pathology",),
        ["dead", "learning"],
        ["truncation_starvation"],
        None,
        "length 380 → 1880, 42% of answers cut at the end while the pass rate still rises",
    ),
    "kl_blowup": (("kl_drift",), ["dead"], ["kl_blowup"], None, "kl 0.02 → 4.5"),
    "clip_saturation": (
        ("clip_saturation",),
        ["unstable", "dead"],
        ["lr_too_high", "entropy_collapse"],
        None,
        "clip fraction 0.15 → 0.59 with entropy falling 0.64 → 0.03",
    ),
    "grad_spikes": (
        ("gradient_pathology",),
        ["dead", "unstable"],
        ["numeric_instability", "lr_too_high"],
        None,
        "seven grad-norm spikes ×40–160 in an otherwise healthy run",
    ),
    "plateau": (("plateau",), ["learning"], ["plateau"], None, "pass rate saturates at 0.55 early"),
    "format_domination": (
        ("reward_composition",),
        ["cheating"],
        ["reward_hacking"],
        None,
        "the correctness term is 5% of the pass rate: the reward is the format term",
    ),
}

RLPROBE = {
    "healthy": ("", ["learning"], [None], None, "", ""),
    "kl_blowup": (
        "kl_blowup",
        ["dead", "unstable"],
        ["kl_blowup"],
        250,
        "kl_mean ×55 from the onset; the injector leaves the reward healthy (its correctness term holds "
        "after the onset, the KL still multiplying at the end): a run-away the goal has not paid for "
        "yet reads unstable, accepted beside dead",
        "",
    ),
    "entropy_collapse": (
        "entropy_collapse",
        ["dead"],
        ["entropy_collapse"],
        250,
        "entropy_mean ×e⁻⁵ from the onset, reward flat",
        "",
    ),
    "reward_hack_length": (
        "reward_hack_length",
        ["cheating"],
        ["length_hacking"],
        250,
        "completion length ×3.5 and the reward tracks it",
        "",
    ),
    "format_gaming": (
        "format_gaming",
        ["cheating"],
        ["reward_hacking"],
        250,
        "format component → 1.0 while correctness stays flat; the reward rises with format",
        "",
    ),
    "clip_saturation": ("clip_saturation", ["unstable"], ["lr_too_high"], 250, "clip_fraction 0.10 → 0.42", ""),
    "degenerate_groups": (
        "degenerate_groups",
        ["learning", "dead"],
        ["data_too_easy", "data_too_hard"],
        250,
        "zero-variance groups 5% → 75%, adv_std 1.0 → 0.3 (reward ≈ 0.7: mostly all-right)",
        "",
    ),
    "adv_collapse": (
        "adv_collapse",
        ["dead", "learning"],
        ["data_too_easy", "data_too_hard", "stalled"],
        250,
        "adv_std 1.0 → 0.02 held; the reward curve itself is left healthy by the injector",
        "",
    ),
    "value_divergence": (
        "value_divergence",
        ["unstable"],
        [None],
        250,
        "PPO value head: explained variance → −0.5",
        "a PPO value-head failure (value_loss, value_explained_variance): rlvitals has no value vitals",
    ),
    "grad_pathology": (
        "grad_pathology",
        ["dead", "unstable"],
        ["numeric_instability"],
        250,
        "grad norm ×50 on a tenth of the steps, NaN gradients counted (nan_count)",
        "",
    ),
    "truncation_starve": (
        "truncation_starve",
        ["dead", "learning"],
        ["truncation_starvation"],
        250,
        "truncation_rate 0.02 → 0.65 held, p95 length at the cap",
        "",
    ),
    "repetition_spiral": (
        "repetition_spiral",
        ["dead"],
        [None],
        250,
        "repetition_rate → 0.5",
        "repetition_rate is not in rlvitals' vocabulary; the entropy drift the injector adds "
        "(≈ 1.9 → 0.8) is far from a collapse",
    ),
    "reward_std_death": (
        "reward_std_death",
        ["learning", "dead"],
        ["data_too_easy", "plateau", "stalled"],
        250,
        "reward_std → 0.01, zero-variance groups → 0.9, the reward flat from the onset",
        "",
    ),
    "ref_drift_asymmetry": (
        "ref_drift_asymmetry",
        ["learning"],
        [None],
        250,
        "KL mass moves to the first token-position bucket",
        "token-position KL (kl_positional) is not in rlvitals' vocabulary",
    ),
    "throughput_rot": (
        "throughput_rot",
        ["learning"],
        [None],
        250,
        "step time ×2.5",
        "throughput / step time is not a training-health vital",
    ),
}

RLWATCH = {
    "healthy_run": ((), ["learning"], [None], None, "reward −1.5 → −0.5, everything else steady", ""),
    "entropy_collapse": (
        (("entropy_collapse", "warning"), ("entropy_collapse", "critical")),
        ["dead"],
        ["entropy_collapse"],
        200,
        "entropy 2.8 → 0.05 (no reward logged)",
        "",
    ),
    "kl_spike": (
        (("kl_explosion", "warning"), ("kl_explosion", "critical")),
        ["unstable", "learning"],
        ["outlier_step", "kl_blowup"],
        150,
        "one step of kl 5.0 on a flat 0.01, gone the next step: in rlvitals' vocabulary a single-step "
        "outlier (outlier_step); kl_blowup accepted as rlwatch names it",
        "",
    ),
    "reward_variance_explosion": (
        (("reward_hacking", "critical"),),
        ["cheating"],
        [None],
        120,
        "reward_std ×10 with no reward mean logged",
        "rlwatch's reward-hacking proxy is a jump of reward_std alone: no reward mean, no "
        "accuracy is logged, and reward spread is no vital in rlvitals' vocabulary",
    ),
    "loss_nan": ((("loss_nan", "critical"),), ["dead"], ["numeric_instability"], 100, "loss NaN from step 100", ""),
    "gradient_norm_spike": (
        (("gradient_norm_spike", "warning"), ("gradient_norm_spike", "critical")),
        ["unstable", "dead"],
        ["lr_too_high", "numeric_instability"],
        150,
        "grad norm 1 → 10 from step 150 and stays",
        "",
    ),
    "simulate_grpo_run": (
        ("entropy_collapse",),
        ["dead"],
        ["entropy_collapse"],
        280,
        "examples/simulate_grpo_run.py: entropy collapses from step 280, reward plateaus",
        "",
    ),
}


# general training-log doctors (loss / grad norm / lr only: benchmarks/peers/generate_general.py);
# name: (file, the peer's own check or scenario, verdicts, findings, onset, note, out of scope, info)
GENERAL = {
    "losslint 0.4.1": {
        "nan": ("nan.jsonl", "nan_inf", ["dead"], ["numeric_instability"], 30, "one loss NaN at step 30", "", False),
        "diverging": (
            "diverging.csv",
            "divergence",
            ["dead", "unstable"],
            ["numeric_instability"],
            None,
            "loss 1.0 → 2.17, rising from the start",
            "",
            False,
        ),
        "spike": (
            "spike.jsonl",
            "loss_spike",
            ["learning", "unstable"],
            ["numeric_instability"],
            15,
            "one loss point of 25 on a curve near 1, gone the next step: named as info",
            "",
            True,
        ),
        "healthy": ("healthy.csv", None, ["learning"], [None], None, "loss 2.0 → 0.06, eval loss falling", "", False),
        "trainer_state": (
            "trainer_state.json",
            "step_backtrack, overfit_onset",
            ["learning"],
            [None],
            None,
            "eval loss rising while the train loss falls; one logged step goes back",
            "overfitting on an eval loss and a mislogged step are not in rlvitals' vocabulary",
            False,
        ),
    },
    "gradsnitch 0.1.0": {
        "nan": ("nan.csv", "NaN", ["dead"], ["numeric_instability"], 250, "train_loss NaN from step 250", "", False),
        "diverge": (
            "diverge.csv",
            "divergence",
            ["dead", "unstable"],
            ["numeric_instability"],
            200,
            "train_loss climbs 0.01 a step from step 200 (0.87 → 2.87)",
            "",
            False,
        ),
        "spike": (
            "spike.csv",
            "gradient spike",
            ["learning", "unstable"],
            ["numeric_instability"],
            200,
            "one grad-norm point of 30 on a level of 1, the loss up 1.5 for 9 steps: named as info",
            "",
            True,
        ),
        "clean": ("clean.csv", None, ["learning"], [None], None, "train_loss 3.3 → 0.35", "", False),
    },
}


def entry(path, tool, label, expected, verdicts, findings, onset, note, oos=""):
    e = {
        "path": path,
        "tool": tool,
        "peer_label": label,
        "peer_expected": expected,
        "verdict": verdicts[0],
        "finding": findings[0],
        "in_scope": not oos,
        "why_out_of_scope": oos or None,
        "note": note,
    }
    if len(verdicts) > 1:
        e["verdicts"] = verdicts
    if len(findings) > 1:
        e["findings"] = findings
    if onset is not None:
        e["onset_step"] = onset
    if findings == ["plateau"]:
        e["info_truth"] = True  # plateau is an info-level note: named, with no warning
    return e


def readme_table(rows: list[dict]) -> None:
    """Refresh the truth table in the fixtures' README (between its header and the next blank line)."""
    readme = OUT.parent / "README.md"
    text = readme.read_text(encoding="utf-8")
    head = "| tool | scenario | files | peer expects | verdict | finding | onset | in scope |\n|---|---|---|---|---|---|---|---|\n"
    if head not in text:
        return
    lines, seen = [], set()
    for e in rows:
        key = (e["tool"], e["peer_label"])
        if key in seen:
            continue
        seen.add(key)
        files = ", ".join(f"`{r['path'].split('/', 1)[1]}`" for r in rows if (r["tool"], r["peer_label"]) == key)
        expects = ", ".join(x if isinstance(x, str) else f"{x[0]} ({x[1]})" for x in e["peer_expected"]) or "nothing"
        verdicts = " / ".join(e.get("verdicts", [e["verdict"]]))
        findings = " / ".join(f or "none" for f in e.get("findings", [e["finding"]]))
        scope = "yes" if e["in_scope"] else "no: " + e["why_out_of_scope"]
        lines.append(
            f"| {e['tool'].split()[0]} | `{e['peer_label']}` | {files} | {expects} | {verdicts} | "
            f"{findings} | {e.get('onset_step', '')} | {scope} |"
        )
    i = text.index(head) + len(head)
    j = text.index("\n\n", i)
    readme.write_text(text[:i] + "\n".join(lines) + text[j:], encoding="utf-8")


def main() -> None:
    rows = []
    for name, (exp, v, f, onset, note) in RLDOCTOR.items():
        for ext in ("jsonl", "json", "csv"):
            rows.append(entry(f"rldoctor/{name}.{ext}", "rldoctor 0.2.0", name, list(exp), v, f, onset, note))
    for name, (exp, v, f, onset, note, oos) in RLPROBE.items():
        rows.append(
            entry(f"rlprobe/{name}/steps.jsonl", "rlprobe 0.1.0", name, [exp] if exp else [], v, f, onset, note, oos)
        )
    for name, (exp, v, f, onset, note, oos) in RLWATCH.items():
        rows.append(
            entry(
                f"rlwatch/{name}/metrics.db",
                "rlwatch 0.5.1",
                name,
                [list(x) if isinstance(x, tuple) else x for x in exp],
                v,
                f,
                onset,
                note,
                oos,
            )
        )
    for tool, scenarios in GENERAL.items():
        for name, (file, peer, v, f, onset, note, oos, info) in scenarios.items():
            e = entry(f"{tool.split()[0]}/{file}", tool, name, [peer] if peer else [], v, f, onset, note, oos)
            if info:
                e["info_truth"] = True  # a one-step spike the run recovered from: named, no warning
            rows.append(e)
    OUT.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    readme_table(rows)
    print(f"{len(rows)} files, {sum(r['in_scope'] for r in rows)} in scope → {OUT}")


if __name__ == "__main__":
    main()
