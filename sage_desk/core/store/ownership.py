"""The run-ownership part of `Store` (issue 34, 38; the rules in owners.py): who plays a run, claims,
heartbeats, take-over, and the repair of a run left finished without transcripts."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, or_, select, tuple_
from sqlalchemy.orm import Session

from sage_desk.core.store import owners
from sage_desk.core.store.conversations import _LIST_ORDER, _conversation_record, _to_play
from sage_desk.core.store.records import ConversationRecord, ConversationStatus
from sage_desk.core.store.retry import retry_transient
from sage_desk.core.store.schema import ConversationRow, RunOwnerRow

CLAIM_BATCH = 8  # conversations a joined run's process claims at a time (claim_conversations)


class Ownership:
    """`Store`'s ownership methods (mixed in: they use its sessions)."""

    if TYPE_CHECKING:  # what Store gives the mixin

        def _writing(self) -> AbstractContextManager[Session]: ...

        def _reading(self) -> AbstractContextManager[Session]: ...

        def get_run(self, run_id: str) -> Any: ...

    def claim_run(self, run_id: str, join: bool = False) -> int:
        """Register this process as playing `run_id`; returns its owner id. A live owner makes it a
        `RunBusyError` naming that process (unless `join`); dead owners' conversations are handed back."""

        def write() -> int:
            with self._writing() as session:
                return owners.register(session, run_id, join=join)

        return retry_transient(write, "run owner")

    def beat_owner(self, owner_id: int) -> bool:
        """Refresh an owner's heartbeat; False when another process took the run over."""

        def write() -> bool:
            with self._writing() as session:
                return owners.beat(session, owner_id)

        return retry_transient(write, "heartbeat", window_s=owners.BEAT_RETRY_S)

    def release_owner(self, owner_id: int) -> None:
        """This process stops playing: its owner row goes, its conversations are handed back."""

        def write() -> None:
            with self._writing() as session:
                owners.release(session, owner_id)

        retry_transient(write, "run owner")

    def repair_run(self, run_id: str, fix: bool = True) -> list[str]:
        """Finished conversations of `run_id` without a transcript; with `fix`, set back to pending for a resume.
        Refused (`RunBusyError`) while a live process plays the run."""
        self.get_run(run_id)

        def write() -> list[str]:
            with self._writing() as session:
                busy = [o for o in owners.owners(session, run_id) if owners.is_alive(o)]
                if busy and fix:
                    raise owners.RunBusyError(f"run {run_id} is being played by {busy[0].describe()}; repair it once it ends")
                found = owners.transcriptless(session, run_id)
                if fix and found:
                    owners.reopen(session, found)
                return found

        return retry_transient(write, "repair")

    def claim_conversations(
        self,
        run_id: str,
        owner_id: int,
        statuses: Sequence[str],
        sources: Sequence[str] = (),
        n: int = CLAIM_BATCH,
        after: tuple[Any, ...] | None = None,
    ) -> tuple[list[ConversationRecord], int]:
        """Claim up to `n` of the run's conversations to play (in `statuses`, or unjudged by `sources`) that
        nobody holds; when none is free, with how many other live owners still hold (0 when some were claimed).

        `after` is the list-order key (case, agent, repeat, id) of the last conversation claimed: a
        pass over the run walks its list index once, instead of from the start at every claim. An
        errored conversation is claimed only if it errored before this owner started: one that
        errored in another process while this one plays is left to a later resume, not played again.
        Dead owners' conversations are handed back at the start of each pass."""
        to_play = _to_play(run_id, statuses, sources)
        if to_play is None:
            return [], 0

        def write() -> tuple[list[ConversationRecord], int]:
            with self._writing() as session:
                since = session.scalar(select(RunOwnerRow.started_at).where(RunOwnerRow.id == owner_id))
                if since is None:  # taken over: the heartbeat says so and stops the run
                    return [], 0
                where = and_(
                    to_play,
                    or_(
                        ConversationRow.status != ConversationStatus.ERRORED.value,
                        ConversationRow.finished_at.is_(None),
                        ConversationRow.finished_at < since,
                    ),
                )
                if after is None:  # a pass starts: take back what dead owners held (register did, at the first)
                    owners.release_dead(session, run_id)
                ahead = where if after is None else and_(where, tuple_(*_LIST_ORDER) > tuple_(*after))
                rows = owners.claim(session, owner_id, ahead, _LIST_ORDER, n)
                if rows:  # the count is only needed to know whether to wait
                    return [_conversation_record(r) for r in rows], 0
                return [], owners.held_elsewhere(session, run_id, owner_id, where)

        return retry_transient(write, "claim")

    def run_owners(self, run_id: str, alive_only: bool = True) -> list[owners.Owner]:
        """Who is playing a run (only the live owners, unless `alive_only` is False)."""
        with self._reading() as session:
            found = owners.owners(session, run_id)
        return [o for o in found if owners.is_alive(o)] if alive_only else found
