"""`sage-desk doctor --run R` repairs a run with finished conversations and no transcript;
`doctor` calls a damaged SQLite file damaged (issue 34)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sage_desk.cli import doctor, main
from sage_desk.core.events import AgentMessage, CustomerMessage, TerminationReason
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import Store


def _finished(store: Store, cid: str, with_transcript: bool) -> None:
    store.start_conversation(cid)
    events = [CustomerMessage(seq=0, turn=1, text="hello"), AgentMessage(seq=1, text="hi")] if with_transcript else []
    if events:
        store.append_many(cid, events)
    store.save_verdicts(cid, "rules", [Verdict(criterion="outcome", passed=True)])
    store.finish(cid, TerminationReason.CLOSED, events=events)


def test_doctor_run_sets_transcriptless_finished_conversations_back_to_pending(tmp_path: Path, capsys) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    with Store(url) as store:
        run_id = store.create_run(
            "northline", {"agents": ["a"]}, [{"id": f"c{i}", "case_id": f"case-{i}", "agent": "a"} for i in range(3)]
        )
        _finished(store, "c0", with_transcript=True)
        _finished(store, "c1", with_transcript=False)  # what two processes playing one run left (issue 34)
    assert main(["doctor", "--db", url, "--run", run_id]) == 1
    out = capsys.readouterr().out
    assert f"fixed run {run_id}: 1 finished conversation(s) had no transcript (c1)" in out
    assert f"sage-desk run --resume {run_id}" in out
    with Store(url) as store:
        by_id = {c.id: c for c in store.conversations(run_id)}
        assert by_id["c0"].status.value == "finished" and store.verdicts("c0")  # a whole one is left alone
        assert by_id["c1"].status.value == "pending" and store.verdicts("c1") == []
        assert by_id["c2"].status.value == "pending"
    assert main(["doctor", "--db", url, "--run", run_id]) == 0  # nothing left to repair
    assert "every finished conversation has its transcript" in capsys.readouterr().out


def test_doctor_run_names_an_unknown_run_in_one_line(tmp_path: Path, capsys) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    Store(url).close()
    assert main(["doctor", "--db", url, "--run", "r-nope"]) == 1
    err = capsys.readouterr().err
    assert "r-nope" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_doctor_fails_a_damaged_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    url = f"sqlite:///{path}"
    with Store(url) as store:
        store.create_run(
            "northline", {"agents": ["a"]}, [{"id": f"c{i}", "case_id": f"case-{i}" * 20, "agent": "a"} for i in range(2000)]
        )
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")
    assert doctor.check_database(url).status == "ok"
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(page * 5, page * 7):  # two pages in the middle of the conversations' table
        data[offset] = 0x5A
    path.write_bytes(bytes(data))
    check = doctor.check_database(url)
    assert check.status == "fail", check
    assert "damaged" in check.detail or "malformed" in check.detail
