"""Verdicting stored conversations in batches gives the same verdicts as one by one."""

from __future__ import annotations

import asyncio

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.batch import verdict_stored
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store


def test_batch_matches_the_per_conversation_hook(tmp_path, northline, northline_cases):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    runner = Runner(store, post=verdict_hook(store))
    run_id = runner.create(RunSpec(domain="northline", agents=["baseline:complier"], cases=list(northline_cases)[:30]))
    asyncio.run(runner.execute(run_id))
    convs = store.conversations(run_id=run_id)
    before = {c.id: sorted((v.criterion, v.passed) for v in store.verdicts(conversation_id=c.id)) for c in convs}
    batches = []
    written = verdict_stored(store, convs, northline_cases, northline, on_batch=batches.append)
    after = {c.id: sorted((v.criterion, v.passed) for v in store.verdicts(conversation_id=c.id)) for c in convs}
    assert after == before and written == sum(len(v) for v in after.values())
    assert batches == [30]
