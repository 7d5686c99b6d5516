"""Verdicts, human overrides and judge-calibration examples: the review half of the store.

Functions here run inside a session the `Store` opened; they return records, never rows.
Overrides are append-only. An override matches verdicts by (conversation, criterion, source),
so it survives a re-judge by the same source. Which label counts when several reviewers labelled
one verdict (each reviewer's latest; an adjudication; agreement, else a dispute left out) is the
rule in `consensus.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, delete, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import settled, summaries
from sage_desk.core.store.consensus import KINDS, EffectiveLabel, Label, resolve
from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.records import JudgeExample, OverrideRecord, StoredVerdict
from sage_desk.core.store.schema import ConversationRow, JudgeExampleRow, OverrideRow, VerdictRow, table_of, utcnow

_VERDICT_FIELDS = tuple(f for f in Verdict.model_fields if f not in ("conversation_id", "source"))


@dataclass(frozen=True)
class NewOverride:
    """What a reviewer asked for, before the store adds the judge's original value."""

    conversation_id: str
    criterion: str
    source: str
    human_passed: bool | None = None
    human_score: float | None = None
    human_value: str | None = None
    reason: str = ""
    author: str = ""
    verdict_id: int | None = None
    kind: str = "label"
    """`label` (a reviewer's) or `adjudication` (the final word where reviewers disagree)."""
    tags: tuple[str, ...] = ()
    """Failure-mode tags from the domain's `failure_modes` list."""
    corrected_reply: str | None = None
    """What the agent should have said."""


def save_verdicts(connection: Connection, conversation_id: str, source: str, verdicts: list[Verdict]) -> None:
    """Replace the conversation's verdicts from `source`; `source` wins over each verdict's own.

    Core statements on a connection: verdicts are written for every conversation as it finishes.
    """
    conversations = table_of(ConversationRow)
    if connection.execute(select(conversations.c.id).where(conversations.c.id == conversation_id)).first() is None:
        raise StoreError(f"no conversation {conversation_id!r}: cannot save verdicts")
    table = table_of(VerdictRow)
    connection.execute(delete(table).where(table.c.conversation_id == conversation_id, table.c.source == source))
    now = utcnow()
    fields = set(_VERDICT_FIELDS)
    rows = [
        {**v.model_dump(include=fields), "conversation_id": conversation_id, "source": source, "created_at": now}
        for v in verdicts
    ]
    if rows:
        connection.execute(insert(table), rows)
    summaries.refresh(connection, [conversation_id])
    if source == "rules":  # re-run rules (a reviewer set a slot): labels already given still settle their verdicts
        settled.settle(connection, [conversation_id])


def save_verdicts_many(connection: Connection, source: str, verdicts: dict[str, list[Verdict]]) -> None:
    """`save_verdicts` for many conversations: one check, one delete and one insert."""
    ids = list(verdicts)
    conversations = table_of(ConversationRow)
    known = set(connection.execute(select(conversations.c.id).where(conversations.c.id.in_(ids))).scalars())
    missing = [cid for cid in ids if cid not in known]
    if missing:
        raise StoreError(f"no conversation {missing[0]!r}: cannot save verdicts")
    table = table_of(VerdictRow)
    connection.execute(delete(table).where(table.c.conversation_id.in_(ids), table.c.source == source))
    now = utcnow()
    fields = set(_VERDICT_FIELDS)
    rows = [
        {**v.model_dump(include=fields), "conversation_id": cid, "source": source, "created_at": now}
        for cid, found in verdicts.items()
        for v in found
    ]
    if rows:
        connection.execute(insert(table), rows)
    summaries.refresh(connection, ids)


def _verdict_query(conversation_id: str | None, run_id: str | None, source: str | None) -> Select[Any]:
    # Plain rows, not ORM instances: a run's verdicts are tens of thousands, and the instances'
    # bookkeeping took half the time of reading them (the Leaderboard's first view of a run).
    query = select(*table_of(VerdictRow).columns)
    if conversation_id is not None:
        query = query.where(VerdictRow.conversation_id == conversation_id)
    if run_id is not None:
        query = query.join(ConversationRow, ConversationRow.id == VerdictRow.conversation_id).where(
            ConversationRow.run_id == run_id
        )
    if source is not None:
        query = query.where(VerdictRow.source == source)
    return query.order_by(VerdictRow.conversation_id, VerdictRow.id)


def _stored(row: Any, **extra: Any) -> StoredVerdict:
    values = {f: getattr(row, f) for f in _VERDICT_FIELDS}
    return StoredVerdict(
        id=row.id, created_at=row.created_at, conversation_id=row.conversation_id, source=row.source, **values, **extra
    )


def verdicts(session: Session, conversation_id: str | None, run_id: str | None, source: str | None) -> list[StoredVerdict]:
    """Verdicts as given, ordered by conversation then insertion."""
    return [_stored(r) for r in session.execute(_verdict_query(conversation_id, run_id, source))]


def effective_verdicts(
    session: Session, conversation_id: str | None, run_id: str | None, source: str | None
) -> list[StoredVerdict]:
    """Verdicts with each one's effective human label applied (consensus.py): fields the human set replace the judge's."""
    rows = session.execute(_verdict_query(conversation_id, run_id, source)).all()
    latest = _latest_overrides(session, {r.conversation_id for r in rows})
    return [_apply(r, latest.get((r.conversation_id, r.criterion, r.source))) for r in rows]


@dataclass(frozen=True)
class VerdictMark:
    """What metrics read of a verdict, after its latest override: pass/fail and score."""

    conversation_id: str
    criterion: str
    source: str
    passed: bool | None
    score: float | None
    unscored: bool


def effective_marks(session: Session, run_id: str) -> list[VerdictMark]:
    """`effective_verdicts` of a run reduced to what metrics need, without building full verdicts."""
    table = table_of(VerdictRow)
    query = (
        select(table.c.conversation_id, table.c.criterion, table.c.source, table.c.passed, table.c.score, table.c.unscored)
        .join(table_of(ConversationRow), table_of(ConversationRow).c.id == table.c.conversation_id)
        .where(table_of(ConversationRow).c.run_id == run_id)
        .order_by(table.c.conversation_id, table.c.id)
    )
    rows = session.execute(query).all()
    latest = _latest_overrides(session, {r.conversation_id for r in rows})
    marks = []
    for r in rows:
        override = latest.get((r.conversation_id, r.criterion, r.source))
        passed, score, unscored = summaries.overridden(r.passed, r.score, bool(r.unscored), override)
        marks.append(VerdictMark(r.conversation_id, r.criterion, r.source, passed, score, unscored))
    return marks


def _latest_overrides(session: Session, conversation_ids: set[str]) -> dict[tuple[str, str, str], EffectiveLabel]:
    """(conversation, criterion, source) -> the effective human label; disputed verdicts keep the machine's value."""
    found: list[Label] = []  # override rows
    ids = sorted(conversation_ids)
    table = table_of(OverrideRow)
    for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
        found += session.execute(select(*table.columns).where(table.c.conversation_id.in_(ids[start : start + 500]))).all()
    return resolve(found).labels


def _apply(row: Any, override: EffectiveLabel | None) -> StoredVerdict:
    if override is None:
        return _stored(row)
    verdict = _stored(
        row,
        override_id=override.id,
        original_passed=row.passed,
        original_score=row.score,
        human_value=override.human_value,
    )
    passed, score, unscored = summaries.overridden(row.passed, row.score, bool(row.unscored), override)
    return verdict.model_copy(update={"passed": passed, "score": score, "unscored": unscored})


def add_override(session: Session, new: NewOverride) -> int:
    """Append one override, keeping the overridden verdict's value; returns its id."""
    _check_override(new)
    if session.get(ConversationRow, new.conversation_id) is None:
        raise StoreError(f"no conversation {new.conversation_id!r}: cannot override its verdict")
    row = OverrideRow(**_override_values(new, _overridden_verdict(session, new)))
    session.add(row)
    session.flush()
    summaries.refresh(session.connection(), [new.conversation_id])
    settled.settle(session.connection(), [new.conversation_id])
    return row.id


def add_overrides(session: Session, news: Sequence[NewOverride]) -> list[int]:
    """Append many overrides (a label import): a few queries and one insert, however many; ids in order."""
    for new in news:
        _check_override(new)
    ids = sorted({n.conversation_id for n in news})
    known: set[str] = set()
    latest: dict[tuple[str, str, str], Any] = {}
    table = table_of(VerdictRow)
    for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
        chunk = ids[start : start + 500]
        known.update(session.scalars(select(ConversationRow.id).where(ConversationRow.id.in_(chunk))))
        query = (
            select(table.c.id, table.c.conversation_id, table.c.criterion, table.c.source, table.c.passed, table.c.score)
            .where(table.c.conversation_id.in_(chunk))
            .order_by(table.c.id)
        )
        for v in session.execute(query):
            latest[(v.conversation_id, v.criterion, v.source)] = v  # ascending ids: the newest verdict wins
    rows = []
    for new in news:
        if new.conversation_id not in known:
            raise StoreError(f"no conversation {new.conversation_id!r}: cannot override its verdict")
        if new.verdict_id is not None:
            verdict = _overridden_verdict(session, new)
        else:
            verdict = latest.get((new.conversation_id, new.criterion, new.source))
        rows.append(_override_values(new, verdict))
    if not rows:
        return []
    statement = insert(OverrideRow).returning(OverrideRow.id, sort_by_parameter_order=True)
    added = list(session.scalars(statement, rows))
    summaries.refresh(session.connection(), ids)
    settled.settle(session.connection(), ids)
    return added


def _check_override(new: NewOverride) -> None:
    if new.human_passed is None and new.human_score is None and new.human_value is None:
        raise StoreError("an override needs a human value: passed, score or value")
    if new.human_score is not None and not 0.0 <= new.human_score <= 1.0:
        raise StoreError(f"a human score must be within 0-1, got {new.human_score}")
    if new.kind not in KINDS:
        raise StoreError(f"an override is a {' or an '.join(KINDS)}, not {new.kind!r}")
    if new.kind != "label" and not new.reason.strip():
        raise StoreError("an adjudication needs a reason")


def _override_values(new: NewOverride, verdict: Any) -> dict[str, Any]:
    """The override row: the human's value, and the verdict's value it overrides (kept for agreement)."""
    return {
        "verdict_id": verdict.id if verdict is not None else None,
        "conversation_id": new.conversation_id,
        "criterion": new.criterion,
        "source": new.source,
        "original_passed": verdict.passed if verdict is not None else None,
        "original_score": verdict.score if verdict is not None else None,
        "human_passed": new.human_passed,
        "human_score": new.human_score,
        "human_value": new.human_value,
        "reason": new.reason,
        "author": new.author,
        "created_at": utcnow(),
        "kind": new.kind,
        "tags": list(new.tags) or None,
        "corrected_reply": new.corrected_reply or None,
    }


def _overridden_verdict(session: Session, new: NewOverride) -> VerdictRow | None:
    if new.verdict_id is not None:
        verdict = session.get(VerdictRow, new.verdict_id)
        if verdict is None or (verdict.conversation_id, verdict.criterion, verdict.source) != (
            new.conversation_id,
            new.criterion,
            new.source,
        ):
            raise StoreError(f"verdict {new.verdict_id} is not {new.source} {new.criterion!r} of {new.conversation_id!r}")
        return verdict
    query = (
        select(VerdictRow)
        .where(
            VerdictRow.conversation_id == new.conversation_id,
            VerdictRow.criterion == new.criterion,
            VerdictRow.source == new.source,
        )
        .order_by(VerdictRow.id.desc())
        .limit(1)
    )
    return session.scalar(query)


def overrides(session: Session, run_id: str | None, conversation_id: str | None) -> list[OverrideRecord]:
    """Overrides oldest first."""
    query = select(OverrideRow)
    if conversation_id is not None:
        query = query.where(OverrideRow.conversation_id == conversation_id)
    if run_id is not None:
        query = query.join(ConversationRow, ConversationRow.id == OverrideRow.conversation_id).where(
            ConversationRow.run_id == run_id
        )
    return [OverrideRecord.model_validate(r, from_attributes=True) for r in session.scalars(query.order_by(OverrideRow.id))]


def add_judge_examples(session: Session, examples: list[JudgeExample]) -> list[int]:
    """Insert calibration examples; returns their ids in order."""
    rows = [JudgeExampleRow(**e.model_dump(exclude={"id", "created_at"}), created_at=e.created_at or utcnow()) for e in examples]
    session.add_all(rows)
    session.flush()
    return [r.id for r in rows]


def judge_examples(session: Session, domain: str, criterion: str | None, split: str | None) -> list[JudgeExample]:
    """Calibration examples of a domain, optionally one criterion and one split."""
    query = select(JudgeExampleRow).where(JudgeExampleRow.domain == domain)
    if criterion is not None:
        query = query.where(JudgeExampleRow.criterion == criterion)
    if split is not None:
        query = query.where(JudgeExampleRow.split == split)
    return [JudgeExample.model_validate(r, from_attributes=True) for r in session.scalars(query.order_by(JudgeExampleRow.id))]
