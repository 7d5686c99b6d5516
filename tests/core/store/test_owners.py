"""Run ownership in the store (issue 34, 38): owners, claims, take-over, and writes only by the holder."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from sage_desk.core.events import CustomerMessage, TerminationReason
from sage_desk.core.store import Store
from sage_desk.core.store.batch import BatchWriter
from sage_desk.core.store.owners import RunBusyError
from sage_desk.core.store.schema import RunOwnerRow, utcnow

PENDING = ("pending", "running", "cancelled")


def _as_another_machine(store: Store, owner_id: int, beat_ago_s: float) -> None:
    """Make an owner row look like a process on another host whose last heartbeat was `beat_ago_s` ago."""
    with store._writing() as session:
        session.execute(
            update(RunOwnerRow)
            .where(RunOwnerRow.id == owner_id)
            .values(host="gpu-node-7", pid=4242, heartbeat_at=utcnow() - timedelta(seconds=beat_ago_s))
        )


def test_a_live_owner_refuses_a_second_and_a_stale_one_is_taken_over(any_store: Store, make_run) -> None:
    run_id = make_run(any_store, n=4)
    first = any_store.claim_run(run_id)
    _as_another_machine(any_store, first, beat_ago_s=1)
    with pytest.raises(RunBusyError, match=f"run {run_id} is being played by process 4242 on host gpu-node-7 since"):
        any_store.claim_run(run_id)
    claimed, _ = any_store.claim_conversations(run_id, first, PENDING, n=2)
    assert len(claimed) == 2
    _as_another_machine(any_store, first, beat_ago_s=3600)  # it stopped beating an hour ago
    second = any_store.claim_run(run_id)
    assert [o.id for o in any_store.run_owners(run_id, alive_only=False)] == [second]
    taken, elsewhere = any_store.claim_conversations(run_id, second, PENDING, n=10)
    assert len(taken) == 4 and elsewhere == 0  # what the dead one held came back


def test_joiners_claim_different_conversations_and_wait_for_each_other(any_store: Store, make_run) -> None:
    run_id = make_run(any_store, n=6)
    a, b = any_store.claim_run(run_id, join=True), any_store.claim_run(run_id, join=True)
    mine, _ = any_store.claim_conversations(run_id, a, PENDING, n=4)
    theirs, held = any_store.claim_conversations(run_id, b, PENDING, n=4)
    assert len(mine) == 4 and len(theirs) == 2 and not {c.id for c in mine} & {c.id for c in theirs}
    none, held = any_store.claim_conversations(run_id, b, PENDING, n=4)
    assert none == [] and held == 4  # a still holds four unfinished: b waits rather than ends
    any_store.release_owner(a)
    back, held = any_store.claim_conversations(run_id, b, PENDING, n=10)
    assert len(back) == 4 and held == 0


def test_writes_for_a_conversation_another_owner_holds_are_dropped(any_store: Store, make_run) -> None:
    run_id = make_run(any_store, n=1)
    (conversation,) = any_store.conversations(run_id)
    stale = any_store.claim_run(run_id, join=True)
    fresh = any_store.claim_run(run_id, join=True)
    any_store.claim_conversations(run_id, fresh, PENDING)  # the new owner holds it now
    writer = BatchWriter(any_store)
    writer.owner_id = stale  # a process whose run was taken over, still finishing its conversation
    writer.start_conversation(conversation.id)
    event = CustomerMessage(seq=0, turn=1, text="late")
    writer.append_many(conversation.id, [event])
    writer.finish(conversation.id, TerminationReason.CLOSED, events=[event])
    writer.close()
    after = any_store.conversation(conversation.id)
    assert after.status.value == "pending" and any_store.events(conversation.id) == []
