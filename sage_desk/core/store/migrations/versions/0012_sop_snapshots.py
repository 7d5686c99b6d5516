"""Each run keeps the SOP graph it was played with, so Review draws an old run on its own graph.

`sop_snapshots`: one row per distinct graph text (the sop.yaml as it was, node positions included),
keyed by its SHA-256; runs of an unchanged graph share one row. `runs.sop_snapshot` names the
run's row (None for runs made before this migration and for imported runs: Review then reads
today's sop.yaml, and says so). Plain CREATE TABLE / ADD COLUMN (no table rebuild on SQLite).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sop_snapshots",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("domain", sa.String(200), nullable=False),
        sa.Column("graph", sa.Text(), nullable=False),
    )
    op.add_column("runs", sa.Column("sop_snapshot", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("sop_snapshot")
    op.drop_table("sop_snapshots")
