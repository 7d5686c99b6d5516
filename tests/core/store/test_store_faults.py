"""The store under faults: locks held elsewhere are waited out, broken files are one clear error,
a conversation's verdicts commit with its finish, and unjudged conversations are found."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError

from sage_desk.core.events import CustomerMessage, Ended, TerminationReason
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import Store, StoreError
from sage_desk.core.store.batch import BatchWriter
from sage_desk.core.store.retry import is_transient, retry_transient


def _locked() -> OperationalError:
    return OperationalError("INSERT ...", {}, sqlite3.OperationalError("database is locked"))


def test_a_locked_database_is_transient_a_readonly_one_and_a_broken_constraint_are_not():
    assert is_transient(_locked())
    assert not is_transient(OperationalError("INSERT", {}, sqlite3.OperationalError("attempt to write a readonly database")))
    assert not is_transient(IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed")))
    assert not is_transient(ValueError("database is locked"))


def test_transient_failures_are_retried_within_the_window_then_raised():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise _locked()
        return "done"

    assert retry_transient(flaky, sleep=lambda _s: None) == "done" and len(calls) == 3
    with pytest.raises(OperationalError):
        retry_transient(lambda: (_ for _ in ()).throw(_locked()), window_s=0.2)
    permanent = []
    with pytest.raises(IntegrityError):
        retry_transient(lambda: permanent.append(1) or (_ for _ in ()).throw(IntegrityError("x", {}, Exception("no"))))
    assert permanent == [1]


def test_a_write_waits_for_a_lock_another_process_holds_past_the_busy_timeout(tmp_path, monkeypatch):
    monkeypatch.setattr("sage_desk.core.store.engine.BUSY_TIMEOUT_MS", 100)
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    run_id = store.create_run("northline", {}, [{"case_id": "nl-001", "agent": "a"}])
    (cid,) = [c.id for c in store.conversations(run_id=run_id)]
    holding = threading.Event()

    def hold():
        with sqlite3.connect(tmp_path / "runs.db", isolation_level=None) as raw:
            raw.execute("BEGIN IMMEDIATE")
            holding.set()
            time.sleep(1.0)  # the scenario: a writer elsewhere keeps the lock for ten busy timeouts
            raw.execute("COMMIT")

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(5)
    started = time.monotonic()
    store.start_conversation(cid)  # ten busy timeouts pass before the lock goes
    holder.join()
    assert time.monotonic() - started >= 0.8
    assert store.conversation(cid).status.value == "running"


@pytest.mark.parametrize("content", [b"this is not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_corrupted_database_is_one_clear_store_error(tmp_path, content):
    path = tmp_path / "broken.db"
    path.write_bytes(content)
    with pytest.raises(StoreError) as caught:
        Store(f"sqlite:///{path}")
    message = str(caught.value)
    assert "cannot open the database" in message and "\n" not in message


def test_an_unreachable_database_folder_is_one_clear_store_error(tmp_path):
    with pytest.raises(StoreError, match="cannot open the database"):
        Store(f"sqlite:///{tmp_path / 'no' / 'such' / 'folder' / 'runs.db'}")


def _two_conversations(store):
    run_id = store.create_run("northline", {}, [{"case_id": "nl-001", "agent": "a"}, {"case_id": "nl-002", "agent": "a"}])
    return run_id, [c.id for c in store.conversations(run_id=run_id)]


def test_a_played_conversations_verdicts_are_held_until_its_finish_and_commit_with_it(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    _, (cid, _) = _two_conversations(store)
    writer = BatchWriter(store)
    events = [CustomerMessage(text="hi", seq=0), Ended(reason=TerminationReason.CLOSED, seq=1)]
    writer.start_conversation(cid)
    writer.append_many(cid, events)
    writer.save_verdicts(cid, "rules", [Verdict(source="rules", criterion="outcome", passed=True)])
    writer.flush()  # a judge still answering: the rules' verdicts wait for the finish
    assert store.verdicts(conversation_id=cid) == [] and store.conversation(cid).status.value == "running"
    writer.save_verdicts(cid, "judge:m", [Verdict(source="judge:m", criterion="judge.empathy", score=0.7)])
    writer.finish(cid, TerminationReason.CLOSED, events=events)
    writer.close()
    assert store.conversation(cid).status.value == "finished"
    assert {v.source for v in store.verdicts(conversation_id=cid)} == {"rules", "judge:m"}


def test_unjudged_conversations_are_the_finished_ones_missing_a_source(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    run_id, (judged, unjudged) = _two_conversations(store)
    for cid in (judged, unjudged):
        store.start_conversation(cid)
        store.finish(cid, TerminationReason.CLOSED, events=[])
        store.save_verdicts(cid, "rules", [Verdict(source="rules", criterion="outcome", passed=True)])
    store.save_verdicts(judged, "judge:m", [Verdict(source="judge:m", criterion="judge.empathy", unscored=True)])
    assert [c.id for c in store.unjudged_conversations(run_id, ["rules", "judge:m"])] == [unjudged]
    assert store.unjudged_conversations(run_id, ["rules"]) == []
    assert store.unjudged_conversations(run_id, []) == []


def test_a_judge_whose_call_failed_leaves_its_conversation_unjudged(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    run_id, (failed, answered) = _two_conversations(store)
    for cid in (failed, answered):
        store.start_conversation(cid)
        store.finish(cid, TerminationReason.CLOSED, events=[])
        store.save_verdicts(cid, "rules", [Verdict(source="rules", criterion="outcome", passed=True)])
    store.save_verdicts(
        failed,
        "judge:m",
        [
            Verdict(
                source="judge:m",
                criterion="judge",
                unscored=True,
                rationale="unscored: the judge failed: gave up after 5 attempt(s)",
            )
        ],
    )
    store.save_verdicts(
        answered,
        "judge:m",
        [Verdict(source="judge:m", criterion="judge.empathy", unscored=True, rationale="unscored: no JSON object in the reply")],
    )
    assert [c.id for c in store.unjudged_conversations(run_id, ["rules", "judge:m"])] == [failed]


@pytest.mark.parametrize("damage", ["most pages", "last pages"])  # caught on opening, or only on reading
def test_a_database_corrupted_after_it_was_written_is_one_clear_store_error(tmp_path, damage):
    path = tmp_path / "runs.db"
    with Store(f"sqlite:///{path}") as store:
        run_id = store.create_run("northline", {}, [{"case_id": f"nl-{i:03}", "agent": "a"} for i in range(400)])
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    page, pages = 4096, len(data) // 4096
    damaged = range(8, pages - 1) if damage == "most pages" else range(pages - 3, pages)
    for number in damaged:
        data[number * page : (number + 1) * page] = b"\xde\xad\xbe\xef" * (page // 4)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError) as caught, Store(f"sqlite:///{path}") as store:
        store.conversations(run_id=run_id)
    assert "malformed" in str(caught.value) and "\n" not in str(caught.value)


def test_a_path_given_as_the_database_is_a_sqlite_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with Store("runs.db") as store:  # what `--db runs.db` passes: a file, as the user means it
        assert str(store.url) == f"sqlite:///{tmp_path / 'runs.db'}"
    assert (tmp_path / "runs.db").is_file()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("postgresql+psycopg://::bad", "not a database URL: 'postgresql+psycopg://::bad'"),
        ("foo://somewhere/db", "no database driver for 'foo'"),
        ("  ", "no database given"),
    ],
)
def test_a_database_url_nobody_can_read_is_one_clear_error(given, said):
    with pytest.raises(StoreError) as caught:
        Store(given)
    assert str(caught.value).startswith(said)
