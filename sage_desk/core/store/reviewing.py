"""The review part of `Store` (the rules in reviews.py, browse.py, summaries.py): verdicts as given
and with human overrides applied, overrides, the Review list, and judge calibration examples."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import browse, reviews, summaries
from sage_desk.core.store.records import JudgeExample, MarkedConversation, OverrideRecord, StoredVerdict
from sage_desk.core.store.retry import retry_transient
from sage_desk.core.store.schema import VerdictRow


class Reviewing:
    """`Store`'s verdict, override, Review-list and calibration-example methods (mixed in: they use its sessions)."""

    if TYPE_CHECKING:  # what Store gives the mixin
        _engine: Engine

        def _writing(self) -> AbstractContextManager[Session]: ...

        def _reading(self) -> AbstractContextManager[Session]: ...

    def save_verdicts_many(self, source: str, verdicts: dict[str, list[Verdict]]) -> None:
        """`save_verdicts` for several conversations in one transaction."""

        def write() -> None:
            with self._engine.begin() as connection:
                reviews.save_verdicts_many(connection, source, verdicts)

        retry_transient(write, "verdicts")

    def save_verdicts(self, conversation_id: str, source: str, verdicts: Iterable[Verdict]) -> None:
        """Replace this conversation's verdicts from `source` (rules, judge:<model> ...)."""
        found = list(verdicts)

        def write() -> None:
            with self._engine.begin() as connection:
                reviews.save_verdicts(connection, conversation_id, source, found)

        retry_transient(write, "verdicts")

    def verdicts(
        self, conversation_id: str | None = None, run_id: str | None = None, source: str | None = None
    ) -> list[StoredVerdict]:
        """Verdicts as their sources gave them, filtered by conversation, run and source."""
        with self._reading() as session:
            return reviews.verdicts(session, conversation_id, run_id, source)

    def verdicts_many(self, conversation_ids: Sequence[str], criteria: Sequence[str] | None = None) -> list[StoredVerdict]:
        """Verdicts as given of several conversations (and only these criteria), a few queries however many."""
        ids, found = sorted(set(conversation_ids)), []
        with self._reading() as session:
            for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
                query = select(VerdictRow).where(VerdictRow.conversation_id.in_(ids[start : start + 500]))
                if criteria is not None:
                    query = query.where(VerdictRow.criterion.in_(sorted(set(criteria))))
                rows = session.scalars(query.order_by(VerdictRow.conversation_id, VerdictRow.id))
                found += [StoredVerdict.model_validate(r, from_attributes=True) for r in rows]
        return found

    def effective_verdicts(
        self, conversation_id: str | None = None, run_id: str | None = None, source: str | None = None
    ) -> list[StoredVerdict]:
        """Verdicts with the latest human override applied; the judge's value kept in `original_*`."""
        with self._reading() as session:
            return reviews.effective_verdicts(session, conversation_id, run_id, source)

    def conversation_marks(self, run_id: str) -> list[MarkedConversation]:
        """A run's finished and errored conversations with their effective marks (JSON), as metrics read them."""
        with self._reading() as session:
            return summaries.conversation_marks(session, run_id)

    def effective_marks(self, run_id: str) -> list[reviews.VerdictMark]:
        """A run's verdicts as metrics read them (pass, score, unscored), human overrides applied."""
        with self._reading() as session:
            return reviews.effective_marks(session, run_id)

    def add_override(
        self,
        conversation_id: str,
        criterion: str,
        source: str,
        human_passed: bool | None = None,
        human_score: float | None = None,
        reason: str = "",
        author: str = "",
        verdict_id: int | None = None,
        human_value: str | None = None,
    ) -> int:
        """Append a human override (never updates or deletes one); returns its id."""
        override = reviews.NewOverride(
            conversation_id, criterion, source, human_passed, human_score, human_value, reason, author, verdict_id
        )
        with self._writing() as session:
            return reviews.add_override(session, override)

    def add_overrides(self, overrides: Sequence[reviews.NewOverride]) -> list[int]:
        """Append several overrides in one transaction: all of them, or none when one is refused."""
        with self._writing() as session:
            return reviews.add_overrides(session, overrides)

    def overrides(self, run_id: str | None = None, conversation_id: str | None = None) -> list[OverrideRecord]:
        """Every override, oldest first, of a run and/or a conversation."""
        with self._reading() as session:
            return reviews.overrides(session, run_id, conversation_id)

    def conversation_table(
        self,
        run_id: str,
        conversation_ids: Sequence[str] | None = None,
        after: browse.ListKey | None = None,
        limit: int | None = None,
    ) -> browse.ConversationTable:
        """The Review list of a run (or of some of its conversations, or the page after `after`): rows
        with verdict summaries, one query, in the list's order."""
        with self._reading() as session:
            return browse.conversation_table(session, run_id, conversation_ids, after, limit)

    def search_transcripts(self, run_id: str, text: str) -> set[str]:
        """Conversations of a run whose customer or agent messages contain `text`."""
        with self._reading() as session:
            return browse.search_transcripts(session, run_id, text)

    def add_judge_examples(self, examples: Iterable[JudgeExample | JsonObject]) -> list[int]:
        """Store labelled calibration examples; returns their ids."""
        with self._writing() as session:
            return reviews.add_judge_examples(session, [JudgeExample.model_validate(e) for e in examples])

    def judge_examples(self, domain: str, criterion: str | None = None, split: str | None = None) -> list[JudgeExample]:
        """Calibration examples of a domain (and criterion, and split), oldest first."""
        with self._reading() as session:
            return reviews.judge_examples(session, domain, criterion, split)
