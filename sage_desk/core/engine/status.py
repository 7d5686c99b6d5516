"""Where runs and conversations stand: the engine plays by these, the store keeps them.

They sit in the engine (below the store) so the runner can tell what to play without importing
the store; `store.records` re-exports them for everyone above.
"""

from __future__ import annotations

from enum import StrEnum


class RunStatus(StrEnum):
    """Where a run stands."""

    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"  # the process died or the window closed; resumable
    FAILED = "failed"


class ConversationStatus(StrEnum):
    """Where one conversation stands."""

    PENDING = "pending"
    RUNNING = "running"
    FINISHED = "finished"
    ERRORED = "errored"  # excluded from denominators, never silently dropped
    CANCELLED = "cancelled"


UNFINISHED = (ConversationStatus.PENDING, ConversationStatus.RUNNING, ConversationStatus.CANCELLED)
"""What a resume re-runs: never started, cut off mid-way, or stopped by a cancel."""
RESUMED = (*UNFINISHED, ConversationStatus.ERRORED)
"""What a run plays (again) when it is executed."""
