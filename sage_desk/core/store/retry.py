"""Transient database failures, told apart from lasting ones, and retried within a time window.

Another process holding SQLite's write lock (a second run, a backup, `sqlite3` left in a
transaction) makes a write wait `busy_timeout` and then fail with "database is locked"; a
PostgreSQL server restarting drops connections. Neither says anything about the run, so a run's
writes are tried again for up to `RETRY_WINDOW_S`. A full disk, a read-only file or a constraint
violation fails at once: retrying would only hide it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_WINDOW_S = 120.0  # a write lock held longer than this ends the run, resumable
_TRANSIENT_TEXT = (
    "database is locked",
    "database is busy",
    "database table is locked",  # SQLite: another writer
    "could not serialize access",
    "deadlock detected",  # PostgreSQL: a conflict that retrying resolves
    "server closed the connection",
    "connection refused",
    "terminating connection",  # a server restarting
)


def is_transient(exc: BaseException) -> bool:
    """Whether a database failure may pass by itself (a lock held elsewhere, a dropped connection)."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if not isinstance(exc, OperationalError):
        return False
    text = str(exc.orig).lower()
    return any(part in text for part in _TRANSIENT_TEXT)


def retry_transient(
    action: Callable[[], T], what: str = "write", window_s: float | None = None, sleep: Callable[[float], None] = time.sleep
) -> T:
    """`action()`, again after each transient failure until `window_s` has passed; then its last error."""
    window = RETRY_WINDOW_S if window_s is None else window_s
    deadline = time.monotonic() + window
    delay = 0.05
    while True:
        try:
            return action()
        except Exception as exc:
            if not is_transient(exc) or time.monotonic() + delay > deadline:
                raise
            log.warning("the database refused a %s for now (%s); trying again in %.2fs", what, _reason(exc), delay)
            sleep(delay)
            delay = min(delay * 2, 2.0)


def _reason(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)
    return str(orig if orig is not None else exc).splitlines()[0][:200]
