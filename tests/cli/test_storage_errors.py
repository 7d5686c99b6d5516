"""A storage error is one plain line on the terminal, its SQL and parameters in the log (issue 34)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from sage_desk.cli import main
from sage_desk.core.store import Store


def test_a_write_refused_by_a_held_lock_is_one_plain_line(tmp_path: Path, monkeypatch, capsys, caplog) -> None:
    monkeypatch.setattr("sage_desk.core.store.engine.BUSY_TIMEOUT_MS", 100)
    db = tmp_path / "runs.db"
    url = f"sqlite:///{db}"
    with Store(url) as store:
        run_id = store.create_run("northline", {"agents": ["a"]}, [{"id": "c-1", "case_id": "nl-001", "agent": "a"}])
        (conversation,) = store.conversations(run_id)
    labels = tmp_path / "labels.csv"
    labels.write_text(f"conversation,criterion,value,reason,author\n{conversation.id},outcome,pass,ok,ana\n")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write transaction, held (a backup, sqlite3 left open)
    try:
        with caplog.at_level(logging.WARNING, logger="sage_desk.store"):
            code = main(["label", "--db", url, "--run", run_id, "--from", str(labels)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip().splitlines() == [err.strip()], err
    assert "write lock" in err and "database is locked" in err
    assert "[SQL:" not in err and "BEGIN" not in err and "Traceback" not in err
    assert any("[SQL: BEGIN IMMEDIATE]" in r.getMessage() for r in caplog.records)  # the statement goes to the log
