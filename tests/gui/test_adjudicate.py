"""Adjudicating from the Calibration screen's "Between reviewers" tab, on the issue's 40-item example:
alice and bob disagree on 5 items (c15-c19: alice pass, bob fail), none adjudicated.

Expected figures are worked out by hand from the labels written here, and read back through the store.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox

sys.path.insert(0, str(Path(__file__).parents[1] / "core" / "review"))

from team_data import CRITERION, JUDGE, kappa_labels, make_run

from sage_desk.core.reviewers import reviewer_name, set_reviewer_name
from sage_desk.core.store import Store
from sage_desk.core.store.reviews import NewOverride
from sage_desk.gui.calibration import CalibrationScreen
from sage_desk.gui.common.workspace import Workspace


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A reviewer profile folder of the test's own."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("SAGE_DESK_HOME", str(folder))
    return folder


@pytest.fixture
def store(tmp_path, home):
    with Store(f"sqlite:///{tmp_path / 'team.db'}") as s:
        ids = make_run(s)
        s.add_overrides(kappa_labels(ids))
        # each reviewer's latest label of c15 comes with a reason (same values as before)
        s.add_overrides(
            [
                NewOverride(ids[15], CRITERION, JUDGE, human_passed=True, author="alice", reason="says sorry twice"),
                NewOverride(ids[15], CRITERION, JUDGE, human_passed=False, author="bob", reason="no apology"),
            ]
        )
        yield s


@pytest.fixture
def tab(qtbot, store):
    screen = CalibrationScreen(workspace=Workspace(store=store))
    qtbot.addWidget(screen)
    screen.resize(1280, 720)
    screen.show()
    qtbot.waitUntil(lambda: screen.between_reviewers.criteria.rowCount() == 1)
    screen.tabs.setCurrentWidget(screen.between_reviewers)
    yield screen.between_reviewers
    screen.can_close()


def unresolved(tab):
    model = tab.criteria
    return model.index(0, model.columnCount() - 1).data()


def save_button(dialog):
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Save)


def test_adjudicate_shows_both_labels_and_settles_the_item(qtbot, tab, store, home):
    set_reviewer_name("lead")
    assert unresolved(tab) == "5" and "5 unresolved" in tab.summary.text()
    assert not tab.adjudicate_button.isEnabled()  # nothing chosen yet
    row = tab.select_disagreement("r-team-c15", CRITERION)
    assert row is not None and tab.adjudicate_button.isEnabled()
    qtbot.mouseClick(tab.adjudicate_button, Qt.MouseButton.LeftButton)
    dialog = tab.dialog
    assert dialog is not None and dialog.isVisible()
    shown = [[dialog.table.item(r, c).text() for c in range(3)] for r in range(dialog.table.rowCount())]
    assert shown == [["alice", "pass", "says sorry twice"], ["bob", "fail", "no apology"]]
    assert not dialog.score.isVisible()  # the reviewers gave pass/fail only
    assert dialog.author.text() == "lead" and dialog.author.isReadOnly()
    assert not save_button(dialog).isEnabled() and "a final label and a reason" in dialog.problem.text()
    qtbot.mouseClick(dialog.passed, Qt.MouseButton.LeftButton)
    assert not save_button(dialog).isEnabled()  # a reason is required
    QTest.keyClicks(dialog.reason, "an apology is there, in the second reply")
    assert save_button(dialog).isEnabled()
    with qtbot.waitSignal(tab.window().workspace.verdicts_changed) as changed:
        qtbot.mouseClick(save_button(dialog), Qt.MouseButton.LeftButton)
    assert changed.args == ["r-team"]
    [final] = [o for o in store.overrides(conversation_id="r-team-c15") if o.kind == "adjudication"]
    assert (final.criterion, final.source, final.human_passed, final.human_score, final.author, final.reason) == (
        CRITERION,
        JUDGE,
        True,
        None,
        "lead",
        "an apology is there, in the second reply",
    )
    # the tab read again: 5 disagreements, 4 unresolved; the row says how it was settled
    assert unresolved(tab) == "4" and "5 disagreement(s), 4 unresolved" in tab.summary.text()
    row = tab.select_disagreement("r-team-c15", CRITERION)
    assert tab.disagreements.index(row, 3).data() == "adjudicated: pass"
    # the reviewers' labels stay (append-only)
    assert {(o.author, o.kind) for o in store.overrides(conversation_id="r-team-c15")} == {
        ("alice", "label"),
        ("bob", "label"),
        ("lead", "adjudication"),
    }


def test_without_a_profile_the_dialog_asks_for_a_name_and_scores_decide_pass(qtbot, tab, store, home):
    assert reviewer_name() is None
    # a scored disagreement: alice 0.8, bob 0.2 on c01's resolution quality
    store.add_overrides(
        [
            NewOverride("r-team-c01", "judge.resolution_quality", JUDGE, human_score=0.8, author="alice"),
            NewOverride("r-team-c01", "judge.resolution_quality", JUDGE, human_score=0.2, author="bob"),
        ]
    )
    tab.show_run(store, "r-team")
    row = tab.select_disagreement("r-team-c01", "judge.resolution_quality")
    view = tab.disagreement_view
    view.scrollTo(tab.disagreements.index(row, 0))
    centre = view.visualRect(tab.disagreements.index(row, 0)).center()
    assert view.viewport().rect().contains(centre)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=centre)  # a double click: press, release, press...
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    dialog = tab.dialog
    assert dialog is not None and dialog.disagreement.conversation_id == "r-team-c01"
    shown = [[dialog.table.item(r, c).text() for c in range(2)] for r in range(dialog.table.rowCount())]
    assert shown == [["alice", "0.80 · pass"], ["bob", "0.20 · fail"]]
    assert dialog.score.isVisible() and dialog.author.text() == "" and not dialog.author.isReadOnly()
    dialog.score.setValue(0.45)  # below the pass mark (0.5): a fail, and the radio follows
    assert dialog.failed.isChecked() and not dialog.passed.isEnabled()
    QTest.keyClicks(dialog.reason, "resolved late")
    assert not save_button(dialog).isEnabled() and "your name" in dialog.problem.text()
    QTest.keyClicks(dialog.author, "dana")
    with qtbot.waitSignal(dialog.accepted):
        qtbot.mouseClick(save_button(dialog), Qt.MouseButton.LeftButton)
    [final] = [o for o in store.overrides(conversation_id="r-team-c01") if o.kind == "adjudication"]
    assert (final.human_passed, final.human_score, final.author) == (False, 0.45, "dana")
    assert reviewer_name() == "dana"  # kept as the profile: not asked again
    row = tab.select_disagreement("r-team-c01", "judge.resolution_quality")
    assert tab.disagreements.index(row, 3).data() == "adjudicated: fail"


def test_a_refused_adjudication_keeps_the_dialog_open_and_saves_nothing(qtbot, tab, store, home):
    set_reviewer_name("lead")
    tab.select_disagreement("r-team-c16", CRITERION)
    dialog = tab.adjudicate()
    store.save_verdicts("r-team-c16", JUDGE, [])  # the judge's verdicts of c16 are gone meanwhile
    qtbot.mouseClick(dialog.failed, Qt.MouseButton.LeftButton)
    QTest.keyClicks(dialog.reason, "no apology")
    qtbot.mouseClick(save_button(dialog), Qt.MouseButton.LeftButton)
    assert (
        dialog.isVisible()
        and dialog.problem.text().startswith("Not saved: ")
        and "no 'judge.empathy' verdict" in dialog.problem.text()
    )
    assert [o for o in store.overrides() if o.kind == "adjudication"] == []
    assert unresolved(tab) == "5"
    dialog.reject()


def test_the_conversation_shows_beside_whole_labels_and_reasons_and_fits_a_laptop(qtbot, tab, store, home):
    """Issue 35: adjudication was blind (no conversation) and cut names; at 1280x720 it fits, nothing cut."""
    from PySide6.QtCore import QRect

    from sage_desk.gui.common.geometry import cut_off_widgets, fits, keep_on_screen

    long_reason = "the agent apologised in its second reply, but only after the refund was refused, " * 3
    store.add_overrides(
        [
            NewOverride(
                "r-team-c16",
                CRITERION,
                JUDGE,
                human_passed=True,
                author="ana.sample.reviewer@northline.example",
                reason=long_reason.strip(),
            )
        ]
    )
    from sage_desk.core.events import AgentMessage, CustomerMessage, ToolCall

    store.append_many(
        "r-team-c16",
        [
            CustomerMessage(seq=0, turn=1, text="My suitcase arrived with a broken wheel."),
            ToolCall(seq=1, turn=1, name="lookup_order", arguments={"order_id": "NL-1"}, kind="read", call_id="c1"),
            AgentMessage(seq=2, turn=1, text="I am sorry to hear that; I cannot send a new one today."),
        ],
    )
    tab.show_run(store, "r-team")
    row = tab.select_disagreement("r-team-c16", CRITERION)
    with qtbot.waitSignal(tab.open_conversation) as opened:
        qtbot.mouseClick(tab.open_button, Qt.MouseButton.LeftButton)
    assert opened.args == ["r-team-c16"]
    dialog = tab.adjudicate(row)
    text = dialog.conversation.transcript.toPlainText()
    assert "broken wheel" in text and "cannot send a new one" in text  # the turns
    assert dialog.conversation.timeline.topLevelItem(0).text(1).endswith("lookup_order")  # the tool calls
    shown = {dialog.table.item(r, 0).text(): dialog.table.item(r, 2).text() for r in range(dialog.table.rowCount())}
    assert shown["ana.sample.reviewer@northline.example"] == long_reason.strip()  # whole, wrapped, not cut
    laptop = QRect(0, 0, 1280, 720)
    keep_on_screen(dialog, laptop)
    qtbot.wait(20)
    assert fits(dialog, laptop) and cut_off_widgets(dialog) == []
    header = dialog.table.horizontalHeader()
    name_width = dialog.table.fontMetrics().horizontalAdvance("ana.sample.reviewer@northline.example")
    assert header.sectionSize(0) >= name_width  # the name column shows the whole name
    dialog.reject()
