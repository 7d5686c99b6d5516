"""Keeping SQLite's write-ahead log safe from code in our own process (issue 34, ENVIRONMENT.md).

SQLite's locks are POSIX record locks, which belong to the process: when *any* code in the
process opens and closes the database file (a Qt file dialog listing its folder does), every lock
our connections held on it is released. Another process that then closes the database takes the
exclusive lock, believes it was the last user, checkpoints and deletes the WAL, and our open
connections go on writing into the unlinked file: saves that nobody else ever sees.

Two defences, layered:

- `ShareGuard` holds an open-file-description lock (Linux `F_OFD_SETLK`) on the byte range of
  SQLite's SHARED lock while any of the store's connections is checked out. Such a lock belongs to
  our own file descriptor, not to the process, so nothing another fd does can release it, and while
  it is held no other process can take the exclusive lock that deleting the WAL needs: a log found
  intact at the start of a transaction stays so to its end. It is a read lock: readers and WAL
  writers never ask for that range exclusively, so they never notice it. It is let go when the pool
  is idle, so the store's own last connection can still clean the log up when it closes.
- `install_wal_check` remembers, per connection, which WAL file (device, inode) it opened, and on
  every checkout (after taking the guard) compares it with the file now at the `-wal` path. A WAL
  unlinked or replaced while the pool was idle makes the pool drop that connection and open a
  fresh one before the transaction starts; it is the whole defence where OFD locks do not exist.
"""

from __future__ import annotations

import logging
import os
import struct
import sys
import threading
import weakref

from sqlalchemy import Engine, event
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

log = logging.getLogger(__name__)

# SQLite's unix VFS lock bytes (os.h): a SHARED lock is a read lock on SHARED_SIZE bytes from
# SHARED_FIRST; EXCLUSIVE is a write lock on the same range.
PENDING_BYTE = 0x40000000
SHARED_FIRST = PENDING_BYTE + 2
SHARED_SIZE = 510
_F_OFD_SETLK = 37  # linux/fcntl.h; Python's fcntl exposes it from 3.9 on some builds only
_WAL_KEY = "sage_desk_wal"
_HOLD_KEY = "sage_desk_guard_held"


def sqlite_file(database: str | None) -> str | None:
    """The file path of a SQLite URL's database, or None for an in-memory one."""
    if not database or database == ":memory:":
        return None
    path = database
    if path.startswith("file:"):  # a URI filename (?uri=true): file:path?mode=ro
        path = path[len("file:") :].split("?", 1)[0]
        if path.startswith("//"):
            path = path[2:]
    return os.path.abspath(path) if path else None


def wal_identity(db_path: str) -> tuple[int, int] | None:
    """(device, inode) of the database's `-wal` file now, or None when there is none."""
    try:
        st = os.stat(db_path + "-wal")
    except OSError:
        return None
    return st.st_dev, st.st_ino


def install_wal_check(engine: Engine, db_path: str) -> ShareGuard:
    """Reconnect, before it is used, any pooled connection whose WAL was unlinked or replaced; and,
    once `ShareGuard.enable` is called (a database in WAL mode), hold the guard while it is in use."""
    guard = ShareGuard(db_path)

    @event.listens_for(engine, "connect")
    def _remember(_dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
        # Runs after the settings' listener: journal_mode=WAL has opened the log, if there is one.
        record.info[_WAL_KEY] = wal_identity(db_path)

    @event.listens_for(engine, "checkout")
    def _check(_dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
        # The guard first, then the look at the log: once the guard is held nobody can delete the
        # log, so a log found intact stays intact for the whole transaction.
        record.info[_HOLD_KEY] = guard.hold()
        known = record.info.get(_WAL_KEY)
        now = wal_identity(db_path)
        if now == known:
            return
        if known is None:  # this connection opened the database before any log existed: its own first write made it
            record.info[_WAL_KEY] = now
            return
        if record.info.pop(_HOLD_KEY, False):
            guard.let_go()
        log.warning(
            "the write-ahead log of %s was %s under an open connection (another process closed the "
            "database while this one's locks were lost); reconnecting",
            db_path,
            "deleted" if now is None else "replaced",
        )
        raise DisconnectionError("the SQLite write-ahead log changed under this connection")

    @event.listens_for(engine, "checkin")
    def _done(_dbapi_connection: DBAPIConnection | None, record: ConnectionPoolEntry | None) -> None:
        if record is not None and record.info.pop(_HOLD_KEY, False):
            guard.let_go()

    return guard


class ShareGuard:
    """An open-file-description read lock on SQLite's SHARED range, held while any connection of the
    store is checked out (Linux): no other process can delete the log under a transaction.

    It is let go whenever the pool is idle, so the store's own last connection can still clean the
    log up when it closes, and a store dropped without `close()` holds nothing.
    """

    def __init__(self, db_path: str) -> None:
        self._path = db_path
        self._fd: int | None = None
        self._users = 0
        self._enabled = False
        self._lock = threading.Lock()
        self._closer: weakref.finalize | None = None

    def enable(self) -> bool:
        """Start guarding (on a database in WAL mode: in rollback mode a held SHARED range would block every
        writer); False where open-file-description locks do not exist."""
        if not sys.platform.startswith("linux"):
            return False
        with self._lock:
            if self._fd is None:
                try:
                    self._fd = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
                except OSError as exc:
                    log.debug("no share guard on %s: %s", self._path, exc)
                    return False
                self._closer = weakref.finalize(self, os.close, self._fd)
            self._enabled = True
            return True

    @property
    def held(self) -> bool:
        """Whether the lock is held now."""
        return self._users > 0 and self._fd is not None

    def hold(self) -> bool:
        """Take the lock for one more user (a checked-out connection); False when not guarding."""
        with self._lock:
            if not self._enabled or self._fd is None:
                return False
            if self._users == 0 and not self._set(_rdlck()):
                return False  # another process holds EXCLUSIVE this instant: the log check still applies
            self._users += 1
            return True

    def let_go(self) -> None:
        """One user fewer; the lock goes with the last."""
        with self._lock:
            self._users = max(0, self._users - 1)
            if self._users == 0 and self._fd is not None:
                self._set(_unlck())

    def close(self) -> None:
        """Stop guarding and close the descriptor (call it after the pool's connections are closed)."""
        with self._lock:
            self._enabled, self._users = False, 0
            if self._closer is not None:
                self._closer()
            self._fd, self._closer = None, None

    def _set(self, kind: int) -> bool:
        import fcntl

        assert self._fd is not None
        try:
            fcntl.fcntl(self._fd, getattr(fcntl, "F_OFD_SETLK", _F_OFD_SETLK), _flock(kind, SHARED_FIRST, SHARED_SIZE))
        except OSError as exc:
            log.debug("share guard on %s: %s", self._path, exc)
            return False
        return True


def _rdlck() -> int:
    import fcntl

    return fcntl.F_RDLCK


def _unlck() -> int:
    import fcntl

    return fcntl.F_UNLCK


def _flock(kind: int, start: int, length: int) -> bytes:
    """A `struct flock` for Linux (l_type, l_whence, l_start, l_len, l_pid; l_pid must be 0 for OFD locks)."""
    return struct.pack("hhxxxxqqixxxx", kind, os.SEEK_SET, start, length, 0)
