"""Review's Qt-free session: what is chosen, the queue, its progress and reveals, each change an event.

Driven as the Review screen drives it, on a real SQLite store (team_data: 40 judged conversations),
with no Qt application: the events are psygnal's.
"""

from __future__ import annotations

import pytest
from team_data import CRITERION, JUDGE

from sage_desk.core.errors import SageError
from sage_desk.core.review.session import FLAG, SKIP, BrowseFilter, HumanValue, NoStoreError, ReviewSession, list_cells
from sage_desk.core.store.queues import create_queue


def _recorder(session: ReviewSession) -> list[tuple[str, object]]:
    seen: list[tuple[str, object]] = []
    for name in (
        "store_changed",
        "run_chosen",
        "conversation_chosen",
        "verdict_chosen",
        "filters_changed",
        "queue_changed",
        "progress_changed",
    ):
        getattr(session, name).connect(lambda value, name=name: seen.append((name, value)))
    return seen


def test_choices_are_kept_and_told_once_each(team):
    store, ids = team
    session = ReviewSession()
    seen = _recorder(session)
    with pytest.raises(NoStoreError, match="no run database is open"):
        session.queues()
    session.open(store)
    session.choose_run("r-team")
    session.choose_run("r-team")  # the same run again: nothing to tell
    session.choose_conversation(ids[3])
    session.choose_verdict((CRITERION, JUDGE))
    session.set_filters(BrowseFilter(bucket="adversarial"))
    session.set_filters(BrowseFilter(bucket="adversarial"))
    assert seen == [
        ("store_changed", store),
        ("run_chosen", "r-team"),
        ("conversation_chosen", ids[3]),
        ("verdict_chosen", (CRITERION, JUDGE)),
        ("filters_changed", BrowseFilter(bucket="adversarial")),
    ]
    # the verdict the reviewer works on stays chosen from one conversation to the next
    session.choose_conversation(ids[4])
    assert session.verdict_key == (CRITERION, JUDGE) and session.conversation_id == ids[4]


def test_a_queue_is_entered_read_and_left(team):
    store, ids = team
    create_queue(store, "week-1", [ids[5], ids[2], ids[9]], reviewers=["alice", "bob"], reviews_per_item=2)
    session = ReviewSession(store)
    seen = _recorder(session)
    assert [q.name for q in session.queues()] == ["week-1"]
    table = session.enter_queue("week-1")
    assert table.ids == [ids[5], ids[2], ids[9]]  # the queue's order, not the run's
    assert session.holds(ids[2]) and not session.holds(ids[0]) and seen == [("queue_changed", session.queue)]
    store.add_override(ids[5], CRITERION, JUDGE, human_passed=True, author="alice")
    state = session.read_progress()
    assert state.labelled_by("alice") == 1 and seen[-1] == ("progress_changed", state)
    item = session.next_item("alice")  # alice labelled the first item: hers is the second
    assert item is not None and item.conversation_id == ids[2]
    session.mark(ids[2], "alice", SKIP)
    session.mark(ids[9], "alice", FLAG, "odd ending")
    session.read_progress()
    assert session.flagged_by(ids[9], "alice") and not session.flagged_by(ids[9], "bob")
    cells, hidden = list_cells(session.progress, "alice")
    assert cells[ids[5]][0] == "✓ 1/2" and cells[ids[2]][0] == "0/2 skip" and cells[ids[9]][0].startswith("⚑")
    assert hidden == frozenset()  # not blind: every figure shows
    session.leave_queue()
    assert session.queue is None and not session.holds(ids[2]) and seen[-1] == ("queue_changed", None)
    with pytest.raises(SageError, match="no review queue is shown"):
        session.next_item("alice")


def test_an_unknown_queue_changes_nothing(team):
    store, ids = team
    create_queue(store, "week-1", ids[:2])
    session = ReviewSession(store)
    session.enter_queue("week-1")
    with pytest.raises(SageError):
        session.enter_queue("no-such-queue")
    assert session.queue is not None and session.queue.name == "week-1" and session.holds(ids[0])


def test_a_blind_queue_hides_others_labels_until_the_reviewer_labels(team):
    store, ids = team
    create_queue(store, "blind-1", ids[:2], reviewers=["alice", "bob"], reviews_per_item=2, blind=True, criteria=[CRITERION])
    session = ReviewSession(store)
    session.enter_queue("blind-1")
    store.add_override(ids[0], CRITERION, JUDGE, human_passed=False, author="bob")
    overrides = store.overrides(conversation_id=ids[0])
    assert session.blind_for(ids[0], "alice")
    assert session.visible_overrides(ids[0], "alice", overrides) == []  # bob's label stays hidden from alice
    assert session.visible_overrides(ids[0], "bob", overrides) == overrides  # bob has labelled: he sees
    store.add_override(ids[0], CRITERION, JUDGE, human_passed=True, author="alice")
    assert not session.blind_for(ids[0], "alice")
    assert len(session.visible_overrides(ids[0], "alice", store.overrides(conversation_id=ids[0]))) == 2
    assert not session.blind_for(ids[5], "alice")  # not the queue's: nothing hidden
    session.leave_queue()
    assert not session.blind_for(ids[1], "alice")


def test_labels_keyed_are_kept_until_dropped_and_told():
    session = ReviewSession()
    seen: list[object] = []
    session.pending_changed.connect(seen.append)
    session.key_label(7, HumanValue(True))
    session.key_label(9, HumanValue(None, 0.75))
    session.key_label(7, None)  # cleared again
    assert session.pending == {9: HumanValue(None, 0.75)} and seen == [7, 9, 7]
    assert session.pending[9].text() == "0.75" and HumanValue(False, 0.25).text() == "0.25 · fail"
    session.drop_pending()
    assert session.pending == {} and seen[-1] is None
