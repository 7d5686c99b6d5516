"""The GUI reads while a run writes: threads on one file database, no 'database is locked'."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from sage_desk.core.events import AgentMessage, CustomerMessage, TerminationReason
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import Store

EVENTS_PER_CONVERSATION = 40


def _write_run(store: Store, ids: list[str], errors: list[BaseException]) -> None:
    try:
        for cid in ids:
            store.start_conversation(cid)
            for seq in range(EVENTS_PER_CONVERSATION):
                event = (
                    CustomerMessage(seq=seq, turn=seq // 2 + 1, text=f"m{seq}")
                    if seq % 2 == 0
                    else AgentMessage(seq=seq, text=f"a{seq}")
                )
                store.append(cid, event)
            store.save_verdicts(cid, "rules", [Verdict(criterion="outcome", passed=True)])
            store.finish(cid, TerminationReason.CLOSED)
    except BaseException as exc:  # reported by the test, not swallowed
        errors.append(exc)


def _read_until(
    stop: threading.Event, store: Store, run_id: str, ids: list[str], errors: list[BaseException], reads: list[int]
) -> None:
    try:
        while not stop.is_set():
            store.list_runs()
            store.conversations(run_id, status="finished")
            for cid in ids[:3]:
                events = store.events(cid)
                assert [e.seq for e in events] == list(range(len(events)))  # never a gap mid-conversation
            store.effective_verdicts(run_id=run_id)
            reads[0] += 1
    except BaseException as exc:
        errors.append(exc)


def test_a_reader_and_two_writers_on_one_file(tmp_path: Path, make_run: Callable[..., str]) -> None:
    url = f"sqlite:///{tmp_path / 'busy.db'}"
    writer_store, reader_store = Store(url), Store(url)  # like the engine thread and the GUI, separately opened
    run_id = make_run(writer_store, n=6, agents=("openai/a", "openai/b"))
    ids = [c.id for c in writer_store.conversations(run_id)]
    errors: list[BaseException] = []
    reads = [0]
    stop = threading.Event()
    reader = threading.Thread(target=_read_until, args=(stop, reader_store, run_id, ids, errors, reads))
    writers = [threading.Thread(target=_write_run, args=(writer_store, ids[i::2], errors)) for i in range(2)]
    started = time.perf_counter()
    reader.start()
    for w in writers:
        w.start()
    for w in writers:
        w.join(timeout=60)
    stop.set()
    reader.join(timeout=10)
    elapsed = time.perf_counter() - started
    writer_store.close()
    reader_store.close()
    assert not errors, errors[:3]
    assert reads[0] > 0
    with Store(url) as check:
        assert all(c.status == "finished" and c.turns == EVENTS_PER_CONVERSATION // 2 for c in check.conversations(run_id))
        assert len(check.events(ids[-1])) == EVENTS_PER_CONVERSATION
    appended = len(ids) * EVENTS_PER_CONVERSATION
    print(f"{appended} appends + {reads[0]} read rounds in {elapsed:.2f}s")
