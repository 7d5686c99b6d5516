"""Runs spread over worker processes: every conversation once, progress folded, cancel, resume."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest
from fakes import FakeOpenAIServer, FakeToolCall
from helpers import wait_until

from sage_desk.core.engine.runner import Runner, RunSpec, shard_of
from sage_desk.core.errors import RunError
from sage_desk.core.scoring.hooks import VerdictHooks, verdict_hook
from sage_desk.core.store import Store
from sage_desk.core.store.batch import StoreLink

CASES = ["nl-001", "nl-002", "nl-003", "nl-004", "nl-005", "nl-006"]


@dataclass(frozen=True)
class SlowVerdicts:
    """Verdicts after a pause: conversations take long enough that a cancel or kill lands mid-run."""

    pause_s: float = 0.05

    def __call__(self, store):
        post = VerdictHooks()(store)

        async def slow(*args):
            await asyncio.sleep(self.pause_s)  # the scenario: a slow verdict step, so a cancel or kill lands mid-run
            await post(*args)

        return slow

    @property
    def sources(self):
        return VerdictHooks().sources


def make_store(tmp_path):
    return Store(f"sqlite:///{tmp_path / 'runs.db'}")


def spec(**kw):
    base = dict(domain="northline", agents=["baseline:oracle", "baseline:complier"], cases=CASES, repeats=2, concurrency=4)
    return RunSpec(**{**base, **kw})


def runner_of(store, **kw):
    return Runner(store, link=StoreLink.of(store), **kw)


def test_shards_are_stable_and_mixed():
    ids = [f"c-{i:04d}" for i in range(600)]
    shares = [shard_of(cid, 3) for cid in ids]
    assert shares == [shard_of(cid, 3) for cid in ids]  # the parent and every worker agree
    assert all(150 < shares.count(k) < 250 for k in range(3))
    assert {shard_of(cid, 1) for cid in ids} == {0}


def test_two_workers_play_every_conversation_exactly_once_with_verdicts(tmp_path):
    store = make_store(tmp_path)
    seen = []
    runner = runner_of(store, on_progress=lambda p: seen.append(p.done), post_factory=VerdictHooks(), workers=2)
    run_id = runner.create(spec())
    progress = asyncio.run(runner.execute(run_id))

    assert progress.done == progress.total == 24 and progress.errored == 0
    assert seen[-1] == 24 and seen == sorted(seen)
    convs = store.conversations(run_id=run_id)
    assert {c.status.value for c in convs} == {"finished"}
    assert store.get_run(run_id).status.value == "finished"
    for conv in convs:
        events = store.events(conv.id)
        assert [e.seq for e in events] == list(range(len(events)))  # one writer per conversation: no duplicates
        assert any(v.criterion == "outcome" for v in store.verdicts(conversation_id=conv.id, source="rules"))


def test_workers_give_the_same_outcomes_as_one_process(tmp_path):
    one, two = Store(f"sqlite:///{tmp_path / 'one.db'}"), Store(f"sqlite:///{tmp_path / 'two.db'}")
    results = []
    for store, workers in ((one, 1), (two, 2)):
        runner = runner_of(store, post_factory=VerdictHooks(), workers=workers)
        run_id = runner.create(spec())
        asyncio.run(runner.execute(run_id))
        results.append(
            sorted(
                (
                    c.case_id,
                    c.agent,
                    c.repeat,
                    c.termination,
                    len(store.events(c.id)),
                    sorted((v.criterion, v.passed) for v in store.verdicts(conversation_id=c.id)),
                )
                for c in store.conversations(run_id=run_id)
            )
        )
    assert results[0] == results[1]


def test_cancel_stops_the_workers_and_resume_finishes_the_run(tmp_path):
    store = make_store(tmp_path)

    def cancel_after_first(progress):
        if progress.done >= 1:
            runner.cancel()

    runner = runner_of(store, on_progress=cancel_after_first, post_factory=SlowVerdicts(), workers=2)
    run_id = runner.create(spec(repeats=6, concurrency=2))
    asyncio.run(runner.execute(run_id))
    assert store.get_run(run_id).status.value == "cancelled"
    assert 0 < len(store.unfinished_conversations(run_id)) < 72

    progress = asyncio.run(runner_of(store, post_factory=VerdictHooks(), workers=2).execute(run_id))
    assert progress.done == 72 and not store.unfinished_conversations(run_id)


def test_a_killed_worker_is_reported_and_its_conversations_stay_resumable(tmp_path):
    store = make_store(tmp_path)
    killed = []

    def kill_one_worker(progress):
        pool = runner._pool
        # Workers claim conversations as they go: kill one once both are playing (two conversations running),
        # so the killed one holds some it had claimed.
        if pool is not None and not killed and progress.done >= 1 and store.count_to_play(run_id, ["running"]) >= 2:
            victim = pool.processes[0]
            os.kill(victim.pid, signal.SIGKILL)
            killed.append(victim.pid)

    runner = runner_of(store, on_progress=kill_one_worker, post_factory=SlowVerdicts(), workers=2)
    run_id = runner.create(spec(repeats=6, concurrency=2))
    with pytest.raises(RunError, match="worker process failed"):
        asyncio.run(runner.execute(run_id))
    assert killed and store.unfinished_conversations(run_id)

    progress = asyncio.run(runner_of(store, post_factory=VerdictHooks(), workers=2).execute(run_id))
    assert progress.done == 72 and not store.unfinished_conversations(run_id)


def test_workers_refuse_an_in_memory_database_and_a_bound_post_hook(tmp_path):
    memory = Store("sqlite://")
    runner = runner_of(memory, workers=2)
    run_id = runner.create(spec())
    with pytest.raises(RunError, match="in-memory"):
        asyncio.run(runner.execute(run_id))

    store = make_store(tmp_path)
    bound = runner_of(store, post=verdict_hook(store), workers=2)
    run_id = bound.create(spec())
    with pytest.raises(RunError, match="post_factory"):
        asyncio.run(bound.execute(run_id))


def _descendants(pid):
    """Every living process under `pid` (from /proc), children of children included."""
    parents = {}
    for stat in os.listdir("/proc"):
        if stat.isdigit():
            try:
                with open(f"/proc/{stat}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":  # a zombie has ended; only its parent has not read its status yet
                parents[int(stat)] = int(fields[1])
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        children = [p for p, parent in parents.items() if parent == current]
        found.update(children)
        todo.extend(children)
    return found


def _slow_agent(request):
    """Answer once (the latency is the server's), then close the ticket."""
    if any(m["role"] == "assistant" for m in request["messages"]):
        return [FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "done"})]
    return "Let me look into that."


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_end_with_their_parent_on_kill_9_and_stop_calling_the_provider(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_slow_agent, latency=0.5) as server:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sage_desk",
                "run",
                "--db",
                db,
                "--domain",
                "northline",
                "--agent",
                "openai/agent",
                "--api-base",
                server.base_url,
                "--workers",
                "2",
                "--concurrency",
                "4",
                "--quiet",
            ],
            env={**os.environ, "SAGE_DESK_HOME": str(tmp_path)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            assert server.wait_for_requests(4, timeout=60), proc.stderr.read() if proc.poll() is not None else ""
            workers = _descendants(proc.pid)
            assert len(workers) >= 2  # two workers (and, on Linux, the forkserver they come from)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=10)
        wait_until(lambda: not _descendants_alive(workers), timeout=4, interval=0.05, message="workers outlived their parent")
        asked = len(server.requests)
        time.sleep(1.0)  # a quiet window: that no request comes has no event to wait on
        assert len(server.requests) == asked  # nobody calls the provider any more
    store = Store(db)
    (run,) = store.list_runs()
    finished = [c for c in store.conversations(run_id=run.id) if c.status.value == "finished"]
    assert all(store.events(c.id) and store.verdicts(conversation_id=c.id) for c in finished)  # nothing written was lost


def _descendants_alive(pids):
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.add(pid)
        except OSError:
            continue
    return alive
