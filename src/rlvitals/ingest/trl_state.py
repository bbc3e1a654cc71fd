"""HF `trainer_state.json` (`log_history`, each row with its `step`): TRL's reliable offline record.

The reader and writer live with the TRL console reader in `trl.py`; this module only registers the
format (the registry takes one `FORMAT` per module).
"""

from __future__ import annotations

from .trl import STATE_FORMAT as FORMAT

__all__ = ["FORMAT"]
