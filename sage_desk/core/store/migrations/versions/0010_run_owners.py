"""Run ownership (issue 34): who is playing a run, and which conversations they hold.

`run_owners` has one row per process playing a run (host, pid, started, heartbeat); a process
refreshes its heartbeat while it plays and removes its row when it stops. A conversation's
`owner_id` names the owner that claimed it; a claim whose owner's heartbeat stopped is handed
back (resume, join). No foreign key on `owner_id`: an owner's row goes when it ends, and its
claims are released in the same transaction.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "run_owners",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name=op.f("fk_run_owners_run_id_runs"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_owners")),
    )
    op.create_index(op.f("ix_run_owners_run_id"), "run_owners", ["run_id"])
    op.add_column("conversations", sa.Column("owner_id", sa.Integer(), nullable=True))
    op.create_index("ix_conversations_owner", "conversations", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_conversations_owner", table_name="conversations")
    with op.batch_alter_table("conversations") as batch:
        batch.drop_column("owner_id")
    op.drop_index(op.f("ix_run_owners_run_id"), table_name="run_owners")
    op.drop_table("run_owners")
