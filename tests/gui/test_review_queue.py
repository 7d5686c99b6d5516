"""Review in queue mode on a real store: progress, the next item, skip and flag, blind mode, other reviewers' work.

The run has 40 judged conversations (team_data.make_run); alice and bob have labelled some of
them. Expected figures are counted by hand from what each test writes, and checked against the
store's own records where the screen writes something.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).parents[1] / "core" / "review"))

from gui_helpers import open_review
from team_data import CRITERION, JUDGE, make_run

from sage_desk.core.reviewers import set_reviewer_name
from sage_desk.core.store import Store
from sage_desk.core.store.queues import create_queue, progress
from sage_desk.core.store.schema import QueueMarkRow
from sage_desk.gui.review.blind import HIDDEN, HIDDEN_SHORT

RESOLUTION = "judge.resolution_quality"


@pytest.fixture
def home(tmp_path, monkeypatch):
    """Settings of this test's own; the reviewer is ines."""
    monkeypatch.setenv("SAGE_DESK_HOME", str(tmp_path / "home"))
    set_reviewer_name("ines")
    return tmp_path / "home"


@pytest.fixture
def team(tmp_path):
    """40 conversations; alice labelled c00-c11 (pass), bob c00-c09 (fail), ines c12-c14."""
    with Store(f"sqlite:///{tmp_path / 'team.db'}") as store:
        ids = make_run(store)
        for i in range(12):
            store.add_override(ids[i], CRITERION, JUDGE, human_passed=True, author="alice")
        for i in range(10):
            store.add_override(ids[i], CRITERION, JUDGE, human_passed=False, author="bob")
        for i in range(12, 15):
            store.add_override(ids[i], CRITERION, JUDGE, human_passed=True, author="ines")
        yield store, ids


def make_screen(qtbot, store):
    return open_review(qtbot, store, wait_focus=True)


def choose(screen, name):
    """Pick a queue in the Queue list as the reviewer does."""
    picker = screen.filters.queue
    picker.setCurrentIndex(picker.findData(name))


def key(screen, k):
    QTest.keyClick(QApplication.focusWidget() or screen.list, k)


def listed(screen):
    return [screen.list_model.conversation_id(i) for i in range(screen.list_model.rowCount())]


def cell(model, row, column, role=Qt.ItemDataRole.DisplayRole):
    return model.data(model.index(row, column), role)


def list_cell(screen, cid, column_key):
    model = screen.list_model
    return cell(model, model.position_of(cid), model.column_of(column_key))


def test_the_queue_lists_its_items_in_order_shows_progress_and_selects_the_next_item(qtbot, home, team):
    store, ids = team
    order = list(reversed(ids))  # the queue's order, not the run's
    create_queue(store, "week-48", order, reviews_per_item=2, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    assert screen.queue_bar.isHidden() and screen.filters.queue.count() == 2  # No queue, week-48
    choose(screen, "week-48")
    assert screen.queue_bar.isVisible() and listed(screen) == order
    # c00-c09 have two reviews (done); ines labelled c12-c14
    assert screen.queue_bar.progress.text() == "10 of 40 done · you labelled 3"
    # the first in the queue's order that ines has not labelled and that needs reviews: c39
    assert screen.detail.id == ids[39] and screen.list_model.conversation_id(screen.current_position()) == ids[39]
    assert screen.queue_bar.note.text() == "Item 1 of 40"
    assert not screen.filters.run.isEnabled()
    assert list_cell(screen, ids[0], "human") == "2/2" and list_cell(screen, ids[13], "human") == "✓ 1/2"
    # N claimed c39 for ines; the next N keeps her on it until she labels or skips it
    key(screen, Qt.Key.Key_N)
    assert screen.detail.id == ids[39] and "still yours" in screen.queue_bar.note.text()
    key(screen, Qt.Key.Key_Return)  # nothing keyed: Enter is Next, and the item stays hers
    assert screen.detail.id == ids[39] and store.overrides(conversation_id=ids[39]) == []


def test_a_queue_over_two_runs_lists_both_in_its_order(qtbot, home, team, qtmodeltester):
    store, ids = team
    other = make_run(store, n=3, run_id="r-other")
    order = [other[2], ids[5], other[0], ids[1]]
    create_queue(store, "mixed", order, blind=True, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "mixed")
    assert listed(screen) == order and screen.detail.id == other[2]
    assert screen.list_model.table.run_id == ""  # from two runs
    qtmodeltester.check(screen.list_model)
    qtmodeltester.check(screen.verdict_model)
    assert screen.verdict_model.blind and list_cell(screen, other[2], "judge") == "?"


def test_enter_saves_the_label_then_the_next_item_comes_from_the_queue(qtbot, home, team):
    store, ids = team
    create_queue(store, "week-48", ids, reviews_per_item=2, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "week-48")
    assert screen.detail.id == ids[10]  # alice alone labelled c10 and c11; c12-c14 are ines's own
    screen.verdicts.selectRow(screen.verdict_model.row_of(CRITERION, JUDGE))
    screen.list.setFocus()
    key(screen, Qt.Key.Key_5)  # 1.00 on the scored judge verdict
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        key(screen, Qt.Key.Key_Return)
    [label] = [o for o in store.overrides(conversation_id=ids[10]) if o.author == "ines"]
    assert (label.criterion, label.human_score) == (CRITERION, 1.0)
    qtbot.waitUntil(lambda: screen.detail.id == ids[11])
    assert screen.queue_bar.progress.text() == "11 of 40 done · you labelled 4"
    assert list_cell(screen, ids[10], "human") == "✓ 2/2"


def test_skip_and_flag_are_recorded_in_the_store(qtbot, home, team):
    store, ids = team
    create_queue(store, "week-48", ids, reviews_per_item=2, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "week-48")
    assert screen.detail.id == ids[10]
    QTest.mouseClick(screen.queue_bar.skip_button, Qt.MouseButton.LeftButton)
    assert progress(store, "week-48").skipped == {"ines": [ids[10]]}
    assert screen.detail.id == ids[11]
    assert screen.queue_bar.progress.text() == "10 of 40 done · you labelled 3 · 1 skipped"
    assert list_cell(screen, ids[10], "human") == "1/2 skip"
    QTest.mouseClick(screen.queue_bar.flag_button, Qt.MouseButton.LeftButton)
    dialog = screen.queue.flag_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.setTextValue("transcript cut off after turn 3")
    dialog.accept()
    assert progress(store, "week-48").flagged == {ids[11]: ["ines"]}
    with store._reading() as session:
        [flag] = session.scalars(select(QueueMarkRow).where(QueueMarkRow.action == "flag")).all()
        assert (flag.conversation_id, flag.reviewer, flag.note) == (ids[11], "ines", "transcript cut off after turn 3")
    assert screen.queue_bar.flag_button.text() == "Unflag" and list_cell(screen, ids[11], "human") == "⚑ 1/2"
    assert "1 flagged" in screen.queue_bar.progress.text()
    # the owner reads why on the item itself, in the reviewer's words
    model = screen.list_model
    tip = cell(model, model.position_of(ids[11]), model.column_of("human"), Qt.ItemDataRole.ToolTipRole)
    assert "flagged by ines ('transcript cut off after turn 3')" in tip
    QTest.mouseClick(screen.queue_bar.flag_button, Qt.MouseButton.LeftButton)  # takes the flag back, no question
    assert progress(store, "week-48").flagged == {} and screen.queue_bar.flag_button.text() == "Flag…"


def test_blind_mode_hides_the_judge_and_other_labels_until_the_reviewer_labels(qtbot, home, team):
    store, ids = team
    create_queue(store, "blind-48", ids[:4], reviews_per_item=3, blind=True, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "blind-48")
    assert screen.detail.id == ids[0]  # alice and bob labelled it; a third review is wanted
    model = screen.verdict_model
    empathy, resolution, outcome = (
        model.row_of(CRITERION, JUDGE),
        model.row_of(RESOLUTION, JUDGE),
        model.row_of("outcome", "rules"),
    )
    assert [cell(model, empathy, c) for c in (2, 3, 4)] == [HIDDEN_SHORT, "", HIDDEN]  # bob's fail: hidden too
    assert cell(model, resolution, 2) == HIDDEN_SHORT
    assert cell(model, outcome, 2) == "pass"  # c00: i % 4 == 0; a rule stays readable
    assert cell(model, empathy, 0, Qt.ItemDataRole.ToolTipRole) == f"{CRITERION}: {HIDDEN}"
    screen.verdicts.selectRow(empathy)
    assert "hidden until you label" in screen.override.rationale.text() and screen.override.history.text() == ""
    assert list_cell(screen, ids[0], "judge") == "?" and list_cell(screen, ids[0], "human") == ""
    assert not screen.filters.combos["failing"].isEnabled() and not screen.filters.search.isEnabled()
    assert screen.compare() is None
    # ines labels it: the judge and the others' labels show
    screen.list.setFocus()
    key(screen, Qt.Key.Key_2)  # 0.25
    assert cell(model, empathy, 3) == "0.25 · fail (unsaved)"
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        screen.save()
    qtbot.waitUntil(lambda: not model.blind)
    assert screen.detail.id == ids[0]  # save() alone does not move on
    assert cell(model, empathy, 2).startswith("0.90") and cell(model, resolution, 2).endswith("pass")
    assert cell(model, empathy, 4) != HIDDEN
    assert all(who in screen.override.history.text() for who in ("alice", "bob", "ines"))
    assert list_cell(screen, ids[0], "judge") != "?" and list_cell(screen, ids[0], "human") == "✓ 3/3"


def test_the_history_hides_other_reviewers_until_the_reviewer_labels(qtbot, home, team):
    store, ids = team
    create_queue(store, "blind-48", ids[:4], reviews_per_item=3, blind=True, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "blind-48")
    assert [o.author for o in screen.overrides] == []  # alice's and bob's labels kept back
    store.add_override(ids[0], CRITERION, JUDGE, human_passed=True, author="ines")  # labelled elsewhere (the CLI)
    screen.workspace.verdicts_changed.emit("r-team")
    assert sorted(o.author for o in screen.overrides) == ["alice", "bob", "ines"]
    assert not screen.verdict_model.blind


def test_other_reviewers_progress_shows_on_refresh(qtbot, home, team):
    store, ids = team
    create_queue(store, "week-48", ids, reviews_per_item=2, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "week-48")
    assert screen.queue_bar.progress.text() == "10 of 40 done · you labelled 3"
    store.add_override(ids[20], CRITERION, JUDGE, human_passed=True, author="bob")  # bob, on another computer
    store.add_override(ids[20], CRITERION, JUDGE, human_passed=True, author="alice")
    assert screen.queue_bar.progress.text() == "10 of 40 done · you labelled 3"
    key(screen, Qt.Key.Key_F5)
    assert screen.queue_bar.progress.text() == "11 of 40 done · you labelled 3"
    assert "bob: 11 labelled" in screen.queue_bar.progress.toolTip()
    assert list_cell(screen, ids[20], "human") == "2/2"


def test_a_finished_queue_says_so(qtbot, home, team):
    store, ids = team
    create_queue(store, "done-48", ids[:10], reviews_per_item=2, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "done-48")
    assert screen.queue_bar.progress.text() == "10 of 10 done · you labelled 0"
    assert "Queue done-48 is done: all 10 items have their reviews." in screen.queue_bar.note.text()


def test_nothing_left_for_this_reviewer_is_not_called_done(qtbot, home, team):
    store, ids = team
    create_queue(store, "mine-48", ids[12:15], reviews_per_item=2, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "mine-48")
    assert "Nothing left for you in mine-48 (0 of 3 done)" in screen.queue_bar.note.text()


def test_entering_a_queue_without_a_name_asks_for_one(qtbot, tmp_path, monkeypatch, team):
    monkeypatch.setenv("SAGE_DESK_HOME", str(tmp_path / "nobody"))
    store, ids = team
    create_queue(store, "week-48", ids, reviews_per_item=2, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "week-48")
    assert not screen.queue.active and screen.filters.queue_name() is None and screen.name_dialog is not None
    QTest.keyClicks(screen.name_dialog.name, "dora")
    QTest.mouseClick(screen.name_dialog.ok_button(), Qt.MouseButton.LeftButton)
    assert screen.queue.active and screen.filters.queue_name() == "week-48"
    assert screen.queue_bar.progress.text() == "10 of 40 done · you labelled 0" and screen.detail.id == ids[10]


def test_no_queue_brings_back_the_runs_conversations(qtbot, home, team):
    store, ids = team
    create_queue(store, "small", ids[5:8])
    screen = make_screen(qtbot, store)
    choose(screen, "small")
    assert listed(screen) == ids[5:8]
    choose(screen, None)
    assert not screen.queue.active and screen.queue_bar.isHidden() and sorted(listed(screen)) == ids
    assert screen.filters.run.isEnabled() and not screen.verdict_model.blind
    assert (
        screen.list_model.queue_cells is None and list_cell(screen, ids[0], "human") == "✎1 ≠"
    )  # alice pass, bob fail: bob's is the latest


def test_the_queue_comes_back_after_a_restart(qtbot, home, team, tmp_path):
    """Issue 35: the queue a reviewer worked through was forgotten on restart (the run came back, not the queue)."""
    from sage_desk.gui.common.settings import open_settings

    store, ids = team
    create_queue(store, "week-49", ids[:10], reviews_per_item=1, criteria=[CRITERION])
    screen = make_screen(qtbot, store)
    choose(screen, "week-49")
    qtbot.waitUntil(lambda: screen.queue.active)
    settings = open_settings(tmp_path / "settings")
    screen.save_state(settings)
    again = make_screen(qtbot, store)
    again.restore_state(settings)
    again.refresh()
    assert again.queue.active and again.queue.name == "week-49"
    assert again.filters.queue.currentData() == "week-49"
    choose(again, None)  # leaving it is remembered too
    qtbot.waitUntil(lambda: not again.queue.active)
    again.save_state(settings)
    third = make_screen(qtbot, store)
    third.restore_state(settings)
    third.refresh()
    assert not third.queue.active
