"""Review queues: a named, ordered selection of conversations, its reviewers, and where each stands.

A queue holds conversations (from one or more runs) in the order they should be reviewed, the
reviewers assigned to it (none: anyone may review), how many reviewers each item needs, and a
blind flag (a reviewer sees neither the judge's value nor other reviewers' labels of an item
before labelling it; `reveals` says when). Progress is read from the overrides themselves: an
item is labelled by a reviewer when they wrote a label on one of its criteria (the queue's
criteria, when it names some), so a label made in the app, by `sage-desk label` or by another
process on the same database counts the same. Skips, flags and claims are append-only marks.

`next_item(store, queue, reviewer)` hands out the next item: the reviewer's own claimed item not
yet labelled, else the first in order that the reviewer has neither labelled nor skipped and
that still needs reviews, counting other reviewers' live claims (`CLAIM_MINUTES`) as reviews
under way, so two people working one queue are not given the same item needlessly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.store.consensus import LABEL
from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.retry import retry_transient
from sage_desk.core.store.schema import (
    ConversationRow,
    OverrideRow,
    QueueItemRow,
    QueueMarkRow,
    QueueReviewerRow,
    QueueRow,
    utcnow,
)

if TYPE_CHECKING:
    from sage_desk.core.store.store import Store

SKIP, FLAG, UNFLAG, CLAIM = "skip", "flag", "unflag", "claim"
MARKS = (SKIP, FLAG, UNFLAG, CLAIM)
CLAIM_MINUTES = 30
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class QueueRecord:
    """A queue's settings and size."""

    name: str
    created_at: datetime
    created_by: str
    reviews_per_item: int
    blind: bool
    criteria: list[str]
    selection: JsonObject
    reviewers: list[str]
    size: int

    def to_dict(self) -> JsonObject:
        return {
            "name": self.name,
            "created_at": self.created_at.isoformat(),
            "created_by": self.created_by,
            "reviews_per_item": self.reviews_per_item,
            "blind": self.blind,
            "criteria": self.criteria,
            "selection": self.selection,
            "reviewers": self.reviewers,
            "size": self.size,
        }


@dataclass(frozen=True)
class QueueItem:
    """One item handed to a reviewer."""

    queue: str
    conversation_id: str
    position: int
    blind: bool
    reviewed_by: tuple[str, ...]
    """Who has labelled it so far (hidden from the reviewer in a blind queue until they label)."""


@dataclass
class QueueProgress:
    """Where a queue stands: items done (enough reviewers labelled them), per reviewer, flagged."""

    queue: QueueRecord
    reviews: dict[str, list[str]] = field(default_factory=dict)
    """conversation id -> the reviewers who labelled it."""
    skipped: dict[str, list[str]] = field(default_factory=dict)
    """reviewer -> the items they skipped (and have not labelled since)."""
    flagged: dict[str, list[str]] = field(default_factory=dict)
    """conversation id -> the reviewers whose flag on it stands."""
    flag_notes: dict[str, dict[str, str]] = field(default_factory=dict)
    """conversation id -> reviewer -> the note of their standing flag (what they want the owner to read)."""

    @property
    def total(self) -> int:
        return self.queue.size

    @property
    def done(self) -> int:
        return sum(1 for who in self.reviews.values() if len(who) >= self.queue.reviews_per_item)

    def labelled_by(self, reviewer: str) -> int:
        return sum(1 for who in self.reviews.values() if reviewer in who)

    @property
    def summary(self) -> str:
        """ "12 of 40 done"."""
        return f"{self.done} of {self.total} done"

    def to_dict(self) -> JsonObject:
        reviewers = sorted(set(self.queue.reviewers) | {r for who in self.reviews.values() for r in who} | set(self.skipped))
        return {
            "queue": self.queue.name,
            "total": self.total,
            "done": self.done,
            "summary": self.summary,
            "reviews_per_item": self.queue.reviews_per_item,
            "blind": self.queue.blind,
            "reviewers": {r: {"labelled": self.labelled_by(r), "skipped": len(self.skipped.get(r, []))} for r in reviewers},
            "flagged": {cid: who for cid, who in sorted(self.flagged.items())},
            "flag_notes": {cid: notes for cid, notes in sorted(self.flag_notes.items())},
        }


def check_queue_name(name: str) -> str:
    """A queue name: letters, digits, dot, dash, underscore, up to 100; StoreError otherwise."""
    if not _NAME.match(name):
        raise StoreError(f"queue name {name!r}: use letters, digits, '.', '-' or '_' (up to 100, no spaces)")
    return name


def create_queue(
    store: Store,
    name: str,
    conversation_ids: Sequence[str],
    *,
    reviewers: Sequence[str] = (),
    reviews_per_item: int = 1,
    blind: bool = False,
    criteria: Sequence[str] = (),
    selection: JsonObject | None = None,
    created_by: str = "",
) -> QueueRecord:
    """Record a new queue with its items in the given order; StoreError when the name is taken."""
    check_queue_name(name)
    if reviews_per_item < 1:
        raise StoreError("a queue needs at least 1 review per item")
    if reviewers and reviews_per_item > len(set(reviewers)):
        raise StoreError(f"{reviews_per_item} reviews per item need at least as many reviewers; assigned: {len(set(reviewers))}")
    ids = list(dict.fromkeys(conversation_ids))
    if not ids:
        raise StoreError(f"queue {name!r} would be empty: no conversation matches")

    def write() -> None:
        with store._writing() as session:
            session.add(
                QueueRow(
                    name=name,
                    created_by=created_by,
                    reviews_per_item=reviews_per_item,
                    blind=blind,
                    criteria=list(criteria),
                    selection=selection or {},
                    created_at=utcnow(),
                )
            )
            session.flush()
            session.execute(
                insert(QueueItemRow), [{"queue_name": name, "conversation_id": cid, "position": i} for i, cid in enumerate(ids)]
            )
            if reviewers:
                session.execute(insert(QueueReviewerRow), [{"queue_name": name, "reviewer": r} for r in dict.fromkeys(reviewers)])

    try:
        retry_transient(write, "new queue")
    except IntegrityError as exc:
        raise StoreError(f"queue {name!r} already exists, or a conversation of it is not in {store}") from exc
    return get_queue(store, name)


def _record(session: Session, row: QueueRow) -> QueueRecord:
    reviewers = list(
        session.scalars(
            select(QueueReviewerRow.reviewer).where(QueueReviewerRow.queue_name == row.name).order_by(QueueReviewerRow.reviewer)
        )
    )
    size = len(session.scalars(select(QueueItemRow.id).where(QueueItemRow.queue_name == row.name)).all())
    return QueueRecord(
        row.name,
        row.created_at,
        row.created_by,
        row.reviews_per_item,
        row.blind,
        list(row.criteria or []),
        dict(row.selection or {}),
        reviewers,
        size,
    )


def get_queue(store: Store, name: str) -> QueueRecord:
    """One queue; StoreError naming the queues there are when it does not exist."""
    with store._reading() as session:
        row = session.get(QueueRow, name)
        if row is None:
            names = list(session.scalars(select(QueueRow.name).order_by(QueueRow.name)))
            raise StoreError(f"no queue {name!r} in {store}; queues: {', '.join(names) or 'none (sage-desk queue create)'}")
        return _record(session, row)


def list_queues(store: Store) -> list[QueueRecord]:
    """Every queue, newest first."""
    with store._reading() as session:
        rows = session.scalars(select(QueueRow).order_by(QueueRow.created_at.desc(), QueueRow.name)).all()
        return [_record(session, r) for r in rows]


def queue_conversations(store: Store, name: str) -> list[str]:
    """The queue's conversation ids, in review order."""
    get_queue(store, name)
    with store._reading() as session:
        query = select(QueueItemRow.conversation_id).where(QueueItemRow.queue_name == name).order_by(QueueItemRow.position)
        return list(session.scalars(query))


def queue_runs(store: Store, name: str) -> list[str]:
    """The runs the queue's conversations come from."""
    with store._reading() as session:
        query = (
            select(ConversationRow.run_id)
            .join(QueueItemRow, QueueItemRow.conversation_id == ConversationRow.id)
            .where(QueueItemRow.queue_name == name)
            .distinct()
        )
        return sorted(session.scalars(query))


def _labels(session: Session, queue: QueueRecord, ids: list[str]) -> dict[str, set[str]]:
    """conversation id -> the reviewers who wrote a label on it (on the queue's criteria)."""
    out: dict[str, set[str]] = {}
    for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
        query = select(OverrideRow.conversation_id, OverrideRow.author).where(
            OverrideRow.conversation_id.in_(ids[start : start + 500]), OverrideRow.kind == LABEL
        )
        if queue.criteria:
            query = query.where(OverrideRow.criterion.in_(queue.criteria))
        for cid, author in session.execute(query):
            out.setdefault(cid, set()).add(author or "")
    return out


def _marks(session: Session, name: str) -> list[QueueMarkRow]:
    return list(session.execute(select(QueueMarkRow).where(QueueMarkRow.queue_name == name).order_by(QueueMarkRow.id)).scalars())


def progress(store: Store, name: str) -> QueueProgress:
    """How far the queue has come: reads labels and marks in a few queries."""
    queue, ids = get_queue(store, name), queue_conversations(store, name)
    with store._reading() as session:
        labels, marks = _labels(session, queue, ids), _marks(session, name)
    out = QueueProgress(queue, reviews={cid: sorted(labels.get(cid, set())) for cid in ids})
    skipped: dict[str, set[str]] = {}
    flags: dict[str, set[str]] = {}
    notes: dict[str, dict[str, str]] = {}
    for m in marks:
        if m.action == SKIP:
            skipped.setdefault(m.reviewer, set()).add(m.conversation_id)
        elif m.action in (FLAG, UNFLAG):
            who = flags.setdefault(m.conversation_id, set())
            (who.add if m.action == FLAG else who.discard)(m.reviewer)
            if m.action == FLAG:
                notes.setdefault(m.conversation_id, {})[m.reviewer] = m.note or ""
    out.skipped = {r: sorted(c for c in cids if r not in labels.get(c, set())) for r, cids in skipped.items()}
    out.flagged = {cid: sorted(who) for cid, who in flags.items() if who}
    out.flag_notes = {cid: {r: notes.get(cid, {}).get(r, "") for r in who} for cid, who in out.flagged.items()}
    return out


def mark(store: Store, name: str, conversation_id: str, reviewer: str, action: str, note: str = "") -> None:
    """Append a skip, flag, unflag or claim of one of the queue's items."""
    if action not in MARKS:
        raise StoreError(f"a queue mark is one of {', '.join(MARKS)}, not {action!r}")
    if conversation_id not in queue_conversations(store, name):
        raise StoreError(f"conversation {conversation_id!r} is not in queue {name!r}")

    def write() -> None:
        with store._writing() as session:
            session.add(
                QueueMarkRow(
                    queue_name=name,
                    conversation_id=conversation_id,
                    reviewer=reviewer,
                    action=action,
                    note=note,
                    created_at=utcnow(),
                )
            )

    retry_transient(write, "queue mark")


def next_item(store: Store, name: str, reviewer: str, claim: bool = True) -> QueueItem | None:
    """The reviewer's next item of the queue (claimed for them when `claim`), or None when nothing is left."""
    queue = get_queue(store, name)
    if queue.reviewers and reviewer not in queue.reviewers:
        raise StoreError(f"{reviewer!r} is not a reviewer of queue {name!r} (reviewers: {', '.join(queue.reviewers)})")
    ids = queue_conversations(store, name)
    with store._reading() as session:
        labels, marks = _labels(session, queue, ids), _marks(session, name)
    since = utcnow() - timedelta(minutes=CLAIM_MINUTES)
    skipped = {m.conversation_id for m in marks if m.action == SKIP and m.reviewer == reviewer}
    claims: dict[str, set[str]] = {}
    for m in marks:
        if m.action == CLAIM and m.created_at >= since:
            claims.setdefault(m.conversation_id, set()).add(m.reviewer)
    chosen = next(
        (
            cid
            for cid in ids
            if reviewer in claims.get(cid, set()) and reviewer not in labels.get(cid, set()) and cid not in skipped
        ),
        None,
    )
    if chosen is None:
        for cid in ids:
            done = labels.get(cid, set())
            under_way = claims.get(cid, set()) - done - {reviewer}
            if reviewer not in done and cid not in skipped and len(done) + len(under_way) < queue.reviews_per_item:
                chosen = cid
                break
    if chosen is None:
        return None
    if claim:
        mark(store, name, chosen, reviewer, CLAIM)
    return QueueItem(name, chosen, ids.index(chosen), queue.blind, tuple(sorted(labels.get(chosen, set()))))


def reveals(store: Store, name: str, reviewer: str, conversation_id: str) -> bool:
    """Whether the reviewer may see the judge's value and others' labels of this item (always, unless blind)."""
    queue = get_queue(store, name)
    if not queue.blind:
        return True
    with store._reading() as session:
        return reviewer in _labels(session, queue, [conversation_id]).get(conversation_id, set())


def known_conversations(store: Store, ids: Sequence[str]) -> set[str]:
    """Which of these conversation ids exist."""
    found: set[str] = set()
    wanted = sorted(set(ids))
    with store._reading() as session:
        for start in range(0, len(wanted), 500):
            found.update(session.scalars(select(ConversationRow.id).where(ConversationRow.id.in_(wanted[start : start + 500]))))
    return found
