"""Paths to the real fixtures (copied byte for byte from shared/fixtures/real; see fixtures/real/README.md).

A plain module, not conftest: several test folders have a conftest.py, so `import conftest` is ambiguous.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REAL = TESTS / "fixtures" / "real"
GOLDEN = TESTS / "golden"

REAL_LOGS = {
    "verl_healthy": REAL / "verl-data-Qwen2.5-0.5B-bsz256_2-prompt1024-resp512-0.567.log",
    "verl_plateau": REAL / "verl-econ-qwen7b-lora-grpo-700.log",
    "trl_collapse": REAL / "trl-grpo-qwen25vl3b-aokvqa-collapse.md",
    "rookworld_blowup": REAL / "rookworld-124m-grpo-chess-history.jsonl",
    "primerl_hacking": REAL / "primerl-dakota-qwen3-0.6b-wandb-history.csv",
    "trl_truncated": REAL / "trl-qwen35-9b-gsm8k-zero-reward-truncated.log",
}
