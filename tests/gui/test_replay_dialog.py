"""Review > right-click an agent's turn > Replay from here, on a real stored run, offline.

The run is the oracle baseline on Northline's nl-145 (a parcel lost in transit): in turn 1 it
tags the ticket, opens a carrier trace and closes the ticket as resolved. The replays put offline baselines at the
fork, so they play for real without a network; the expected rows are what `sage-desk replay`
prints for the same conversation, turn, agent and N.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.store import Store
from sage_desk.gui.common.workspace import Workspace
from sage_desk.gui.review import ReviewScreen
from sage_desk.gui.review.replay_dialog import IMPORTED_NOTE, ORIGINAL_MARK, ReplayDialog
from sage_desk.gui.review.transcript import REPLAY_TEXT

ORIGINAL = "open_carrier_trace then close:resolved"
IMPERFECT = "baseline:imperfect?act=0.5"
TIMEOUT_MS = 30_000
IMPORTS = Path(__file__).resolve().parents[1] / "data" / "imports" / "northline_production.jsonl"


@pytest.fixture
def store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'runs.db'}") as store:
        runner = Runner(store)
        run_id = runner.create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=["nl-145"], repeats=1))
        asyncio.run(runner.execute(run_id))
        yield store


@pytest.fixture
def screen(qtbot, store):
    screen = ReviewScreen(workspace=Workspace(store=store))
    qtbot.addWidget(screen)
    screen.resize(1280, 720)
    screen.show()
    qtbot.waitExposed(screen)
    qtbot.waitUntil(lambda: screen.detail is not None)
    return screen


def point_of(view, event):
    """Where the transcript shows `event`, scrolled into view."""
    start = next(position for position, seq in view.anchors if seq == event.seq)
    cursor = view.textCursor()
    cursor.setPosition(start + 1)
    view.setTextCursor(cursor)
    view.ensureCursorVisible()
    return view.cursorRect(cursor).center()


def replay_entry(view, event):
    """The "Replay from here" entry of the menu a right-click on `event` opens."""
    menu = view.context_menu(point_of(view, event))
    return next(a for a in menu.actions() if a.text().startswith(REPLAY_TEXT))


def first_call(view, turn: int | None = None):
    """The agent's first tool call (of `turn`) that the transcript shows as a call: a successful tag_ticket,
    which the oracle makes first since issue 32, is shown as the ticket's tagged line instead."""
    shown = {seq for _position, seq in view.anchors}
    return next(e for e in view.events if e.type == "tool_call" and e.seq in shown and turn in (None, e.turn))


def open_dialog(screen, turn: int = 1) -> ReplayDialog:
    """Right-click the agent's first call of `turn` and choose Replay from here."""
    view = screen.transcript
    event = first_call(view, turn)
    assert view.event_at(point_of(view, event)).seq == event.seq
    entry = replay_entry(view, event)
    assert entry.isEnabled() and f"turn {turn}" in entry.text()
    entry.trigger()
    dialog = view.replay_dialog
    assert isinstance(dialog, ReplayDialog) and dialog.isVisible()
    return dialog


def run(qtbot, dialog: ReplayDialog):
    with qtbot.waitSignal(dialog.finished_replay, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert not dialog.start_button.isEnabled() and dialog.cancel_button.isEnabled()
    assert not dialog.is_running()
    return ended.args[0]


def rows(dialog: ReplayDialog) -> list[list[str]]:
    table = dialog.table
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_replay_from_an_agent_turn_counts_each_action_and_marks_the_original(qtbot, screen):
    dialog = open_dialog(screen)
    assert dialog.agent.text() == "baseline:oracle" and dialog.times.value() == 20  # the conversation's own, N = 20
    assert f"Originally: {ORIGINAL}" in dialog.findChild(type(dialog.status), "replayHeading").text()
    dialog.times.setValue(5)
    outcome = run(qtbot, dialog)
    assert outcome.error is None and not outcome.cancelled
    # the oracle is deterministic: five of five, and Wilson's interval says five is not certainty
    assert rows(dialog) == [[f"{ORIGINAL}   {ORIGINAL_MARK}", "5", "100%", "57% – 100%"]]
    assert dialog.table.item(0, 0).font().bold()
    assert dialog.status.text() == "Played 5 of 5 times with baseline:oracle."


def test_another_agent_at_the_fork_varies_and_the_original_it_never_took_is_still_marked(qtbot, screen):
    dialog = open_dialog(screen)
    dialog.agent.setText(IMPERFECT)
    outcome = run(qtbot, dialog)
    assert outcome.error is None
    assert rows(dialog) == [
        ["open_carrier_trace", "16", "80%", "58% – 92%"],
        ["reship_order", "4", "20%", "8% – 42%"],
        [f"{ORIGINAL}   {ORIGINAL_MARK}", "0", "0%", "0% – 16%"],
    ]
    marked = [r for r in range(3) if dialog.table.item(r, 0).font().bold()]
    assert marked == [2]


def test_replay_is_offered_on_the_agent_turns_only(qtbot, screen):
    view = screen.transcript
    customer = next(e for e in view.events if e.type == "customer_message")
    entry = replay_entry(view, customer)
    assert not entry.isEnabled() and "agent's turns" in entry.text()
    view.replay_context = None  # a transcript that does not know its conversation (Compare) offers nothing
    menu = view.context_menu(point_of(view, first_call(view)))
    assert not any(a.text().startswith(REPLAY_TEXT) for a in menu.actions())


def test_cancel_stops_a_replay_waiting_on_the_model(qtbot, screen, fake_openai):
    fake_openai.push_faults("timeout", "timeout")  # the model holds the answer for two seconds
    dialog = open_dialog(screen)
    dialog.agent.setText("openai/fake")
    dialog.api_base.setText(fake_openai.base_url)
    dialog.times.setValue(3)
    with qtbot.waitSignal(dialog.finished_replay, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(fake_openai.requests) >= 1, timeout=TIMEOUT_MS)
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert ended.args[0].cancelled
    assert len(fake_openai.requests) == 1  # no second sample was asked for
    assert dialog.status.text().startswith("Cancelled") and dialog.table.rowCount() == 0
    assert dialog.start_button.isEnabled() and not dialog.cancel_button.isEnabled()


def test_a_missing_api_key_is_one_plain_message(qtbot, screen, memory_keyring):
    dialog = open_dialog(screen)
    dialog.agent.setText("openai/gpt-4o-mini")
    outcome = run(qtbot, dialog)
    assert outcome.error is not None
    text = dialog.status.text()
    assert text.startswith("Could not replay: no API key for agent openai/gpt-4o-mini: set OPENAI_API_KEY")
    assert "Traceback" not in text and dialog.table.rowCount() == 0 and dialog.start_button.isEnabled()


def test_an_imported_conversation_needs_an_agent_named(qtbot, store):
    from sage_desk.core.imports.importer import import_files

    summary = import_files(store, [str(IMPORTS)], "northline", "openai", name="production")
    screen = ReviewScreen(workspace=Workspace(store=store))
    qtbot.addWidget(screen)
    screen.resize(1280, 720)
    screen.show()
    screen.filters.choose_run(summary.run_id)
    qtbot.waitUntil(lambda: screen.detail is not None and screen.detail.record.run_id == summary.run_id)
    view = screen.transcript
    turn = next(e.turn for e in view.events if e.type == "agent_message")
    event = next(e for e in view.events if e.turn == turn and e.type == "agent_message")
    replay_entry(view, event).trigger()
    dialog = view.replay_dialog
    assert dialog.agent.text() == "" and not dialog.start_button.isEnabled() and dialog.status.text() == IMPORTED_NOTE
    dialog.agent.setText("baseline:escalator")
    assert dialog.start_button.isEnabled() and dialog.status.text() == ""
    outcome = run(qtbot, dialog)
    assert outcome.error is None, outcome.error
    assert sum(int(row[1]) for row in rows(dialog) if ORIGINAL_MARK not in row[0]) == 20
