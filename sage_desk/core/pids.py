"""Whether a process on this host is still running: the one check run ownership and workers share."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True while `pid` runs here; a zombie (killed, not yet reaped) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    try:  # a killed process its parent has not reaped yet still answers os.kill: it is a zombie, not a player
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return True  # no /proc (macOS): a caller with a heartbeat lets its age decide
