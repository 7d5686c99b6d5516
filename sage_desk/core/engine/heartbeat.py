"""A run owner's heartbeat (store/owners.py): a thread that says "still playing" every few seconds."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

STALE_AFTER_S = float(os.environ.get("SAGE_DESK_OWNER_TIMEOUT_S", "30") or 30)
"""A run owner whose heartbeat is older than this is taken for dead (store/owners.py)."""
HEARTBEAT_S = min(5.0, STALE_AFTER_S / 3)


class Heartbeat:
    """A thread that beats an owner's heartbeat until stopped (a busy event loop cannot starve it)."""

    def __init__(self, beat_once: Callable[[], bool], interval_s: float = HEARTBEAT_S) -> None:
        self._beat = beat_once
        self._interval = interval_s
        self._stop = threading.Event()
        self.lost = threading.Event()  # set when the owner's row is gone: the run was taken over
        self._thread = threading.Thread(target=self._loop, daemon=True, name="sage-desk-heartbeat")

    def start(self) -> Heartbeat:
        """Begin beating."""
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                if not self._beat():
                    self.lost.set()
                    return
            except Exception as exc:  # a locked or unreachable database: beat again next time
                log.warning("could not refresh the run's heartbeat: %s", str(exc).splitlines()[0][:200])

    def stop(self) -> None:
        """Stop beating (waits for a beat in progress)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
