"""The Review list's order as an index: (run, case, model, repeat, id), covering the list's columns (issue 22).

The list is read in this order; with the index, SQLite walks it instead of sorting a whole run
first, so the first screenful arrives at once and the rest streams behind it, and it reads the
list's columns from the index without visiting the table. It replaces the (run, case) index,
which is its prefix.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


LIST_COLUMNS = ["run_id", "case_id", "agent", "repeat", "id", "bucket", "conflict", "status", "termination", "domain",
                "source_id"]


def upgrade() -> None:
    op.create_index("ix_conversations_run_list", "conversations", LIST_COLUMNS)
    op.drop_index("ix_conversations_run_case", table_name="conversations")


def downgrade() -> None:
    op.create_index("ix_conversations_run_case", "conversations", ["run_id", "case_id"])
    op.drop_index("ix_conversations_run_list", table_name="conversations")
