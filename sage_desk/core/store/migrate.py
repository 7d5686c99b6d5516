"""Bring a database to the schema this version of SAGE Desk writes (alembic, configured in code).

Alembic (with mako and pygments) takes a noticeable part of a second to import, so it is imported only
when a database needs migrating: the newest revision is read from the migration files' text, and the
database's from its alembic_version table.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from sage_desk.core.store.errors import StoreError

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
VERSION_TABLE = "alembic_version"
_REVISION_LINE = re.compile(r"""^(revision|down_revision)\s*(?::[^=]*)?=\s*(?:None|["']([^"']*)["'])\s*$""", re.MULTILINE)


def alembic_config(connection: Connection | None = None) -> Config:
    """An alembic Config pointing at the packaged migrations; no alembic.ini involved."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@functools.cache
def packaged_revisions() -> dict[str, str | None]:
    """Each packaged migration's revision id -> the revision it follows (None for the first)."""
    revisions: dict[str, str | None] = {}
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        found = {name: value or None for name, value in _REVISION_LINE.findall(path.read_text(encoding="utf-8"))}
        if "revision" in found and found["revision"]:
            revisions[found["revision"]] = found.get("down_revision")
    return revisions


def head_revision() -> str:
    """The newest schema revision this code knows."""
    revisions = packaged_revisions()
    heads = set(revisions) - set(revisions.values())
    assert len(heads) == 1, f"the packaged migrations have {len(heads)} heads: {sorted(heads)}"
    return heads.pop()


def current_revision(connection: Connection) -> str | None:
    """The revision stamped in the database (None for an empty one)."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    stamped = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    if len(stamped) > 1:
        raise StoreError(f"the database is stamped with several schema revisions at once: {', '.join(sorted(stamped))}")
    return stamped[0] if stamped else None


def upgrade(engine: Engine, where: str) -> None:
    """Migrate to head; refuse a database stamped by a newer SAGE Desk."""
    from sage_desk.core.store.engine import is_read_only, read_engine

    head = head_revision()
    # read first (a deferred BEGIN): a database at head is opened without a write, so a read-only one opens too
    with read_engine(engine).begin() as conn:
        if current_revision(conn) == head:
            return
    if is_read_only(engine.url):
        raise StoreError(f"the read-only database {where} is at an older schema; open a copy of it instead")
    with engine.begin() as conn:
        current = current_revision(conn)
        if current == head:
            return
        if current is not None and current not in packaged_revisions():
            raise StoreError(
                f"The database {where} was written by a newer SAGE Desk (schema {current}); "
                f"this version knows schemas up to {head}. Upgrade SAGE Desk, or use another --db."
            )
        from alembic import command

        command.upgrade(alembic_config(conn), "head")
