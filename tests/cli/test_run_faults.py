"""`sage-desk run` under faults: kill -9 while an LLM judge answers, then --resume; a held write lock."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from fakes import FakeOpenAIServer, FakeToolCall
from helpers import run_args

from sage_desk.cli import main
from sage_desk.core.judge.rubric import CRITERIA
from sage_desk.core.metrics.load import unjudged_for_runs
from sage_desk.core.store import Store

CASES = "nl-001,nl-002,nl-003,nl-004,nl-005,nl-006"
JUDGE = "openai/judge-model"
SOURCES = {"rules", f"judge:{JUDGE}"}


def _judge(_request):
    return json.dumps({"scores": {c.name: {"score": 7, "rationale": "fine"} for c in CRITERIA}})


def _run_args(db, judge_url, *extra):
    return run_args(
        db, "baseline:oracle", "baseline:complier", judge=JUDGE, cases=CASES, extra=["--judge-api-base", judge_url, *extra]
    )


def _unjudged_finished(store, run_id):
    by_conversation: dict[str, set[str]] = {}
    for v in store.verdicts(run_id=run_id):
        by_conversation.setdefault(v.conversation_id, set()).add(v.source)
    return [
        c.id
        for c in store.conversations(run_id=run_id)
        if c.status.value == "finished" and not SOURCES <= by_conversation.get(c.id, set())
    ]


# One kill point for this fault kind (a real process killed mid-judging): 1, 5 and 9 judged before the kill
# tested the same code path three times, 2 s each on an idle machine.
@pytest.mark.parametrize("judged_before_kill", [5])
def test_kill_9_while_the_judge_answers_then_resume_leaves_every_finished_conversation_judged(tmp_path, judged_before_kill):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_judge, latency=0.3) as judge:
        env = {**os.environ, "SAGE_DESK_HOME": str(tmp_path / "home")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "sage_desk", *_run_args(db, judge.base_url, "--concurrency", "4")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            assert judge.wait_for_requests(judged_before_kill, timeout=60), proc.stderr.read() if proc.poll() else ""
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=10)
        store = Store(db)
        (run,) = store.list_runs()
        assert _unjudged_finished(store, run.id) == []  # finished means judged, whenever the kill landed
        assert main(_run_args(db, judge.base_url, "--resume", run.id)) == 0
    rows = store.conversations(run_id=run.id)
    assert len(rows) == 12 and {c.status.value for c in rows} == {"finished"}
    assert _unjudged_finished(store, run.id) == []


def test_resume_judges_finished_conversations_missing_their_judge_verdicts_without_playing_them_again(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_judge) as judge:
        assert main(_run_args(db, judge.base_url)) == 0
        store = Store(db)
        (run,) = store.list_runs()
        victims = [c.id for c in store.conversations(run_id=run.id)][:3]
        events_before = {cid: store.events(cid) for cid in victims}
        with sqlite3.connect(tmp_path / "runs.db") as raw:  # as a database written before judging was atomic
            raw.executemany(
                "DELETE FROM verdicts WHERE conversation_id = ? AND source = ?", [(cid, f"judge:{JUDGE}") for cid in victims]
            )
        assert len(_unjudged_finished(store, run.id)) == 3
        assert {run.id: sorted(victims)} == {k: sorted(v) for k, v in unjudged_for_runs(store, [run.id]).items()}
        asked = len(judge.requests)
        assert main(_run_args(db, judge.base_url, "--resume", run.id)) == 0
        assert len(judge.requests) == asked + 3  # only the three were judged again
    assert _unjudged_finished(store, run.id) == []
    assert {cid: store.events(cid) for cid in victims} == events_before  # judged from their events, not replayed


def test_a_run_whose_judging_cannot_be_completed_says_so_and_exits_1(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_judge) as judge:
        assert main(_run_args(db, judge.base_url)) == 0
        store = Store(db)
        (run,) = store.list_runs()
        victim = store.conversations(run_id=run.id)[0]
        with sqlite3.connect(tmp_path / "runs.db") as raw:  # its case is gone from the suite: nothing can judge it
            raw.execute("DELETE FROM verdicts WHERE conversation_id = ?", (victim.id,))
            raw.execute("UPDATE conversations SET case_id = 'nl-gone' WHERE id = ?", (victim.id,))
        capsys.readouterr()
        assert main(_run_args(db, judge.base_url, "--resume", run.id)) == 1
    err = capsys.readouterr().err
    assert "1 unjudged" in err and f"--resume {run.id}" in err


def _hold_write_lock(path, seconds, holding):
    with sqlite3.connect(path, timeout=30, isolation_level=None) as raw:
        raw.execute("BEGIN IMMEDIATE")
        holding.set()
        time.sleep(seconds)  # the scenario: another process keeps the lock past several busy timeouts
        raw.execute("COMMIT")


def test_a_write_lock_held_by_another_process_past_the_busy_timeout_loses_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sage_desk.core.store.engine.BUSY_TIMEOUT_MS", 300)  # the lock outlasts several busy waits
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    Store(db).close()
    holding = threading.Event()
    with FakeOpenAIServer(_judge, latency=0.05) as judge:
        holder = threading.Thread(target=_hold_write_lock, args=(tmp_path / "runs.db", 2.5, holding))
        original = judge.script

        def lock_once_judging(request):  # the lock lands mid-run, while conversations are being judged
            if not holder.is_alive() and not holding.is_set():
                holder.start()
            return original(request)

        judge.script = lock_once_judging
        code = main(_run_args(db, judge.base_url))
        holder.join()
    assert holding.is_set()
    store = Store(db)
    (run,) = store.list_runs()
    rows = store.conversations(run_id=run.id)
    assert code == 0, capsys.readouterr().err
    assert {c.status.value for c in rows} == {"finished"} and _unjudged_finished(store, run.id) == []
    assert all(store.events(c.id) for c in rows)


def test_a_missing_key_fails_at_once_naming_the_variable(tmp_path, memory_keyring, capsys):
    started = time.monotonic()
    code = main(
        run_args(
            f"sqlite:///{tmp_path / 'runs.db'}",
            "baseline:oracle",
            user="openai/gpt-4o-mini",
            judge="anthropic/claude-3-5-haiku",
            cases="nl-001",
            repeats=None,
        )
    )
    assert time.monotonic() - started < 15
    err = capsys.readouterr().err
    assert code == 1 and "no API key for user openai/gpt-4o-mini: set OPENAI_API_KEY" in err
    assert "ANTHROPIC_API_KEY" in err
    assert Store(f"sqlite:///{tmp_path / 'runs.db'}").list_runs() == []  # refused before anything was recorded


CANARY = "sk-canary-5d41402abc4b2a76b9719d911017c592"


def test_canary_keys_appear_in_no_file_the_app_writes(tmp_path, monkeypatch, memory_keyring):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("SAGE_DESK_HOME", str(home))
    db = f"sqlite:///{home / 'runs.db'}"

    def echoing(request):  # a careless provider: the key comes back in the reply
        key = server.headers[-1].get("authorization", "").removeprefix("Bearer ")
        if any(m["role"] == "assistant" for m in request["messages"]):
            return [FakeToolCall("close_ticket", {"outcome": "resolved", "summary": f"done {key}"})]
        return f"Hello, I see your key {key}"

    with FakeOpenAIServer(echoing) as server:
        server.push_faults("401")  # its error body echoes the key too
        main(
            run_args(
                db,
                "openai/agent",
                judge=JUDGE,
                cases="nl-001,nl-002,nl-003",
                repeats=None,
                extra=["--api-base", server.base_url, "--judge-api-base", f"{server.base_url}?api_key={CANARY}"],
            )
        )
        out = tmp_path / "set.csv"
        main(["export-calibration", "--db", db, "--out", str(out)])
    assert any(CANARY in "".join(h.values()) for h in server.headers)  # it was sent ...
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".db" for p in written)
    assert [p for p in written if CANARY.encode() in p.read_bytes()] == []  # ... and written nowhere
    store = Store(db)
    (run,) = store.list_runs()
    assert run.config["judge_api_base"].endswith("?api_key=***")


def test_a_lock_held_past_the_retry_window_stops_the_run_saying_so_and_resume_finishes_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sage_desk.core.store.engine.BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr("sage_desk.core.store.retry.RETRY_WINDOW_S", 0.5)
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    Store(db).close()
    holding = threading.Event()
    with FakeOpenAIServer(_judge, latency=0.05) as judge:
        holder = threading.Thread(target=_hold_write_lock, args=(tmp_path / "runs.db", 3.0, holding))

        def lock_once_judging(request):
            if not holder.is_alive() and not holding.is_set():
                holder.start()
            return _judge(request)

        judge.script = lock_once_judging
        code = main(_run_args(db, judge.base_url))
        err = capsys.readouterr().err
        holder.join()
        assert code == 1 and "--resume" in err and "locked" in err and "Traceback" not in err
        store = Store(db)
        (run,) = store.list_runs()
        assert main(_run_args(db, judge.base_url, "--resume", run.id)) == 0
    rows = store.conversations(run_id=run.id)
    assert {c.status.value for c in rows} == {"finished"} and _unjudged_finished(store, run.id) == []


def test_a_judge_that_fails_leaves_conversations_unjudged_and_resume_judges_them(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_judge) as judge:
        judge.fault_rates = {"400": 1.0}  # the judge refuses every call (a permanent error: no waiting on retries)
        assert main(_run_args(db, judge.base_url, "--concurrency", "12")) == 1
        assert "12 unjudged" in capsys.readouterr().err
        judge.fault_rates = {}
        store = Store(db)
        (run,) = store.list_runs()
        assert main(_run_args(db, judge.base_url, "--resume", run.id)) == 0
    assert _unjudged_finished(store, run.id) == []
    assert not [v for v in store.verdicts(run_id=run.id) if v.criterion == "judge"]
