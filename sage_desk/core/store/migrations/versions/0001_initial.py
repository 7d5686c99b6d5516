"""The first schema: runs, conversations, events, verdicts, overrides, judge_examples.

Revision ID: 0001
Revises:
Create Date: 2026-11-20

Migrations use plain `sa.DateTime()`: the schema's `UtcDateTime` only converts values in Python,
and a migration must not change meaning when application code changes later.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("domain", sa.String(length=200), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_table(
        "conversations",
        sa.Column("id", sa.String(length=80), nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("domain", sa.String(length=200), nullable=False),
        sa.Column("agent", sa.String(length=200), nullable=False),
        sa.Column("repeat", sa.Integer(), nullable=False),
        sa.Column("bucket", sa.String(length=32), nullable=True),
        sa.Column("conflict", sa.String(length=32), nullable=True),
        sa.Column("tactics", sa.JSON(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("termination", sa.String(length=32), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_conversations_run_id_runs"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conversations")),
    )
    op.create_index("ix_conversations_run_agent_bucket", "conversations", ["run_id", "agent", "bucket"], unique=False)
    op.create_index("ix_conversations_run_case", "conversations", ["run_id", "case_id"], unique=False)
    op.create_index("ix_conversations_run_status", "conversations", ["run_id", "status"], unique=False)
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("conversation_id", sa.String(length=80), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"], ["conversations.id"], name=op.f("fk_events_conversation_id_conversations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("conversation_id", "seq", name=op.f("uq_events_conversation_id_seq")),
    )
    op.create_table(
        "verdicts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("conversation_id", sa.String(length=80), nullable=False),
        sa.Column("source", sa.String(length=200), nullable=False),
        sa.Column("criterion", sa.String(length=200), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("rationale", sa.Text(), nullable=False),
        sa.Column("event_seq", sa.Integer(), nullable=True),
        sa.Column("node", sa.String(length=200), nullable=True),
        sa.Column("edge", sa.String(length=400), nullable=True),
        sa.Column("unscored", sa.Boolean(), nullable=False),
        sa.Column("raw", sa.Text(), nullable=True),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"], ["conversations.id"], name=op.f("fk_verdicts_conversation_id_conversations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_verdicts")),
    )
    op.create_index("ix_verdicts_conversation_source", "verdicts", ["conversation_id", "source"], unique=False)
    op.create_index("ix_verdicts_criterion", "verdicts", ["criterion"], unique=False)
    op.create_table(
        "overrides",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("verdict_id", sa.Integer(), nullable=True),
        sa.Column("conversation_id", sa.String(length=80), nullable=False),
        sa.Column("criterion", sa.String(length=200), nullable=False),
        sa.Column("source", sa.String(length=200), nullable=False),
        sa.Column("original_passed", sa.Boolean(), nullable=True),
        sa.Column("original_score", sa.Float(), nullable=True),
        sa.Column("human_passed", sa.Boolean(), nullable=True),
        sa.Column("human_score", sa.Float(), nullable=True),
        sa.Column("human_value", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("author", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"], ["conversations.id"], name=op.f("fk_overrides_conversation_id_conversations"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["verdict_id"], ["verdicts.id"], name=op.f("fk_overrides_verdict_id_verdicts"), ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_overrides")),
    )
    op.create_index("ix_overrides_conversation_criterion", "overrides", ["conversation_id", "criterion"], unique=False)
    op.create_table(
        "judge_examples",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("domain", sa.String(length=200), nullable=False),
        sa.Column("criterion", sa.String(length=200), nullable=False),
        sa.Column("conversation_id", sa.String(length=80), nullable=True),
        sa.Column("transcript", sa.Text(), nullable=False),
        sa.Column("label_passed", sa.Boolean(), nullable=True),
        sa.Column("label_score", sa.Float(), nullable=True),
        sa.Column("rationale", sa.Text(), nullable=False),
        sa.Column("split", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judge_examples")),
    )
    op.create_index("ix_judge_examples_domain_criterion", "judge_examples", ["domain", "criterion"], unique=False)


def downgrade() -> None:
    op.drop_table("judge_examples")
    op.drop_table("overrides")
    op.drop_table("verdicts")
    op.drop_table("events")
    op.drop_table("conversations")
    op.drop_table("runs")
