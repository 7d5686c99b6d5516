"""Each conversation's effective marks in its summary, so the report reads one row per conversation (issue 22).

`sage-desk report` and the Leaderboard read every verdict of a run and resolved its overrides:
10 s for the million verdicts of 50,000 conversations. The summary now also holds the marks
metrics read, after human labels and votes (store/summaries.py, `marks`), written with the rest of
it; here they are filled for the runs recorded before.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sage_desk.core.store import summaries

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("conversation_summaries", sa.Column("marks", sa.Text(), nullable=True))
    table = sa.table("conversation_summaries", sa.column("conversation_id", sa.String))
    summaries.write_marks(op.get_bind(), sa.select(table.c.conversation_id))


def downgrade() -> None:
    with op.batch_alter_table("conversation_summaries") as batch:
        batch.drop_column("marks")
