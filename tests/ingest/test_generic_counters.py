"""A hand-rolled loop's counter alone on its line (`Epoch 3/50`), and metrics printed on both sides of
it: the generic reader's bare step lines and names that follow their step line."""

from __future__ import annotations

from rlvitals.ingest import read_text
from rlvitals.ingest.stepforms import bare_step, step_match

# a loop that prints each update's grad norm (two mini-batches) before its "Epoch N/M" line and the
# epoch's summary after it; an eval line between epochs
LOOP = """Loading tokenizer...
  [EVAL] before training: Test Reward (greedy): 0.04
  grad norm: 11.5
  grad norm: 12.5
Epoch 1/40
 \tLoss: 1.25
 \tReward: 0.125
  grad norm: 7.5
  grad norm: 8.5
Epoch 2/40
 \tLoss: 0.5
 \tReward: 0.25
  grad norm: 3.5
  grad norm: 4.5
Epoch 3/40
 \tLoss: 0.25
 \tReward: 0.375
"""


def test_a_counter_alone_on_its_line_out_of_its_total_is_a_step_line():
    for line, want in [
        ("Epoch 3/50", True),
        ("  Step 12 / 500 ", True),
        ("Step 2", False),  # a worked answer's heading
        ("Iteration 1/1", False),  # an outer loop
        ("Epoch 3/50 done", False),
    ]:
        assert bare_step(line, step_match(line)) is want, line


def test_names_printed_after_the_step_line_follow_it_those_before_lead():
    run = read_text(LOOP, name="loop")
    assert run.format == "generic"
    reward, gnorm = run.series["reward"], run.series["gnorm"]
    assert reward.steps.tolist() == [1, 2, 3] and reward.values.tolist() == [0.125, 0.25, 0.375]
    assert run.series["loss"].values.tolist() == [1.25, 0.5, 0.25]
    # the grad norms before each epoch line are its own; of two, the last stands and the other is counted
    assert gnorm.steps.tolist() == [1, 2, 3] and gnorm.values.tolist() == [12.5, 8.5, 4.5]
    assert run.skipped["value written again before its step line"] == 3


def test_without_its_counter_line_the_same_loop_is_read_row_by_row_and_loses_nothing():
    # no counter: a row starts where a name repeats, and the row number is the step -- every value
    # kept, in order (the two grad norms of an epoch are two rows); the counter is what pairs them
    text = "\n".join(x for x in LOOP.splitlines() if not x.startswith("Epoch"))
    run = read_text(text, format="generic", name="loop")
    assert run.meta.get("step_inferred") is True
    assert run.series["reward"].values.tolist() == [0.125, 0.25, 0.375]
    assert run.series["gnorm"].values.tolist() == [11.5, 12.5, 7.5, 8.5, 3.5, 4.5]
