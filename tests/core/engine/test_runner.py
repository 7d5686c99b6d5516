"""The runner against a real SQLite store: create, execute, cancel, resume, verdicts.

Every test runs twice: with a `post_factory` and the store's link (the run's writes go through
the group-commit `BatchWriter`, as `sage-desk run` and the GUI do) and with a `post` hook bound
to the store (direct writes).
"""

from __future__ import annotations

import asyncio

import pytest

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.hooks import VerdictHooks, verdict_hook
from sage_desk.core.store import Store
from sage_desk.core.store.batch import StoreLink


def make_store(tmp_path):
    return Store(f"sqlite:///{tmp_path / 'runs.db'}")


@pytest.fixture(params=["batched", "direct"])
def make_runner(request):
    def make(store, **kw):
        if request.param == "batched":
            return Runner(store, post_factory=VerdictHooks(), link=StoreLink.of(store), **kw)
        return Runner(store, post=verdict_hook(store), **kw)

    return make


def spec(**kw):
    base = dict(domain="northline", agents=["baseline:oracle"], cases=["nl-001", "nl-002", "nl-003"], repeats=2)
    return RunSpec(**{**base, **kw})


def test_run_stores_every_conversation_with_events_and_verdicts(tmp_path, make_runner):
    store = make_store(tmp_path)
    seen = []
    runner = make_runner(store, on_progress=lambda p: seen.append(p.done))
    run_id = runner.create(spec(agents=["baseline:oracle", "baseline:escalator"]))
    progress = asyncio.run(runner.execute(run_id))
    assert progress.done == progress.total == 12 and progress.errored == 0
    assert seen[-1] == 12
    convs = store.conversations(run_id=run_id)
    assert {c.status.value for c in convs} == {"finished"}
    first = convs[0]
    assert store.events(first.id)[0].type == "customer_message"
    assert any(v.criterion == "outcome" for v in store.verdicts(conversation_id=first.id))
    assert store.get_run(run_id).status.value == "finished"


def test_resume_reruns_only_unfinished_conversations_without_duplicates(tmp_path, make_runner):
    store = make_store(tmp_path)
    runner = make_runner(store)
    run_id = runner.create(spec())
    convs = store.conversations(run_id=run_id)
    # Simulate a kill -9: one conversation finished, one cut off mid-way with events left behind.
    asyncio.run(make_runner(store).execute(run_id))
    done_before = {c.id: store.events(c.id) for c in convs}
    victim = convs[1].id
    store.start_conversation(victim)  # restarted, then "killed" after one event
    from sage_desk.core.events import CustomerMessage

    store.append(victim, CustomerMessage(text="half", seq=0))
    assert [c.id for c in store.unfinished_conversations(run_id)] == [victim]

    progress = asyncio.run(make_runner(store).execute(run_id))
    assert progress.done == 6 and progress.already_done == 5
    for cid, events in done_before.items():
        again = store.events(cid)
        assert [e.type for e in again] == [e.type for e in events]
        assert len({e.seq for e in again}) == len(again)
    assert not store.unfinished_conversations(run_id)
    assert len(store.verdicts(conversation_id=victim, source="rules")) > 0


def test_cancel_leaves_the_run_resumable(tmp_path, make_runner):
    store = make_store(tmp_path)

    class CancelAfterFirst:
        def __init__(self):
            self.runner = None

        def __call__(self, progress):
            if progress.done - progress.already_done >= 1:
                self.runner.cancel()

    hook = CancelAfterFirst()
    runner = make_runner(store, on_progress=hook)
    hook.runner = runner
    run_id = runner.create(spec(concurrency=1))
    asyncio.run(runner.execute(run_id))
    assert store.get_run(run_id).status.value == "cancelled"
    left = store.unfinished_conversations(run_id)
    assert 0 < len(left) < 6
    progress = asyncio.run(make_runner(store).execute(run_id))
    assert progress.done == 6 and not store.unfinished_conversations(run_id)
