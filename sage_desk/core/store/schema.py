"""The run database schema: declarative SQLAlchemy 2 models.

Every change to these classes ships as a migration under `migrations/versions`; a test compares
the two with alembic's autogenerate so they cannot drift apart.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Named constraints make later migrations (and SQLite batch mode) able to address them.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """Stores UTC, returns aware UTC: SQLite keeps no time zone, PostgreSQL `timestamp` neither."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use an aware UTC time")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    """Declarative base of every table."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UtcDateTime, dict[str, Any]: JSON, list[Any]: JSON}


class RunRow(Base):
    """One run: cases x agents x repeats, with the configuration it ran with (never API keys)."""

    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    status: Mapped[str] = mapped_column(String(16), default="running")
    domain: Mapped[str] = mapped_column(String(200))
    config: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # the SOP graph the run was played with (0012): a `sop_snapshots` hash; None before 0012 and for imports
    sop_snapshot: Mapped[str | None] = mapped_column(String(64))


class SopSnapshotRow(Base):
    """One SOP graph text a run was played with (0012), kept once however many runs played it."""

    __tablename__ = "sop_snapshots"

    hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    domain: Mapped[str] = mapped_column(String(200))
    graph: Mapped[str] = mapped_column(Text)


class ConversationRow(Base):
    """One conversation of a run: one case, one agent model, one repeat."""

    __tablename__ = "conversations"
    __table_args__ = (
        Index("ix_conversations_run_agent_bucket", "run_id", "agent", "bucket"),
        Index("ix_conversations_run_status", "run_id", "status"),
        # the Review list's order, covering its columns (0008)
        Index(
            "ix_conversations_run_list",
            "run_id",
            "case_id",
            "agent",
            "repeat",
            "id",
            "bucket",
            "conflict",
            "status",
            "termination",
            "domain",
            "source_id",
        ),
        Index("ix_conversations_owner", "owner_id"),
    )

    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    case_id: Mapped[str] = mapped_column(String(200))
    domain: Mapped[str] = mapped_column(String(200))
    agent: Mapped[str] = mapped_column(String(200))
    repeat: Mapped[int] = mapped_column(default=0)
    bucket: Mapped[str | None] = mapped_column(String(32))
    conflict: Mapped[str | None] = mapped_column(String(32))
    tactics: Mapped[list[Any]] = mapped_column(default=list)
    seed: Mapped[int | None] = mapped_column(BigInteger().with_variant(Integer, "sqlite"))  # up to 2**32 - 1 (0003)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    termination: Mapped[str | None] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(Text)
    turns: Mapped[int] = mapped_column(default=0)
    prompt_tokens: Mapped[int] = mapped_column(default=0)
    completion_tokens: Mapped[int] = mapped_column(default=0)
    cost_usd: Mapped[float] = mapped_column(Float, default=0.0)
    agent_turns: Mapped[int] = mapped_column(default=0, server_default="0")
    agent_tokens: Mapped[int] = mapped_column(default=0, server_default="0")
    agent_cost_usd: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    started_at: Mapped[datetime | None] = mapped_column()
    finished_at: Mapped[datetime | None] = mapped_column()
    # Imported conversations (0004): the log's own id, a hash of the content (re-importing the same
    # conversation adds nothing) and the case the import built from what the conversation shows.
    source_id: Mapped[str | None] = mapped_column(String(300))
    content_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    case_data: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Run ownership (0010): the `run_owners` row of the process that claimed it; None when nobody holds it.
    owner_id: Mapped[int | None] = mapped_column(Integer)
    # Imported conversations (0011): the source's own reward (tau-bench/tau2) and whether the rule
    # verdicts are settled (None), or some are `unscored` / `provisional` (joined by '+').
    tau_reward: Mapped[float | None] = mapped_column(Float)
    rules_state: Mapped[str | None] = mapped_column(String(32))


class RunOwnerRow(Base):
    """A process playing a run (0010): where it runs, since when, and its last heartbeat."""

    __tablename__ = "run_owners"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column()
    heartbeat_at: Mapped[datetime] = mapped_column()


class EventRow(Base):
    """One event of a conversation, as the engine appended it (the full JSON in `data`)."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("conversation_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column()
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column()


class VerdictRow(Base):
    """One verdict (the fields of `sage_desk.core.rules.verdict.Verdict`)."""

    __tablename__ = "verdicts"
    __table_args__ = (
        Index("ix_verdicts_conversation_source", "conversation_id", "source"),
        Index("ix_verdicts_criterion", "criterion"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(String(200))
    criterion: Mapped[str] = mapped_column(String(200))
    passed: Mapped[bool | None] = mapped_column(Boolean)
    score: Mapped[float | None] = mapped_column(Float)
    rationale: Mapped[str] = mapped_column(Text, default="")
    event_seq: Mapped[int | None] = mapped_column(Integer)
    node: Mapped[str | None] = mapped_column(String(200))
    edge: Mapped[str | None] = mapped_column(String(400))
    unscored: Mapped[bool] = mapped_column(Boolean, default=False)
    raw: Mapped[str | None] = mapped_column(Text)
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class OverrideRow(Base):
    """A human's correction of a verdict. Append-only: rows are never updated or deleted.

    `verdict_id` is set null when a re-judge replaces the verdict; the override still applies
    through (conversation, criterion, source), and the judge's original value stays in the row.
    """

    __tablename__ = "overrides"
    __table_args__ = (Index("ix_overrides_conversation_criterion", "conversation_id", "criterion"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    verdict_id: Mapped[int | None] = mapped_column(ForeignKey("verdicts.id", ondelete="SET NULL"))
    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    criterion: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(200))
    original_passed: Mapped[bool | None] = mapped_column(Boolean)
    original_score: Mapped[float | None] = mapped_column(Float)
    human_passed: Mapped[bool | None] = mapped_column(Boolean)
    human_score: Mapped[float | None] = mapped_column(Float)
    human_value: Mapped[str | None] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text, default="")
    author: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Team review (0006): a reviewer's label or an adjudicator's final word (see store/consensus.py),
    # failure-mode tags from the domain's list, and what the agent should have said.
    kind: Mapped[str] = mapped_column(String(16), default="label", server_default="label")
    tags: Mapped[list[Any] | None] = mapped_column(JSON)
    corrected_reply: Mapped[str | None] = mapped_column(Text)


class ConversationSummaryRow(Base):
    """A conversation's verdict summary (0007), rewritten with its verdicts and overrides (store/summaries.py)."""

    __tablename__ = "conversation_summaries"

    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"), primary_key=True)
    rules_failed: Mapped[int] = mapped_column(default=0)
    judge_mean: Mapped[float | None] = mapped_column(Float)
    failing: Mapped[str | None] = mapped_column(Text)
    overridden: Mapped[int] = mapped_column(default=0)
    disagree: Mapped[int] = mapped_column(default=0)
    marks: Mapped[str | None] = mapped_column(Text)  # JSON {criterion: [passed, score]}, what metrics read (0009)


class JudgeExampleRow(Base):
    """A labelled transcript for judge calibration (few-shot, or a dev/test set)."""

    __tablename__ = "judge_examples"
    __table_args__ = (Index("ix_judge_examples_domain_criterion", "domain", "criterion"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    domain: Mapped[str] = mapped_column(String(200))
    criterion: Mapped[str] = mapped_column(String(200))
    conversation_id: Mapped[str | None] = mapped_column(String(80))
    transcript: Mapped[str] = mapped_column(Text)
    label_passed: Mapped[bool | None] = mapped_column(Boolean)
    label_score: Mapped[float | None] = mapped_column(Float)
    rationale: Mapped[str] = mapped_column(Text, default="")
    split: Mapped[str] = mapped_column(String(8), default="train")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class QueueRow(Base):
    """A review queue (0006): a named selection of conversations, who reviews them and how."""

    __tablename__ = "queues"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_by: Mapped[str] = mapped_column(String(200), default="")
    reviews_per_item: Mapped[int] = mapped_column(default=1)
    blind: Mapped[bool] = mapped_column(Boolean, default=False)
    criteria: Mapped[list[Any]] = mapped_column(default=list)
    selection: Mapped[dict[str, Any]] = mapped_column(default=dict)


class QueueItemRow(Base):
    """One conversation of a queue, at its place in the queue's order."""

    __tablename__ = "queue_items"
    __table_args__ = (
        UniqueConstraint("queue_name", "conversation_id"),
        Index("ix_queue_items_queue_position", "queue_name", "position"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    queue_name: Mapped[str] = mapped_column(ForeignKey("queues.name", ondelete="CASCADE"))
    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column()


class QueueReviewerRow(Base):
    """A reviewer assigned to a queue (a queue with none is open to every reviewer)."""

    __tablename__ = "queue_reviewers"

    queue_name: Mapped[str] = mapped_column(ForeignKey("queues.name", ondelete="CASCADE"), primary_key=True)
    reviewer: Mapped[str] = mapped_column(String(200), primary_key=True)


class QueueMarkRow(Base):
    """A reviewer's skip, flag or claim of a queue item. Append-only, like overrides."""

    __tablename__ = "queue_marks"
    __table_args__ = (Index("ix_queue_marks_queue_conversation", "queue_name", "conversation_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    queue_name: Mapped[str] = mapped_column(ForeignKey("queues.name", ondelete="CASCADE"))
    conversation_id: Mapped[str] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    reviewer: Mapped[str] = mapped_column(String(200))
    action: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


def table_of(row: type[Base]) -> Table:
    """A mapped class's table, typed as one (for Core insert/update/delete on the hot paths)."""
    return cast(Table, row.__table__)
