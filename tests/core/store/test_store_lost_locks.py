"""Two processes on one SQLite file, while code in one of them opens and closes the database file.

SQLite's POSIX locks belong to the process (ENVIRONMENT.md): a Qt file dialog listing the
database's folder opens and closes the file, and every lock the app's connections held on it is
gone. Another process that then closes the database finds itself last and deletes the write-ahead
log the app still writes into: every later label went into an unlinked file (issue 34). These
tests play that with real processes and assert that every label the first process saved is
visible to a third one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sage_desk.core.store import Store

READ_AND_CLOSE = """
import sys
from sage_desk.core.store import Store
with Store(sys.argv[1]) as store:
    store.list_runs()
    store.overrides(run_id=sys.argv[2])
"""

SQLITE_READS = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1])
connection.execute("SELECT count(*) FROM runs").fetchone()
connection.close()
"""


def _other_process_reads(url: str, run_id: str) -> None:
    """Another process opens the database, reads and closes it (as `sage-desk conversations` does)."""
    subprocess.run([sys.executable, "-c", READ_AND_CLOSE, url, run_id], check=True, timeout=60)


def _touch_the_file(path: Path) -> None:
    """What a file dialog does to the database file: open, read a little, close (dropping the process's locks)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.read(fd, 100)
    finally:
        os.close(fd)


def _labels_seen_elsewhere(url: str, run_id: str) -> int:
    code = f"from sage_desk.core.store import Store\nwith Store({url!r}) as s: print(len(s.overrides(run_id={run_id!r})))"
    out = subprocess.run([sys.executable, "-c", code], check=True, timeout=60, capture_output=True, text=True)
    return int(out.stdout.strip())


def _no_guard(monkeypatch) -> None:
    """What a platform without open-file-description locks has: no guard, the log check alone."""
    monkeypatch.setattr("sage_desk.core.store.sqlite_guard.ShareGuard.enable", lambda self: False)


def _no_log_check(monkeypatch) -> None:
    """The guard alone: the log always looks unchanged."""
    monkeypatch.setattr("sage_desk.core.store.sqlite_guard.wal_identity", lambda _path: (0, 0))


def _save_labels_while_locks_are_lost(tmp_path: Path, make_run) -> tuple[int, int]:
    """(labels the app saved, labels another process then sees)."""
    path = tmp_path / "team.db"
    url = f"sqlite:///{path}"
    app = Store(url)  # the app's store: open for the whole test, like a running GUI
    run_id = make_run(app, n=5)
    ids = [c.id for c in app.conversations(run_id)]
    try:
        for n, cid in enumerate(ids, start=1):
            _touch_the_file(path)  # the app's own process opens and closes the file ...
            _other_process_reads(url, run_id)  # ... and another process that closes the database comes by
            app.add_override(cid, "outcome", "human", human_passed=bool(n % 2), reason=f"label {n}", author="ana")
            assert len(app.overrides(run_id=run_id)) == n  # the app itself sees what it saved
        return len(ids), _labels_seen_elsewhere(url, run_id)
    finally:
        app.close()


@pytest.mark.parametrize("defences", ["both", "log check only"])
def test_labels_survive_an_in_process_open_and_close_between_saves(tmp_path: Path, make_run, monkeypatch, defences: str) -> None:
    if defences == "log check only":
        _no_guard(monkeypatch)
    saved, seen = _save_labels_while_locks_are_lost(tmp_path, make_run)
    assert seen == saved == 5, f"{saved - seen} of the {saved} labels the app saved are missing in another process"
    with Store(f"sqlite:///{tmp_path / 'team.db'}") as later:
        assert len(later.overrides()) == saved


def test_without_either_defence_the_labels_are_lost(tmp_path: Path, make_run, monkeypatch) -> None:
    """The scenario is real: with neither defence, the other process sees none of the labels (issue 34)."""
    _no_guard(monkeypatch)
    _no_log_check(monkeypatch)
    saved, seen = _save_labels_while_locks_are_lost(tmp_path, make_run)
    assert saved == 5 and seen < saved


@pytest.mark.parametrize("guarded", [True, False])
def test_the_guard_keeps_the_log_under_an_open_transaction(tmp_path: Path, make_run, monkeypatch, guarded: bool) -> None:
    """Between the log check and the commit, only the guard stops another process deleting the log."""
    from sqlalchemy import text

    from sage_desk.core.store.sqlite_guard import wal_identity

    if not guarded:
        _no_guard(monkeypatch)
    path = tmp_path / "team.db"
    url = f"sqlite:///{path}"
    app = Store(url)
    run_id = make_run(app, n=1)
    try:
        log = wal_identity(str(path))
        with app._engine.begin() as connection:  # a write transaction in progress (a label being saved)
            connection.execute(text("UPDATE runs SET domain = 'relabelled' WHERE id = :id"), {"id": run_id})
            _touch_the_file(path)
            subprocess.run([sys.executable, "-c", SQLITE_READS, str(path)], check=True, timeout=60)  # sqlite3, a backup
            kept = wal_identity(str(path)) == log
        seen = subprocess.run(
            [sys.executable, "-c", f"from sage_desk.core.store import Store\nprint(Store({url!r}).get_run({run_id!r}).domain)"],
            check=True,
            timeout=60,
            capture_output=True,
            text=True,
        ).stdout.strip()
    finally:
        app.close()
    assert (kept, seen) == ((True, "relabelled") if guarded else (False, "northline"))
