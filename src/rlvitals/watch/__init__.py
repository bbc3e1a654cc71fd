"""Watch a live run and raise the alarm the moment it goes wrong.

    rlvitals watch train.log --until critical --exec 'scancel $SLURM_JOB_ID'

    from rlvitals import Monitor            # inside a training loop
    mon = Monitor(); mon.log(metrics, step); mon.close()

Parts: `follow` (poll a growing / rotated / rewritten / unreadable file), `schedule` (when to
check, shared by both), `alerts` (one alert per finding; text, JSON), `sinks` (`--exec`,
`--webhook`, off the loop), `session` (`Watcher`: lines → the same `diagnose` as
`rlvitals diagnose` → alerts), `command` (`watch_file` and its `WatchConfig`: the command), `history` (Monitor's
bounded memory), `monitor` (`Monitor`).
The TRL callback lives in `rlvitals.integrations.trl`.
"""

from __future__ import annotations

from .alerts import Alert, AlertTracker, alert_payload, format_alert
from .command import WatchConfig, watch_file
from .follow import Follower, FollowEvent
from .monitor import Monitor
from .schedule import Scheduler
from .session import Watcher

__all__ = [
    "Alert",
    "AlertTracker",
    "FollowEvent",
    "Follower",
    "Monitor",
    "Scheduler",
    "WatchConfig",
    "Watcher",
    "alert_payload",
    "format_alert",
    "watch_file",
]
