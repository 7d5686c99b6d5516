"""The conversation-reading part of `Store`: filtered lists, one conversation, and what a run has
left to play or judge, a keyset page at a time in the Review list's order."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, and_, func, or_, select, tuple_
from sqlalchemy.orm import Session

from sage_desk.core.engine.status import UNFINISHED
from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.records import ConversationRecord, ConversationStatus
from sage_desk.core.store.schema import ConversationRow, VerdictRow, table_of

CONVERSATION_FILTERS = frozenset(
    {"agent", "bucket", "conflict", "status", "case_id", "domain", "repeat", "termination", "source_id"}
)
JUDGE_FAILED = "judge"  # the criterion of the one unscored verdict scoring/hooks.py stores when a judge's call failed
PLAY_PAGE = 500  # conversations a run reads at a time (conversations_to_play)


class ConversationReads:
    """`Store`'s conversation reads (mixed in: they use its sessions)."""

    if TYPE_CHECKING:  # what Store gives the mixin

        def _reading(self) -> AbstractContextManager[Session]: ...

    def conversations(self, run_id: str | None = None, **filters: Any) -> list[ConversationRecord]:
        """Conversations, optionally of one run, filtered by column (a list value means any of)."""
        unknown = set(filters) - CONVERSATION_FILTERS
        if unknown:
            raise StoreError(f"cannot filter conversations by {sorted(unknown)}; filters: {sorted(CONVERSATION_FILTERS)}")
        query = select(ConversationRow)
        if run_id is not None:
            query = query.where(ConversationRow.run_id == run_id)
        for name, value in filters.items():
            column = getattr(ConversationRow, name)
            if isinstance(value, list | tuple | set | frozenset):
                query = query.where(column.in_([str(v) if name != "repeat" else v for v in value]))
            else:
                query = query.where(column == (value if name == "repeat" else str(value)))
        query = query.order_by(ConversationRow.case_id, ConversationRow.agent, ConversationRow.repeat, ConversationRow.id)
        with self._reading() as session:
            return [_conversation_record(r) for r in session.scalars(query)]

    def conversation(self, conversation_id: str) -> ConversationRecord:
        """One conversation; StoreError when it does not exist."""
        with self._reading() as session:
            row = session.get(ConversationRow, conversation_id)
            if row is None:
                raise StoreError(f"no conversation {conversation_id!r} in {self}")
            return _conversation_record(row)

    def unfinished_conversations(self, run_id: str) -> list[ConversationRecord]:
        """Pending, running (cut off) and cancelled conversations (a resume also retries errored ones)."""
        return self.conversations(run_id, status=[s.value for s in UNFINISHED])

    def unjudged_conversations(self, run_id: str, sources: Sequence[str]) -> list[ConversationRecord]:
        """Finished conversations of a run missing the verdicts of any of `sources` (rules, judge:<model> ...).

        A run records a conversation's finish with all its verdicts, so these come from runs
        recorded before it did, from judges added to the run's configuration since, or from a
        judge whose calls failed (its only verdict is the `JUDGE_FAILED` marker): a resume
        judges them again.
        """
        wanted = sorted(set(sources))
        if not wanted:
            return []
        query = select(ConversationRow).where(ConversationRow.run_id == run_id, _unjudged(wanted)).order_by(*_LIST_ORDER)
        with self._reading() as session:
            return [_conversation_record(r) for r in session.scalars(query)]

    def conversations_to_play(
        self, run_id: str, statuses: Sequence[str], sources: Sequence[str] = (), page: int = PLAY_PAGE
    ) -> Iterator[list[ConversationRecord]]:
        """A run's conversations in `statuses`, and its finished ones missing verdicts of `sources`, a
        page at a time in the Review list's order: a run of any size is read in flat memory.

        Pages are keyset pages on the list's index (0008), so each is one short walk of it; a
        conversation played between two pages is behind the next one and changes nothing.
        """
        where = _to_play(run_id, statuses, sources)
        if where is None:
            return
        after: tuple[Any, ...] | None = None
        while True:
            query = select(ConversationRow).where(where)
            if after is not None:
                query = query.where(tuple_(*_LIST_ORDER) > tuple_(*after))
            with self._reading() as session:
                rows = [_conversation_record(r) for r in session.scalars(query.order_by(*_LIST_ORDER).limit(page))]
            if rows:
                yield rows
            if len(rows) < page:
                return
            last = rows[-1]
            after = (last.case_id, last.agent, last.repeat, last.id)

    def count_to_play(self, run_id: str, statuses: Sequence[str], sources: Sequence[str] = ()) -> int:
        """How many conversations `conversations_to_play` gives, in one query."""
        where = _to_play(run_id, statuses, sources)
        if where is None:
            return 0
        with self._reading() as session:
            return int(session.scalar(select(func.count()).select_from(ConversationRow).where(where)) or 0)


_LIST_ORDER = (ConversationRow.case_id, ConversationRow.agent, ConversationRow.repeat, ConversationRow.id)


def _unjudged(wanted: Sequence[str]) -> ColumnElement[bool]:
    """Finished, and missing the verdicts of one of `wanted` (a failed judge's marker does not count)."""
    verdicts = table_of(VerdictRow)
    failed = and_(verdicts.c.criterion == JUDGE_FAILED, verdicts.c.unscored.is_(True))
    # One index probe per source (does it have a verdict?) rather than counting a conversation's
    # verdicts of every source: a third of the time on a 50,000-conversation run.
    lacks = [
        ~select(verdicts.c.id)
        .where(verdicts.c.conversation_id == ConversationRow.id, verdicts.c.source == source, ~failed)
        .exists()
        for source in wanted
    ]
    return and_(ConversationRow.status == ConversationStatus.FINISHED.value, or_(*lacks))


def _to_play(run_id: str, statuses: Sequence[str], sources: Sequence[str]) -> ColumnElement[bool] | None:
    """A run's conversations in `statuses` or unjudged by `sources`; None when that is nothing."""
    wanted = sorted(set(sources))
    conditions: list[ColumnElement[bool]] = [ConversationRow.status.in_([str(s) for s in statuses])] if statuses else []
    if wanted:
        conditions.append(_unjudged(wanted))
    return and_(ConversationRow.run_id == run_id, or_(*conditions)) if conditions else None


def _conversation_record(row: ConversationRow) -> ConversationRecord:
    return ConversationRecord.model_validate(row, from_attributes=True)
