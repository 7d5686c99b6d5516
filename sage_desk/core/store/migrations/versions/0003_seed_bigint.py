"""Conversation seeds as 64-bit integers.

`conversation_seed` gives values up to 2**32 - 1, which a PostgreSQL INTEGER (up to 2**31 - 1)
refuses: about half of any run's conversations failed to be created there. SQLite stored them
anyway; its table is rebuilt so both backends match the model.

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
    with op.batch_alter_table("conversations") as batch:
        batch.alter_column("seed", existing_type=sa.Integer(), type_=sa.BigInteger(), existing_nullable=True)


def downgrade() -> None:
    with op.batch_alter_table("conversations") as batch:
        batch.alter_column("seed", existing_type=sa.BigInteger(), type_=sa.Integer(), existing_nullable=True)
