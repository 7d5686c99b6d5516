"""Opening a database: the default SQLite file, any SQLAlchemy URL, and SQLite's settings.

SQLite notes (ENVIRONMENT.md, measured): WAL lets the GUI read while a run writes; a deferred
`BEGIN` that later writes gave hundreds of 'database is locked' errors under threads, so every
write transaction starts with `BEGIN IMMEDIATE` and waits on `busy_timeout` instead. Read-only
work goes through `read_engine()`, whose transactions begin deferred: under WAL a reader never
blocks the writer and is never blocked by it.
"""

from __future__ import annotations

import weakref
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, ExceptionContext, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from sage_desk.core.locations import user_data_dir
from sage_desk.core.store.sqlite_guard import ShareGuard, install_wal_check, sqlite_file

DB_FILENAME = "sage-desk.db"
BUSY_TIMEOUT_MS = 10_000
_READ_OPTION = "sage_desk_read_only"
_GUARDS: weakref.WeakKeyDictionary[Engine, ShareGuard] = weakref.WeakKeyDictionary()


def default_url() -> str:
    """The per-user SQLite database."""
    return f"sqlite:///{user_data_dir() / DB_FILENAME}"


def database_url(given: str | URL | None) -> URL:
    """A URL from what the user gave: a SQLAlchemy URL, a path to a SQLite file, or None (the default).

    `--db runs.db` is a file, as a user means it; anything with `://` (or `sqlite:`) is a URL. A
    URL SQLAlchemy cannot read is a `StoreError` naming what was given, not a traceback.
    """
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    from sage_desk.core.store.errors import StoreError

    if given is None:
        return make_url(default_url())
    if isinstance(given, URL):
        return given
    text = given.strip()
    if "://" not in text and not text.startswith("sqlite:"):
        if not text:
            raise StoreError("no database given: pass a SQLAlchemy URL or a path to a SQLite file")
        from pathlib import Path

        return URL.create("sqlite", database=str(Path(text).expanduser().resolve()))
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        raise StoreError(
            f"not a database URL: {text!r} (e.g. sqlite:///runs.db, "
            f"postgresql+psycopg://user@host/db, or a path to a SQLite file)"
        ) from None
    try:
        url.get_dialect()
    except NoSuchModuleError:
        raise StoreError(f"no database driver for {url.drivername!r} (SAGE Desk speaks sqlite and postgresql+psycopg)") from None
    except ImportError as exc:  # the driver's package is not installed (psycopg for PostgreSQL)
        raise StoreError(
            f"the driver for {url.drivername!r} is not installed ({exc.name or exc}): pip install 'sage-desk[postgres]'"
        ) from None
    return url


READ_ONLY_NOTE = "the sample runs are opened read-only (--sample)"


def sqlite_path(url: URL) -> str:
    """A SQLite URL's file path, a `file:PATH?mode=ro` URI's too (for messages)."""
    database = str(url.database or "")
    return database.removeprefix("file:").split("?", 1)[0] if database.startswith("file:") else database


def is_sqlite(url: URL) -> bool:
    """True for any SQLite URL (file or memory)."""
    return url.get_backend_name() == "sqlite"


def _is_memory(url: URL) -> bool:
    return url.database in (None, "", ":memory:") or "mode=memory" in str(url.query.get("mode", ""))


def make_engine(url: str | URL | None = None) -> Engine:
    """An engine for `url` (default: the user's SQLite file), with SQLite tuned for threads."""
    parsed = make_url(url) if url is not None else make_url(default_url())
    if not is_sqlite(parsed):
        return create_engine(parsed, pool_pre_ping=True)
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}}
    if _is_memory(parsed):
        # Each new connection to sqlite:// is a new empty database: share one across threads.
        kwargs["poolclass"] = StaticPool
    engine = create_engine(parsed, **kwargs)
    _install_sqlite_events(engine)
    path = sqlite_file(parsed.database)
    if path is not None and not _is_memory(parsed):
        # after the settings' listener: it remembers the log journal_mode opened
        _GUARDS[engine] = install_wal_check(engine, path)
    return engine


def share_guard(engine: Engine) -> ShareGuard | None:
    """The guard of a SQLite file engine's log (sqlite_guard.py); None for other databases."""
    return _GUARDS.get(engine)


def is_read_only(url: URL) -> bool:
    """A SQLite URL opened read-only (`?mode=ro`): the shipped sample runs (sample.py). Writes are refused."""
    return is_sqlite(url) and (str(url.query.get("mode", "")) == "ro" or "mode=ro" in str(url.database or ""))


def read_engine(engine: Engine) -> Engine:
    """The same pool, but transactions begin deferred (for reads only)."""
    return engine.execution_options(**{_READ_OPTION: True})


def _install_sqlite_events(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        # Take transaction control away from the sqlite3 module so our BEGIN is the only one.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    refuse_writes = is_read_only(engine.url)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        read_only = refuse_writes or conn.get_execution_options().get(_READ_OPTION, False)
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

    if refuse_writes:

        @event.listens_for(engine, "handle_error")
        def _on_error(context: ExceptionContext) -> None:
            # SQLite's "attempt to write a readonly database", said as what it means and what to do instead
            if "readonly database" in str(context.original_exception):
                from sage_desk.core.store.errors import StoreError

                raise StoreError(
                    f"{READ_ONLY_NOTE}; this command writes: work on a copy of your own "
                    f"(cp {sqlite_path(engine.url)} my-runs.db, then --db my-runs.db)"
                )
