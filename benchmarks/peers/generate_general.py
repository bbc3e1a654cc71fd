"""Regenerate tests/fixtures/peers/{losslint,gradsnitch}/: the scenario logs two general training-log
doctors produce with their own code (loss / grad norm / lr only, no RL vitals).

Never run in CI (it needs the peers installed).  Run it with a scratch venv's Python:

    python3 -m venv /tmp/peers-venv && /tmp/peers-venv/bin/pip install losslint==0.4.1 gradsnitch==0.1.0
    /tmp/peers-venv/bin/python benchmarks/peers/generate_general.py

- losslint: `losslint.demo.write_demo_logs(dir)` (the generator behind its demo): `nan.jsonl`,
  `diverging.csv`, `spike.jsonl`, `healthy.csv`, `trainer_state.json` (the TensorBoard demo is left
  out: it needs tensorboard).
- gradsnitch: `gradsnitch._synthetic(kind)` (the generator behind `python -m gradsnitch`, 400 steps,
  seed 0), written as CSV with its own column names (`step, train_loss, grad_norm, lr, val_loss,
  update_ratio`) for the kinds whose failure is numeric or an explosion: `nan`, `spike`, `diverge`,
  and `clean` (a NaN written as `nan`: pandas would leave the cell empty, which reads as "not
  logged").

Nothing here renames a key.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "peers"
GRADSNITCH_KINDS = ("nan", "spike", "diverge", "clean")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    from losslint.demo import DEMO_FILES, write_demo_logs

    lint_dir = args.out / "losslint"
    lint_dir.mkdir(parents=True, exist_ok=True)
    for path in write_demo_logs(lint_dir):
        if path.name not in DEMO_FILES:  # the TensorBoard demo, when tensorboard is installed
            path.unlink()
    import gradsnitch

    snitch_dir = args.out / "gradsnitch"
    snitch_dir.mkdir(parents=True, exist_ok=True)
    for kind in GRADSNITCH_KINDS:
        gradsnitch._synthetic(kind).to_csv(snitch_dir / f"{kind}.csv", index=False, float_format="%.6g", na_rep="nan")
    print(f"wrote {lint_dir} and {snitch_dir}")


if __name__ == "__main__":
    main()
