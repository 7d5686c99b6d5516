"""The reviewer's name: asked once when a label would carry none, checked, kept as the profile, changed from the menu."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).parents[1] / "core" / "review"))

from gui_helpers import open_review
from team_data import CRITERION, JUDGE, make_run

from sage_desk.core.reviewers import reviewer_name, set_reviewer_name
from sage_desk.core.store import Store
from sage_desk.gui.common.reviewer_dialog import ReviewerDialog, reviewer_action


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A settings folder of this test's own, with no reviewer profile yet."""
    folder = tmp_path / "home"
    monkeypatch.setenv("SAGE_DESK_HOME", str(folder))
    return folder


@pytest.fixture
def store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'team.db'}") as s:
        make_run(s, n=4)
        yield s


def make_screen(qtbot, store):
    return open_review(qtbot, store, wait_focus=True)


def key(screen, k):
    QTest.keyClick(QApplication.focusWidget() or screen.list, k)


def key_a_label(qtbot, screen):
    """Key 0.00 on the judge's empathy verdict of the selected conversation."""
    row = screen.verdict_model.row_of(CRITERION, JUDGE)
    screen.verdicts.selectRow(row)
    screen.activateWindow()
    screen.list.setFocus()
    qtbot.waitUntil(screen.list.hasFocus)
    key(screen, Qt.Key.Key_1)  # 0.00 on the five-step scale
    assert screen.verdict_model.pending


def test_the_dialog_refuses_an_empty_or_multi_line_name_and_keeps_a_good_one(qtbot, home):
    dialog = ReviewerDialog()
    qtbot.addWidget(dialog)
    assert dialog.name.text() == "" and not dialog.ok_button().isEnabled()
    assert "must not be empty" in dialog.problem.text()
    dialog.name.setText("   ")
    assert not dialog.ok_button().isEnabled()
    dialog.name.setText("ines\tduarte")
    assert not dialog.ok_button().isEnabled() and "one line" in dialog.problem.text()
    dialog.name.setText("  Ines Duarte ")
    assert dialog.ok_button().isEnabled() and dialog.problem.text() == ""
    QTest.mouseClick(dialog.ok_button(), Qt.MouseButton.LeftButton)
    assert dialog.result() == ReviewerDialog.DialogCode.Accepted
    assert reviewer_name() == "Ines Duarte"
    assert (home / "settings.ini").read_text().count("author=") == 1


def test_the_first_label_without_a_name_asks_for_one_then_saves_under_it(qtbot, home, store):
    screen = make_screen(qtbot, store)
    cid = screen.detail.id
    assert screen.override.author.text() == ""
    key_a_label(qtbot, screen)
    key(screen, Qt.Key.Key_Return)
    dialog = screen.name_dialog
    assert dialog is not None and dialog.isVisible()
    assert store.overrides(conversation_id=cid) == [] and screen.detail.id == cid  # nothing saved, not moved on
    QTest.keyClicks(dialog.name, "ines")
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        QTest.mouseClick(dialog.ok_button(), Qt.MouseButton.LeftButton)
    [label] = store.overrides(conversation_id=cid)
    assert (label.author, label.criterion, label.human_score) == ("ines", CRITERION, 0.0)
    assert reviewer_name() == "ines" and screen.override.author.text() == "ines"
    assert screen.detail.id != cid and screen.name_dialog is None
    # asked once: the next label is saved under the name without a question
    key_a_label(qtbot, screen)
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        key(screen, Qt.Key.Key_Return)
    assert screen.name_dialog is None
    assert [o.author for o in store.overrides()] == ["ines", "ines"]


def test_cancelling_the_question_saves_nothing_and_says_why(qtbot, home, store):
    screen = make_screen(qtbot, store)
    cid = screen.detail.id
    key_a_label(qtbot, screen)
    key(screen, Qt.Key.Key_Return)
    with qtbot.waitSignal(screen.message) as said:
        screen.name_dialog.reject()
    assert "need a reviewer name" in said.args[0]
    assert store.overrides() == [] and screen.detail.id == cid and screen.verdict_model.pending
    assert reviewer_name() is None


def test_a_profile_chosen_before_is_used_without_asking(qtbot, home, store):
    set_reviewer_name("bob")
    screen = make_screen(qtbot, store)
    assert screen.override.author.text() == "bob"
    key_a_label(qtbot, screen)
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        key(screen, Qt.Key.Key_Return)
    assert screen.name_dialog is None and [o.author for o in store.overrides()] == ["bob"]


def test_the_menu_item_changes_the_name_and_the_review_screen_follows(qtbot, home, store):
    set_reviewer_name("bob")
    screen = make_screen(qtbot, store)
    action = reviewer_action(screen)
    action.trigger()
    dialog = screen.findChild(ReviewerDialog)
    assert dialog is not None and dialog.name.text() == "bob"  # the current name, to edit
    dialog.name.setText("robert")
    QTest.mouseClick(dialog.ok_button(), Qt.MouseButton.LeftButton)
    assert reviewer_name() == "robert" and screen.override.author.text() == "robert"


def test_file_reviewer_name_in_the_main_window_reaches_review(qtbot, home, tmp_path):
    from sage_desk.gui.main_window import MainWindow

    db = tmp_path / "window.db"
    with Store(f"sqlite:///{db}") as s:
        make_run(s, n=2)
    window = MainWindow(settings_home=home, db_url=f"sqlite:///{db}")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.show_screen("review")
    review = window.screen_widget("review")
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    [item] = [a for a in file_menu.actions() if a.text() == "Reviewer Name…"]
    item.trigger()
    dialog = window.findChild(ReviewerDialog)
    assert dialog is not None and dialog.isVisible() and dialog.name.text() == ""
    QTest.keyClicks(dialog.name, "carla")
    QTest.mouseClick(dialog.ok_button(), Qt.MouseButton.LeftButton)
    assert reviewer_name() == "carla" and review.override.author.text() == "carla"
    window.close()
    window.workspace.close()
