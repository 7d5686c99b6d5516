"""Conversation seeds as 64-bit integers, on PostgreSQL (and any server that needs it).

`conversation_seed` gives values up to 2**32 - 1, which a PostgreSQL INTEGER (up to 2**31 - 1)
refuses: creating a run there failed. SQLite's INTEGER already holds 64 bits, so SQLite is left
alone: changing a column type there means rebuilding the table, and dropping the old
`conversations` table would cascade to every event and verdict (foreign keys are on, and cannot
be turned off inside the migration's transaction). The model declares the column
`BigInteger` with an `Integer` variant for SQLite, so both match.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("conversations", "seed", existing_type=sa.Integer(), type_=sa.BigInteger(), existing_nullable=True)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("conversations", "seed", existing_type=sa.BigInteger(), type_=sa.Integer(), existing_nullable=True)
