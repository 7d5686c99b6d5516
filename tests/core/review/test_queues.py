"""Review queues: selection, progress, next item, skip and flag, blind mode."""

from __future__ import annotations

import pytest
from team_data import CRITERION, JUDGE

from sage_desk.core.review.selection import Selection, parse_filters, select_conversations
from sage_desk.core.store import StoreError
from sage_desk.core.store.queues import (
    FLAG,
    SKIP,
    create_queue,
    get_queue,
    list_queues,
    mark,
    next_item,
    progress,
    queue_conversations,
    reveals,
)


def test_a_seeded_sample_is_the_same_every_time_and_a_subset(team):
    store, ids = team
    one = select_conversations(store, Selection(["r-team"], sample=10, seed=7))
    assert one == select_conversations(store, Selection(["r-team"], sample=10, seed=7))
    assert len(one) == 10 and set(one) <= set(ids) and one == sorted(one)
    assert one != select_conversations(store, Selection(["r-team"], sample=10, seed=8))


def test_orders_put_disagreements_and_low_confidence_first(team):
    store, ids = team
    disagree = select_conversations(store, Selection(["r-team"], order="disagree"))
    # judge resolution passes on i % 3 == 0, the rules' outcome on i % 4 == 0: they differ on i = 3, 4, 6, 8, ...
    first = [int(cid[-2:]) for cid in disagree[:4]]
    assert all((i % 3 == 0) != (i % 4 == 0) for i in first) and sorted(disagree) == ids
    uncertain = select_conversations(store, Selection(["r-team"], order="uncertain"))
    assert int(uncertain[0][-2:]) % 5 == 2  # resolution score 0.59: the closest to the threshold
    with pytest.raises(StoreError, match="cannot filter"):
        parse_filters(["colour=red"])
    assert select_conversations(store, Selection(["r-team"], parse_filters(["case_id=case-03"]))) == [ids[3]]


def test_progress_counts_items_with_enough_reviewers(team):
    store, ids = team
    queue = create_queue(
        store,
        "week-1",
        ids[:4],
        reviewers=["alice", "bob"],
        reviews_per_item=2,
        blind=True,
        criteria=[CRITERION],
        selection={"runs": ["r-team"]},
    )
    assert (queue.size, queue.reviewers, queue.blind) == (4, ["alice", "bob"], True)
    for who in ("alice", "bob"):
        store.add_override(ids[0], CRITERION, JUDGE, human_passed=True, author=who)
    store.add_override(ids[1], CRITERION, JUDGE, human_passed=True, author="alice")
    store.add_override(ids[2], "judge.resolution_quality", JUDGE, human_passed=True, author="alice")  # not the queue's criterion
    state = progress(store, "week-1")
    assert state.summary == "1 of 4 done" and state.labelled_by("alice") == 2
    assert [q.name for q in list_queues(store)] == ["week-1"] and queue_conversations(store, "week-1") == ids[:4]


def test_next_item_follows_the_queue_skips_and_claims(team):
    store, ids = team
    create_queue(store, "q", ids[:3], reviewers=["alice", "bob"], reviews_per_item=1)
    first = next_item(store, "q", "alice")
    assert first is not None and first.conversation_id == ids[0]
    assert next_item(store, "q", "alice").conversation_id == ids[0]  # still hers until she labels it
    assert next_item(store, "q", "bob").conversation_id == ids[1]  # alice's claim counts as a review under way
    store.add_override(ids[0], CRITERION, JUDGE, human_passed=True, author="alice")
    mark(store, "q", ids[2], "alice", SKIP)
    assert next_item(store, "q", "alice") is None  # ids[1] is bob's, ids[2] skipped
    mark(store, "q", ids[1], "bob", FLAG, note="transcript cut off")
    state = progress(store, "q")
    assert state.flagged == {ids[1]: ["bob"]} and state.skipped == {"alice": [ids[2]]}
    with pytest.raises(StoreError, match="not a reviewer"):
        next_item(store, "q", "mallory")


def test_blind_mode_reveals_after_the_reviewer_labelled(team):
    store, ids = team
    create_queue(store, "blind", ids[:2], blind=True)
    assert not reveals(store, "blind", "alice", ids[0])
    store.add_override(ids[0], CRITERION, JUDGE, human_passed=False, author="alice")
    assert reveals(store, "blind", "alice", ids[0]) and not reveals(store, "blind", "bob", ids[0])
    create_queue(store, "open", ids[:2])
    assert reveals(store, "open", "bob", ids[0])


def test_a_queue_refuses_bad_names_duplicates_and_too_few_reviewers(team):
    store, ids = team
    create_queue(store, "q", ids[:2])
    with pytest.raises(StoreError, match="already exists"):
        create_queue(store, "q", ids[:2])
    with pytest.raises(StoreError, match="queue name"):
        create_queue(store, "has space", ids[:2])
    with pytest.raises(StoreError, match="at least as many reviewers"):
        create_queue(store, "q2", ids[:2], reviewers=["alice"], reviews_per_item=2)
    with pytest.raises(StoreError, match="no queue 'nope'.*q"):
        get_queue(store, "nope")
