"""Alembic environment: runs on the connection the store hands over (no alembic.ini needed).

From a shell, a developer can still autogenerate a revision with
`alembic -x url=sqlite:///path.db revision --autogenerate -m "..."` and a small alembic.ini
pointing `script_location` at this folder.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from sage_desk.core.store.schema import Base

config = context.config
target_metadata = Base.metadata


def _configure(connection: Connection) -> None:
    # Batch mode lets later migrations alter SQLite tables (it copies and renames them).
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True, compare_type=True)


def run_migrations_online() -> None:
    """Migrate on the store's connection, or on one made from `-x url=` / `sqlalchemy.url`."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///path.db ...")
    engine = create_engine(url)
    with engine.connect() as conn:
        _configure(conn)
        with context.begin_transaction():
            context.run_migrations()


def run_migrations_offline() -> None:
    """Emit SQL instead of running it (`alembic upgrade head --sql`)."""
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
