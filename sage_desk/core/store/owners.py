"""Run ownership (issue 34, DESIGN.md section 13): which processes are playing a run.

A process that plays a run registers one `run_owners` row (host, pid, started, heartbeat) and
beats it every `HEARTBEAT_S` seconds from a thread of its own (engine/heartbeat.py); it removes the row when it stops.
A second `run --resume` (or the Runs screen's Resume) of a run with a live owner is refused with
one line naming the owner. An owner is dead when its heartbeat is older than `STALE_AFTER_S`, or
at once when it ran on this host and its pid is gone (a kill -9): its row is removed and the
conversations it held are handed back, in the same transaction that registers the new owner.

A conversation records the owner that started it (`owner_id`); a run's writes for it are applied
only while it is still that owner's (store/batch.py), so a process whose run was taken over after
its heartbeat stopped can no longer finish, or add to, a conversation another one now plays.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, delete, func, select, update
from sqlalchemy.orm import Session

from sage_desk.core.engine.heartbeat import HEARTBEAT_S, STALE_AFTER_S
from sage_desk.core.pids import pid_alive
from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.schema import ConversationRow, EventRow, RunOwnerRow, RunRow, VerdictRow, utcnow

log = logging.getLogger(__name__)

BEAT_RETRY_S = HEARTBEAT_S  # a heartbeat the database refuses for longer is skipped: the next one comes anyway


class RunBusyError(StoreError):
    """The run is being played by a live process."""


@dataclass(frozen=True)
class Owner:
    """One process playing a run."""

    id: int
    run_id: str
    host: str
    pid: int
    started_at: datetime
    heartbeat_at: datetime

    def describe(self) -> str:
        """ "process P on host H since T"."""
        return f"process {self.pid} on host {self.host} since {self.started_at:%Y-%m-%d %H:%M:%S} UTC"


def this_host() -> str:
    """The name this machine goes by in `run_owners`."""
    return socket.gethostname() or "localhost"


def _owner(row: RunOwnerRow) -> Owner:
    return Owner(row.id, row.run_id, row.host, row.pid, row.started_at, row.heartbeat_at)


_HELD: set[int] = set()  # owner ids this process registered and has not released


def is_alive(owner: Owner, now: datetime | None = None, stale_after_s: float | None = None) -> bool:
    """Whether `owner` is still playing: a recent heartbeat, and (on this host) a live process."""
    if owner.host == this_host():
        if owner.pid == os.getpid():
            return owner.id in _HELD  # ours, unless a release this process tried failed (a locked database)
        if not pid_alive(owner.pid):
            return False
    limit = STALE_AFTER_S if stale_after_s is None else stale_after_s
    return (now or utcnow()) - owner.heartbeat_at <= timedelta(seconds=limit)


def owners(session: Session, run_id: str) -> list[Owner]:
    """Every registered owner of a run (alive or not), oldest first."""
    query = select(RunOwnerRow).where(RunOwnerRow.run_id == run_id).order_by(RunOwnerRow.started_at, RunOwnerRow.id)
    return [_owner(r) for r in session.scalars(query)]


def register(session: Session, run_id: str, join: bool = False, stale_after_s: float | None = None) -> int:
    """Register this process as an owner of `run_id` (in the caller's write transaction); returns its id.

    Dead owners are removed and their conversations handed back. Unless `join`, a live owner
    makes this a `RunBusyError` naming it.
    """
    if session.get(RunRow, run_id) is None:
        raise StoreError(f"no run {run_id!r}")
    now = utcnow()
    for owner in owners(session, run_id):
        if is_alive(owner, now, stale_after_s):
            if not join:
                raise RunBusyError(
                    f"run {run_id} is being played by {owner.describe()}; add --join to play it "
                    f"alongside, or wait (a stopped process is taken over {STALE_AFTER_S:g} s after its "
                    "last heartbeat)"
                )
            continue
        log.warning("run %s: %s stopped beating; taking over its conversations", run_id, owner.describe())
        release(session, owner.id)
    row = RunOwnerRow(run_id=run_id, host=this_host(), pid=os.getpid(), started_at=now, heartbeat_at=now)
    session.add(row)
    session.flush()
    _HELD.add(row.id)
    return row.id


def release(session: Session, owner_id: int) -> None:
    """Remove an owner and hand back the conversations it holds."""
    _HELD.discard(owner_id)
    session.execute(update(ConversationRow).where(ConversationRow.owner_id == owner_id).values(owner_id=None))
    session.execute(delete(RunOwnerRow).where(RunOwnerRow.id == owner_id))


def beat(session: Session, owner_id: int) -> bool:
    """Refresh an owner's heartbeat; False when its row is gone (another process took the run over)."""
    result = session.execute(update(RunOwnerRow).where(RunOwnerRow.id == owner_id).values(heartbeat_at=utcnow()))
    return bool(result.rowcount)  # type: ignore[attr-defined]


def transcriptless(session: Session, run_id: str) -> list[str]:
    """Finished conversations of a run without a single event: what a run played twice at once could leave."""
    has_events = select(EventRow.id).where(EventRow.conversation_id == ConversationRow.id).exists()
    query = (
        select(ConversationRow.id)
        .where(ConversationRow.run_id == run_id, ConversationRow.status == "finished", ~has_events)
        .order_by(ConversationRow.id)
    )
    return list(session.scalars(query))


def reopen(session: Session, conversation_ids: list[str]) -> None:
    """Set conversations back to pending, without verdicts, so a resume plays them again."""
    from sage_desk.core.store import summaries

    for start in range(0, len(conversation_ids), 500):
        chunk = conversation_ids[start : start + 500]
        session.execute(delete(VerdictRow).where(VerdictRow.conversation_id.in_(chunk)))
        session.execute(
            update(ConversationRow)
            .where(ConversationRow.id.in_(chunk))
            .values(status="pending", termination=None, finished_at=None, owner_id=None)
        )
        summaries.refresh(session.connection(), chunk)


def release_dead(session: Session, run_id: str, stale_after_s: float | None = None) -> list[Owner]:
    """Remove the run's owners that stopped beating and hand their conversations back; the removed ones."""
    dead = [o for o in owners(session, run_id) if not is_alive(o, stale_after_s=stale_after_s)]
    for owner in dead:
        log.warning("run %s: %s stopped beating; its conversations are handed back", run_id, owner.describe())
        release(session, owner.id)
    return dead


def claim(session: Session, owner_id: int, where: ColumnElement[bool], order: tuple[Any, ...], n: int) -> list[ConversationRow]:
    """Claim up to `n` conversations matching `where` that nobody holds, in `order`, for `owner_id`; their rows.

    On PostgreSQL the rows are picked `FOR UPDATE SKIP LOCKED`: processes claiming at the same
    time each get other rows and never wait on each other. SQLite has one writer at a time.
    """
    query = (
        select(ConversationRow)
        .where(where, ConversationRow.owner_id.is_(None))
        .order_by(*order)
        .limit(n)
        .with_for_update(skip_locked=True, of=ConversationRow)
    )
    rows = list(session.scalars(query))
    if rows:
        session.execute(
            update(ConversationRow).where(ConversationRow.id.in_([r.id for r in rows])).values(owner_id=owner_id),
            execution_options={"synchronize_session": False},
        )
    return rows


def held_elsewhere(session: Session, run_id: str, owner_id: int, where: ColumnElement[bool]) -> int:
    """How many conversations matching `where` other owners hold (still to be played by them)."""
    query = (
        select(func.count())
        .select_from(ConversationRow)
        .where(
            where, ConversationRow.run_id == run_id, ConversationRow.owner_id.is_not(None), ConversationRow.owner_id != owner_id
        )
    )
    return int(session.scalar(query) or 0)
