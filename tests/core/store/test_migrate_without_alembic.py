"""The migration check reads revisions without alembic, and agrees with alembic; alembic loads only to migrate."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import text

from sage_desk.core.store import Store, StoreError
from sage_desk.core.store.engine import make_engine
from sage_desk.core.store.migrate import alembic_config, current_revision, head_revision, packaged_revisions

OPEN_STORE = textwrap.dedent("""
    import sys
    from sage_desk.core.store import Store
    with Store(sys.argv[1]) as store:
        store.list_runs()
    print("alembic" in sys.modules)
""")


def test_the_revisions_read_from_the_files_are_alembics() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    expected = {rev.revision: rev.down_revision for rev in script.walk_revisions()}
    assert packaged_revisions() == expected
    assert head_revision() == script.get_current_head()


def _opened_with_alembic(url: str) -> bool:
    done = subprocess.run([sys.executable, "-c", OPEN_STORE, url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split() == ["True"]


def test_alembic_is_imported_only_when_the_database_needs_migrating(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    assert _opened_with_alembic(url)  # a new database: every migration runs
    assert not _opened_with_alembic(url)  # at head: nothing to do, no alembic
    engine = make_engine(url)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "-1")
        assert current_revision(conn) == packaged_revisions()[head_revision()]
    engine.dispose()
    assert _opened_with_alembic(url)  # one schema behind: migrated
    assert not _opened_with_alembic(url)
    with Store(url) as store, store._engine.connect() as conn:
        assert current_revision(conn) == head_revision()


def test_a_newer_database_is_refused_before_alembic_is_asked(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    with Store(url):
        pass
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(StoreError, match=r"newer SAGE Desk \(schema 9999\).*knows schemas up to " + head_revision()):
        Store(url)
