"""Agent-only totals on conversations: agent turns, tokens and cost.

Cost tiers are computed from what the *agent* spent (SupportAgentBench: agent-only, per 1,000
conversations), and turns per conversation count agent messages; both were only derivable by
re-reading every event.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-20
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("conversations") as batch:
        batch.add_column(sa.Column("agent_turns", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("agent_tokens", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("agent_cost_usd", sa.Float(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("conversations") as batch:
        batch.drop_column("agent_cost_usd")
        batch.drop_column("agent_tokens")
        batch.drop_column("agent_turns")
