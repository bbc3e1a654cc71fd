"""prime-rl's pipe-separated console (trainer + orchestrator), both spellings, percents → fractions."""

from __future__ import annotations

import math

from dictlog_helpers import assert_same_series, round_trip, synthetic_run

from rlvitals.ingest import read_text, sniff_text

TRAINER = (
    "\x1b[32m12:00:01\x1b[0m SUCCESS Step {n} | Time: 41.20s | Loss: 0.0102 | Entropy: {e} | Mismatch KL: 0.0003 | "
    "Grad. Norm: 0.1900 | LR: 1.00e-06 | Throughput: 5300 tokens/s | MFU: 38.2% | Peak Mem.: 61.0/80.0 GiB (76.2%)"
)
ORCH = "Step {n} | Time: 12.31s | Reward: {r} | Seq. Length: 312.4 tokens/sample | Async Level: 1 | Max. Off-Policy Level: 0"


def test_trainer_and_orchestrator_lines_merge_on_the_step():
    text = (
        "\n".join(
            [
                TRAINER.format(n=1, e=0.44),
                ORCH.format(n=1, r=0.5),
                "INFO loading weights",
                TRAINER.format(n=2, e=0.43),
                ORCH.format(n=2, r="nan"),
            ]
        )
        + "\n"
    )
    assert sniff_text(text) == "primerl-console"
    run = read_text(text)
    assert list(run.series["entropy"].values) == [0.44, 0.43]
    assert run.series["reward"].values[0] == 0.5 and math.isnan(run.series["reward"].values[1])
    assert run.series["lr"].values[0] == 1e-06 and run.series["gnorm"].values[0] == 0.19
    assert run.extras["mfu"].values[0] == 0.382  # percent → fraction
    assert run.extras["peak_mem"].values[0] == 61.0
    assert "len" not in run.series and run.extras["seq_len"].values[0] == 312.4  # prompt + completion
    assert run.skipped == {}


def test_older_spelling_without_colons_and_unreadable_fields():
    text = (
        "Step 12 |   41.2s | Loss 0.0102 | Entropy 0.4410 | Trainable 200/256 (78.1%) | Truncation 3.1% | Status: ok\n"
    )
    run = read_text(text, "primerl-console")
    assert run.series["trunc"].values[0] == 0.031 and run.series["loss"].values[0] == 0.0102
    assert run.extras["time"].values[0] == 41.2 and run.extras["trainable"].values[0] == 200.0
    assert run.dropped == {"fields without a number": 1} and run.skipped == {}


def test_torchtune_lines_are_not_primerl():
    assert sniff_text("Step 1 | rewards:0.5 successes:0.2 \nStep 2 | rewards:0.6 successes:0.3 \n") == "torchtune"


def test_round_trip():
    """Written as prime-rl prints: {:.4f}, LR {:.2e}, Truncation a percent with one decimal."""
    run = synthetic_run()
    back = round_trip(run, "primerl-console")
    assert_same_series(run, back, ["reward", "entropy", "gnorm", "loss"], atol=0.5e-4 + 1e-12)
    assert_same_series(run, back, ["lr"], rtol=0.005)
    assert_same_series(run, back, ["trunc"], atol=0.5e-3 + 1e-12)
    assert "Grad. Norm: 0." in round_trip_text(run)


def round_trip_text(run) -> str:
    import io

    from rlvitals.ingest import write_run

    buf = io.StringIO()
    write_run(run, "primerl-console", buf)
    return buf.getvalue()


def test_four_decimals_leave_small_vitals_coarse_and_the_run_says_so():
    """prime-rl's `Grad. Norm: {:.4f}`: a grad norm near 0.005 keeps two digits; the reader says
    which vitals are that coarse and where the full values are."""
    lines = "".join(
        f"Step {n} | Time: 1.00s | Loss: 0.0102 | Entropy: 0.4410 | Grad. Norm: 0.00{50 + n % 7} | LR: 1.00e-06\n"
        for n in range(1, 21)
    )
    run = read_text(lines, "primerl-console")
    note = next(n for n in run.notes if "4 decimals" in n)
    assert "gnorm" in note and "metrics.jsonl" in note
    assert "entropy" not in note and "lr" not in note.split("keep")[0]


def test_older_trainer_prints_the_importance_ratio():
    text = "".join(
        f"Step {n} | Time: 2.00s | Loss: 0.0100 | Entropy: 0.4000 | Importance Ratio: 1.00{n} | "
        f"Grad. Norm: 0.1200 | LR: 1.00e-06 | Throughput: 900 tokens/s | MFU: 20.0%\n"
        for n in range(1, 4)
    )
    run = read_text(text, "primerl-console")
    assert list(run.series["ratio_mean"].values) == [1.001, 1.002, 1.003]
