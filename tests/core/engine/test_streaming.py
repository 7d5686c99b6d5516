"""A run streams (issue 22): bounded lanes, writes committed while it plays, a kill loses only the last batch.

Every test drives the real runner on a real SQLite file, built as the CLI and the app build it
(`session.build_runner`), with offline baselines.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections import Counter

import pytest
from helpers import wait_until

from sage_desk.core.engine import runner as runner_module
from sage_desk.core.engine.runner import RunSpec
from sage_desk.core.events import CustomerMessage, Ended, TerminationReason
from sage_desk.core.session import build_runner
from sage_desk.core.store import Store
from sage_desk.core.store.batch import BatchWriter

AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]
SMALL_BATCHES = {"interval": 0.01, "flush_at": 8, "max_pending": 16}


def spec(**kw):
    return RunSpec(**{"domain": "northline", "agents": AGENTS, **kw})


def finished(store, run_id):
    return store.get_run(run_id).counts.get("finished", 0)


def test_another_reader_sees_conversations_finish_while_the_run_plays(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    store, reader = Store(db), Store(db)  # the reader: as the app's Review screen, or a second process
    runner = build_runner(store, spec(), **SMALL_BATCHES)
    run_id = runner.create(spec())  # 486 conversations
    seen: list[tuple[int, int]] = []  # (finished as the reader saw them, done as the run had them)

    async def watch() -> None:
        while runner.progress is None or runner.progress.done < runner.progress.total:
            if runner.progress is not None:
                seen.append((finished(reader, run_id), runner.progress.done))
            await asyncio.sleep(0.005)  # the reader samples while the run plays: the samples are what is checked

    async def main() -> None:
        watcher = asyncio.ensure_future(watch())
        await runner.execute(run_id)
        await watcher

    asyncio.run(main())
    mid_run = [n for n, done in seen if 0 < n and done < 486]
    assert mid_run, f"the reader saw nothing before the run ended: {seen[-5:]}"
    assert finished(reader, run_id) == 486


def test_conversations_in_flight_never_exceed_the_concurrency(tmp_path, monkeypatch):
    in_flight, peak = 0, []
    play = runner_module.run_conversation

    async def gauged(*args, **kwargs):
        nonlocal in_flight
        in_flight += 1
        peak.append(in_flight)
        try:
            await asyncio.sleep(0.001)  # baselines never wait: make conversations overlap
            return await play(*args, **kwargs)
        finally:
            in_flight -= 1

    monkeypatch.setattr(runner_module, "run_conversation", gauged)
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    five = spec(concurrency=5, cases=[f"nl-{i:03d}" for i in range(1, 41)])
    runner = build_runner(store, five)
    progress = asyncio.run(runner.execute(runner.create(five)))
    assert progress.done == len(peak) == 120 and progress.errored == 0
    assert max(peak) == 5  # every lane was busy at once, and never more


def test_a_run_never_gets_ahead_of_its_writes(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    run_id = store.create_run("northline", {}, [{"case_id": "nl-001", "agent": "a"} for _ in range(5)])
    ids = [c.id for c in store.conversations(run_id=run_id)]
    writer = BatchWriter(store, interval=60, max_pending=3)  # the interval never comes: only `room` asks for a flush
    events = [CustomerMessage(text="hi", seq=0), Ended(reason=TerminationReason.CLOSED, seq=1)]

    async def main() -> list[int]:
        flusher = asyncio.ensure_future(writer.flush_every())
        committed = []
        for cid in ids:
            await writer.room()
            committed.append(finished(store, run_id))
            writer.start_conversation(cid)
            writer.append_many(cid, events)
            writer.finish(cid, TerminationReason.CLOSED, events=events)
            assert writer.pending <= 3
        writer.stop_flushing()
        await flusher
        writer.close()
        return committed

    committed = asyncio.run(main())
    assert committed[:3] == [0, 0, 0] and committed[3] == 3  # the fourth waited until the first three were written
    assert finished(store, run_id) == 5


def test_conversations_to_play_come_a_page_at_a_time_each_once_in_list_order(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    runner = build_runner(store, spec(repeats=2, cases=["nl-001", "nl-002", "nl-003"]))
    run_id = runner.create(spec(repeats=2, cases=["nl-001", "nl-002", "nl-003"]))
    pages = list(store.conversations_to_play(run_id, ["pending"], page=4))
    assert [len(p) for p in pages] == [4, 4, 4, 4, 2]
    assert [r.id for p in pages for r in p] == [c.id for c in store.conversations(run_id=run_id)]
    assert store.count_to_play(run_id, ["pending"]) == 18 and store.count_to_play(run_id, ["finished"]) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kills a process")
def test_a_killed_run_resumes_and_finishes_every_conversation_exactly_once(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    env = {**os.environ, "SAGE_DESK_HOME": str(tmp_path), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    command = [
        sys.executable,
        "-m",
        "sage_desk",
        "run",
        "--db",
        db,
        "--domain",
        "northline",
        "--quiet",
        *[a for agent in AGENTS for a in ("--agent", agent)],
        "--repeats",
        "3",
    ]  # 1,458 conversations
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader = None

    def run_with_a_finished_conversation():
        nonlocal reader
        if not os.path.exists(tmp_path / "runs.db"):
            return None
        reader = reader or Store(db)
        runs = reader.list_runs()
        return runs[0].id if runs and 0 < finished(reader, runs[0].id) else None

    try:
        run_id = wait_until(
            lambda: run_with_a_finished_conversation() or proc.poll() is not None,
            timeout=60,
            interval=0.02,
            message="no conversation finished while the run played",
        )
        if proc.poll() is None:
            kept = {c.id: c.finished_at for c in reader.conversations(run_id=run_id, status="finished")}
            proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert 0 < len(kept) < 1458  # seen mid-run, from another process

    resumed = subprocess.run(
        [sys.executable, "-m", "sage_desk", "run", "--db", db, "--resume", run_id, "--quiet"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    store = Store(db)
    convs = store.conversations(run_id=run_id)
    assert len(convs) == 1458 and {c.status.value for c in convs} == {"finished"}
    assert all(c.finished_at == kept[c.id] for c in convs if c.id in kept)  # finished before the kill: not played again
    events = store.events_many([c.id for c in convs])
    assert all([e.seq for e in events[c.id]] == list(range(len(events[c.id]))) for c in convs)
    verdicts = Counter((v.conversation_id, v.criterion) for v in store.verdicts(run_id=run_id, source="rules"))
    assert {cid for cid, _ in verdicts} == {c.id for c in convs} and set(verdicts.values()) == {1}
