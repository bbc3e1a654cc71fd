"""Watch a live run and raise the alarm the moment it goes wrong.

    rlvitals watch train.log --until critical --exec 'scancel $SLURM_JOB_ID'

    from rlvitals import Monitor            # inside a training loop
    mon = Monitor(); mon.log(metrics, step); mon.close()

Parts: `follow` (poll a growing / rotated / truncated file), `alerts` (one alert per finding,
held for two checks; text, JSON, `--exec`, `--webhook`), `session` (`Watcher`: lines → the same
`diagnose` as `rlvitals diagnose` → alerts; `watch_file`: the command), `monitor` (`Monitor`).
The TRL callback lives in `rlvitals.integrations.trl`.
"""

from __future__ import annotations

from .alerts import Alert, AlertTracker, alert_payload, format_alert
from .follow import Follower, FollowEvent
from .monitor import Monitor
from .session import Watcher, watch_file

__all__ = [
           "Alert",
           "AlertTracker",
           "FollowEvent",
           "Follower",
           "Monitor",
           "Watcher",
           "alert_payload",
           "format_alert",
           "watch_file",
]
