"""Keeping SQLite's write-ahead log safe from code in our own process (issue 34, ENVIRONMENT.md).

SQLite's locks are POSIX record locks, which belong to the process: when *any* code in the
process opens and closes the database file (a Qt file dialog listing its folder does), every lock
our connections held on it is released. Another process that then closes the database takes the
exclusive lock, believes it was the last user, checkpoints and deletes the WAL, and our open
connections go on writing into the unlinked file: saves that nobody else ever sees.

Two defences, each enough on its own for the common case:

- `ShareGuard` holds an open-file-description lock (Linux `F_OFD_SETLK`) on the byte range of
  SQLite's SHARED lock for as long as a `Store` is open. Such a lock belongs to our own file
  descriptor, not to the process, so nothing another fd does can release it, and while it is held
  no other process can take the exclusive lock that deleting the WAL needs. It is a read lock:
  readers and WAL writers never ask for that range exclusively, so they never notice it.
- `install_wal_check` remembers, per connection, which WAL file (device, inode) it opened, and on
  every checkout from the pool compares it with the file now at the `-wal` path. A WAL that was
  unlinked or replaced under a connection makes the pool drop that connection and open a fresh
  one before the transaction starts (where `F_OFD_SETLK` does not exist, or the guard came late).
"""

from __future__ import annotations

import logging
import os
import struct
import sys
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.exc import DisconnectionError

log = logging.getLogger(__name__)

# SQLite's unix VFS lock bytes (os.h): a SHARED lock is a read lock on SHARED_SIZE bytes from
# SHARED_FIRST; EXCLUSIVE is a write lock on the same range.
PENDING_BYTE = 0x40000000
SHARED_FIRST = PENDING_BYTE + 2
SHARED_SIZE = 510
_F_OFD_SETLK = 37  # linux/fcntl.h; Python's fcntl exposes it from 3.9 on some builds only
_WAL_KEY = "sage_desk_wal"


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


def install_wal_check(engine: Engine, db_path: str) -> None:
    """Reconnect, before it is used, any pooled connection whose WAL was unlinked or replaced."""

    @event.listens_for(engine, "connect")
    def _remember(_dbapi_connection: Any, record: Any) -> None:
        # Runs after the settings' listener: journal_mode=WAL has opened the log, if there is one.
        record.info[_WAL_KEY] = wal_identity(db_path)

    @event.listens_for(engine, "checkout")
    def _check(_dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        known = record.info.get(_WAL_KEY)
        now = wal_identity(db_path)
        if now == known:
            return
        if known is None:  # this connection opened the database before any log existed: its own first write made it
            record.info[_WAL_KEY] = now
            return
        log.warning(
            "the write-ahead log of %s was %s under an open connection (another process closed the "
            "database while this one's locks were lost); reconnecting",
            db_path,
            "deleted" if now is None else "replaced",
        )
        raise DisconnectionError("the SQLite write-ahead log changed under this connection")


class ShareGuard:
    """An open-file-description read lock on SQLite's SHARED range, held while a store is open (Linux)."""

    def __init__(self, db_path: str) -> None:
        self._fd: int | None = None
        if not sys.platform.startswith("linux"):
            return
        try:
            fd = os.open(db_path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            log.debug("no share guard on %s: %s", db_path, exc)
            return
        try:
            import fcntl

            command = getattr(fcntl, "F_OFD_SETLK", _F_OFD_SETLK)
            fcntl.fcntl(fd, command, _flock(fcntl.F_RDLCK, SHARED_FIRST, SHARED_SIZE))
        except OSError as exc:  # another process holds EXCLUSIVE this instant, or no OFD locks: the WAL check remains
            log.debug("no share guard on %s: %s", db_path, exc)
            os.close(fd)
            return
        self._fd = fd

    @property
    def held(self) -> bool:
        """Whether the lock is held."""
        return self._fd is not None

    def release(self) -> None:
        """Drop the lock (closing our own descriptor releases it, and only it)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def _flock(kind: int, start: int, length: int) -> bytes:
    """A `struct flock` for Linux (l_type, l_whence, l_start, l_len, l_pid; l_pid must be 0 for OFD locks)."""
    return struct.pack("hhxxxxqqixxxx", kind, os.SEEK_SET, start, length, 0)
