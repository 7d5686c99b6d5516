"""One run played by three processes on one PostgreSQL database (issue 38), one killed with -9
mid-run: every conversation finishes exactly once, each with its transcript and verdicts.

Each process runs `sage-desk run --join RUN`: it claims conversations nobody plays a few at a time
(`FOR UPDATE SKIP LOCKED`), beats its heartbeat, and takes back what a dead process held.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator

import pytest
from fakes import FakeOpenAIServer, FakeReply, FakeToolCall
from helpers import own_pg_database, run_args, wait_until

from sage_desk.core.judge.rubric import CRITERIA
from sage_desk.core.store import Store

PG_URL = os.environ.get("SAGE_DESK_TEST_PG_URL")
pytestmark = pytest.mark.skipif(not PG_URL, reason="set SAGE_DESK_TEST_PG_URL to test PostgreSQL")
JUDGE = "openai/judge-model"
CASES = ",".join(f"nl-{i:03d}" for i in range(1, 16))
CONVERSATIONS = 30  # 15 cases x 2 agents
CONCURRENCY = 2


def _judge(_request):
    return json.dumps({"scores": {c.name: {"score": 7, "rationale": "fine"} for c in CRITERIA}})


@pytest.fixture
def pg_db() -> Iterator[str]:
    """A database of this test's own on the test server (other tests drop the shared one's schema)."""
    assert PG_URL
    with own_pg_database(PG_URL, "sage_join_") as url:
        yield url


def _owner_pids(url: str, run_id: str) -> set[int]:
    """The process ids of the run's live owners."""
    with Store(url) as store:
        return {o.pid for o in store.run_owners(run_id)}


def _held_unfinished(url: str, owner_id: int) -> list[str]:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return list(
                connection.execute(
                    text("SELECT id FROM conversations WHERE owner_id = :o AND status IN ('pending', 'running')"), {"o": owner_id}
                ).scalars()
            )
    finally:
        engine.dispose()


def _sage_desk(tmp_path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "SAGE_DESK_HOME": str(tmp_path / "home"), "SAGE_DESK_OWNER_TIMEOUT_S": "3"}
    return subprocess.Popen(
        [sys.executable, "-m", "sage_desk", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_three_joiners_one_killed_finish_every_conversation_once(tmp_path, pg_db: str) -> None:
    with FakeOpenAIServer(_judge, latency=0.4) as judge:
        creator = _sage_desk(
            tmp_path,
            *run_args(
                pg_db,
                "baseline:oracle",
                "baseline:complier",
                judge=JUDGE,
                cases=CASES,
                quiet=False,
                extra=["--judge-api-base", judge.base_url, "--concurrency", str(CONCURRENCY), "--create-only"],
            ),
        )
        out, err = creator.communicate(timeout=120)
        assert creator.returncode == 0, err
        run_id = out.strip().splitlines()[-1]
        assert len(judge.requests) == 0  # created, not played
        joiners = [_sage_desk(tmp_path, "run", "--db", pg_db, "--join", run_id, "--quiet") for _ in range(3)]
        try:
            assert judge.wait_for_requests(6, timeout=120), [j.stderr.read() for j in joiners if j.poll() is not None]
            wait_until(
                lambda: _owner_pids(pg_db, run_id) >= {j.pid for j in joiners},
                timeout=60,
                interval=0.1,
                message="a joiner never registered",
            )
            with Store(pg_db) as store:
                owners = {o.pid: o.id for o in store.run_owners(run_id)}
                assert set(owners) == {j.pid for j in joiners}  # all three are playing
                joiners[0].send_signal(signal.SIGKILL)
                held = _held_unfinished(pg_db, owners[joiners[0].pid])
            assert held, "the killed joiner held no unfinished conversation: nothing was handed back"
            results = [j.communicate(timeout=180) for j in joiners[1:]]
        finally:
            for j in joiners:
                if j.poll() is None:
                    j.kill()
        for joiner, (_, err) in zip(joiners[1:], results, strict=True):
            assert joiner.returncode == 0, err
        asked = len(judge.requests)
    with Store(pg_db) as store:
        rows = store.conversations(run_id)
        assert len(rows) == CONVERSATIONS
        assert Counter(r.status.value for r in rows) == {"finished": CONVERSATIONS}
        events = store.events_many([r.id for r in rows])
        assert all(events[r.id] for r in rows), "a finished conversation without its transcript"
        verdicts = store.verdicts(run_id=run_id)
        per_source = Counter((v.conversation_id, v.source, v.criterion) for v in verdicts)
        assert max(per_source.values()) == 1, "a conversation's verdicts were stored twice"
        assert {v.source for v in verdicts} == {"rules", f"judge:{JUDGE}"}
        assert {v.conversation_id for v in verdicts if v.source != "rules"} == {r.id for r in rows}
        assert store.run_owners(run_id, alive_only=False) == []  # the dead joiner's row was taken over, the others left
        assert store.get_run(run_id).status.value == "finished"
    # Played at most once each by a live process: only what the killed joiner had in flight was asked again.
    assert CONVERSATIONS <= asked <= CONVERSATIONS + CONCURRENCY, asked


def _http_agent(request):
    """An agent behind HTTP (each body names its conversation_id): look the order up and tag it, then close."""
    if not any(m["role"] == "tool" for m in request["messages"]):
        opening = next(m["content"] for m in request["messages"] if m["role"] == "user")
        order = next((w.strip(".,:;") for w in opening.split() if w.startswith("NL-")), "NL-0")
        return [FakeToolCall("lookup_order", {"order_id": order}), FakeToolCall("tag_ticket", {"intent": "order_status"})]
    return FakeReply(content="Done.", tool_calls=[FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "ok"})])


def _openings(requests: list[dict]) -> Counter:
    """How often each conversation was started: its agent's first request (no tool result yet)."""
    return Counter(r["conversation_id"] for r in requests if not any(m["role"] == "tool" for m in r["messages"]))


def test_a_joiner_added_to_a_plain_run_plays_none_of_its_conversations_again(tmp_path, pg_db: str) -> None:
    with FakeOpenAIServer(_http_agent, latency=0.3) as agent:
        plain = _sage_desk(
            tmp_path,
            *run_args(
                pg_db,
                f"{agent.base_url}/chat/completions",
                cases=CASES,
                repeats=2,
                extra=["--agent-param", "model=fake-agent", "--concurrency", str(CONCURRENCY)],
            ),
        )
        joiner = None
        try:
            assert agent.wait_for_requests(4, timeout=120), plain.stderr.read() if plain.poll() is not None else ""
            with Store(pg_db) as store:
                (run,) = store.list_runs()
            joiner = _sage_desk(tmp_path, "run", "--db", pg_db, "--join", run.id, "--quiet")
            held_by_joiner = _wait_for_claims(pg_db, run.id, joiner.pid)
            assert held_by_joiner, "the joiner never claimed a conversation"
            results = [p.communicate(timeout=180) for p in (plain, joiner)]
        finally:
            for p in (plain, joiner):
                if p is not None and p.poll() is None:
                    p.kill()
        for p, (_, err) in zip((plain, joiner), results, strict=True):
            assert p.returncode == 0, err
        openings = _openings(agent.requests)
    with Store(pg_db) as store:
        rows = store.conversations(run.id)
        assert len(rows) == 30  # 15 cases x 2 repeats
        assert Counter(r.status.value for r in rows) == {"finished": 30}
        events = store.events_many([r.id for r in rows])
        assert all(events[r.id] for r in rows), "a finished conversation without its transcript"
        assert store.run_owners(run.id, alive_only=False) == []
        assert store.get_run(run.id).status.value == "finished"
    assert set(openings) == {r.id for r in rows}
    assert max(openings.values()) == 1, [cid for cid, n in openings.items() if n > 1]  # none played twice
    assert set(held_by_joiner) <= {r.id for r in rows}


def _wait_for_claims(url: str, run_id: str, pid: int, timeout_s: float = 60) -> list[str]:
    """The unfinished conversations the process `pid` holds, once it holds some (fails after the timeout)."""

    def held() -> list[str]:
        with Store(url) as store:
            mine = [o.id for o in store.run_owners(run_id) if o.pid == pid]
        return _held_unfinished(url, mine[0]) if mine else []

    return wait_until(held, timeout=timeout_s, interval=0.1, message="the joiner never claimed a conversation")
