"""The shipped sample runs, opened read-only (`--sample`, `--db sample`): nothing may change the shipped file.

Opening a SQLite file the usual way switches it to WAL and migrates it: both rewrite the file, and
`sample_runs/sample.db` is what `./dev` built (or is read-only inside the desktop bundle). So the sample
database is opened as a `file:...?mode=ro&immutable=1` URI, where every write transaction is refused
with a line saying so (engine.py). When this SAGE Desk's schema is newer than the sample's, the
sample is copied once into the data folder, migrated there, and that copy is opened read-only instead;
the copy is named by the sample's size, modification time and the schema, so a new sample or a new
schema makes a new copy.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from sage_desk.core.locations import sample_runs_dir, user_data_dir
from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.migrate import VERSION_TABLE, head_revision

SAMPLE_NAME = "sample.db"
SAMPLE_ALIAS = "sample"
"""`--db sample` means the shipped sample runs."""


def sample_path() -> Path:
    """The shipped sample database (it may be missing in a partial install)."""
    return sample_runs_dir() / SAMPLE_NAME


def read_only_url(path: Path) -> str:
    """A SQLAlchemy URL opening the SQLite file `path` read-only, without locks or a journal change."""
    return f"sqlite:///file:{path.resolve()}?mode=ro&immutable=1&uri=true"


def schema_of(path: Path) -> str | None:
    """The schema revision stamped in a SQLite file, read without writing to it (None: none stamped)."""
    try:
        with closing(sqlite3.connect(f"file:{path.resolve()}?mode=ro&immutable=1", uri=True)) as connection:
            found = connection.execute(f"SELECT name FROM sqlite_master WHERE type='table' AND name='{VERSION_TABLE}'").fetchone()
            if not found:
                return None
            row = connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot read the sample runs {path}: {exc}") from None
    return row[0] if row else None


def sample_url() -> str:
    """The URL of the sample runs, read-only: the shipped file when its schema is current, else an upgraded copy."""
    path = sample_path()
    if not path.is_file():
        raise StoreError(
            f"no sample runs at {path}: build them with `./dev sample-runs` in a checkout "
            f"(scripts/make_sample_runs.py), or reinstall the bundle"
        )
    head = head_revision()
    if schema_of(path) == head:
        return read_only_url(path)
    return read_only_url(_upgraded_copy(path, head))


def _upgraded_copy(path: Path, head: str) -> Path:
    """A copy of the sample in the data folder, migrated to `head` and back in rollback-journal mode (made once)."""
    from sage_desk.core.store.store import Store

    stat = path.stat()
    copy = user_data_dir() / "sample-runs" / f"sample-{stat.st_size}-{stat.st_mtime_ns}-{head}.db"
    if copy.is_file():
        return copy
    copy.parent.mkdir(parents=True, exist_ok=True)
    partial = copy.with_name(copy.name + ".part")  # another process making the same copy never sees half of it
    shutil.copyfile(path, partial)
    Store(f"sqlite:///{partial}").close()  # migrates it
    with closing(sqlite3.connect(partial)) as connection:  # back to one file, readable with mode=ro like the shipped one
        connection.execute("PRAGMA journal_mode=DELETE")
    partial.replace(copy)
    for stale in copy.parent.glob("sample-*.db"):  # older copies: a previous sample or schema
        if stale != copy:
            stale.unlink(missing_ok=True)
    return copy


def resolve(db: str | None) -> str | None:
    """`--db` as given, with `sample` meaning the sample runs' read-only URL."""
    return sample_url() if db is not None and db.strip() == SAMPLE_ALIAS else db
