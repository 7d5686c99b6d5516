"""Conversation summaries: each conversation's verdict summary in a table of its own (issue 22).

The Review list aggregated every verdict of a run each time it opened; the summary is now written
with the verdicts (store/summaries.py). A plain CREATE TABLE, filled here in SQL from the verdicts
and overrides already stored, so runs recorded before open as fast.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sage_desk.core.store import summaries

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "conversation_summaries",
        sa.Column("conversation_id", sa.String(80), nullable=False),
        sa.Column("rules_failed", sa.Integer(), nullable=False),
        sa.Column("judge_mean", sa.Float(), nullable=True),
        sa.Column("failing", sa.Text(), nullable=True),
        sa.Column("overridden", sa.Integer(), nullable=False),
        sa.Column("disagree", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["conversation_id"], ["conversations.id"], ondelete="CASCADE",
                                name=op.f("fk_conversation_summaries_conversation_id_conversations")),
        sa.PrimaryKeyConstraint("conversation_id", name=op.f("pk_conversation_summaries")),
    )
    conversations = sa.table("conversations", sa.column("id", sa.String))
    summaries.write(op.get_bind(), sa.select(conversations.c.id), marks=False)  # 0009 adds and fills the marks


def downgrade() -> None:
    op.drop_table("conversation_summaries")
