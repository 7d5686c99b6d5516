"""Bring a database to the schema this version of SAGE Desk writes (alembic, configured in code)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, Engine

from sage_desk.core.store.errors import StoreError

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def alembic_config(connection: Connection | None = None) -> Config:
    """An alembic Config pointing at the packaged migrations; no alembic.ini involved."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema revision this code knows."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "no migrations packaged"
    return head


def current_revision(connection: Connection) -> str | None:
    """The revision stamped in the database (None for an empty one)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, where: str) -> None:
    """Migrate to head; refuse a database stamped by a newer SAGE Desk."""
    script = ScriptDirectory.from_config(alembic_config())
    with engine.begin() as conn:
        current = current_revision(conn)
        if current is not None and not _known(script, current):
            raise StoreError(
                f"The database {where} was written by a newer SAGE Desk (schema {current}); "
                f"this version knows schemas up to {script.get_current_head()}. Upgrade SAGE Desk, or use another --db."
            )
        if current != script.get_current_head():
            command.upgrade(alembic_config(conn), "head")


def _known(script: ScriptDirectory, revision: str) -> bool:
    try:
        return script.get_revision(revision) is not None
    except CommandError:
        return False
