"""Imported conversations keep the source's own score and whether their rules are settled.

`tau_reward`: the reward tau-bench or tau2 gave the conversation (0/1, or a fraction), kept beside
SAGE Desk's verdicts so export, report and Review can show where the two disagree. `rules_state`:
`unscored` when some rule verdict could not be decided (an unknown tool, a slot nobody set),
`provisional` when some rests only on the agent's own tag, both joined by `+`; None when every
rule verdict is settled. The Review list shows no tick on a conversation whose rules are not
settled and filters on it. Plain ADD COLUMNs (no table rebuild on SQLite).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("conversations", sa.Column("tau_reward", sa.Float(), nullable=True))
    op.add_column("conversations", sa.Column("rules_state", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("conversations") as batch:
        batch.drop_column("rules_state")
        batch.drop_column("tau_reward")
