"""Review > right-click an agent's turn > Replay from here: `sage-desk replay` in a dialog.

The stored conversation is cut just before the agent's answer in the chosen turn and that turn is
played again N times (core/engine/replay.py); the table then says how often the agent took each
action there, with Wilson's 95 % interval, and marks what it did originally. Nothing is written
to the store. The replay runs on `ReplayThread`, never on the GUI thread, with progress and
Cancel; an error (no API key, a provider that does not answer) is one plain message.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QCloseEvent, QColor, QFont
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.engine.replay import ReplayResult, action_of, agent_maker, replay, wilson
from sage_desk.core.errors import RunError, SageError
from sage_desk.core.events import Event
from sage_desk.core.review.session import ConversationRecord
from sage_desk.gui.common.async_thread import AsyncThread, Outcome
from sage_desk.gui.common.errors import describe

if TYPE_CHECKING:
    from sage_desk.core.review.session import Store

DEFAULT_TIMES = 20
MAX_TIMES = 1000  # as `sage-desk replay --times`
ORIGINAL_MARK = "◀ original"
ORIGINAL_FILL = "#fde68a"
COLUMNS = ("Action at this turn", "Count", "Share", "95% interval")
IMPORTED_NOTE = "This conversation was imported: name the agent to replay it with."


class ReplayThread(AsyncThread):
    """Replays one turn of a stored conversation; `progressed(done, total)` after each sample."""

    progressed = Signal(int, int)

    def __init__(
        self,
        store: Store,
        conversation_id: str,
        turn: int,
        times: int,
        agent: str,
        api_base: str | None = None,
        parent: Any = None,
    ):
        super().__init__(parent)
        self.store, self.conversation_id, self.turn, self.times = store, conversation_id, turn, times
        self.agent, self.api_base = agent, api_base
        self.setObjectName(f"replay-{conversation_id}")

    async def work(self) -> ReplayResult:
        from sage_desk.core.session import run_cases

        convo = self.store.conversation(self.conversation_id)
        bundle, cases, spec = run_cases(self.store, convo.run_id)
        case = cases.get(convo.case_id)
        if case is None:
            raise RunError(f"case {convo.case_id!r} of {convo.id} is no longer in the run's suite")
        if spec.imported is not None and not self.agent:
            raise RunError(IMPORTED_NOTE)
        model = self.agent or convo.agent
        make = agent_maker(model, self.api_base or spec.api_base_for("agent"), spec.agent_settings())  # the run's prompt, params
        return await replay(
            convo.id,
            case,
            bundle,
            self.store.events(convo.id),
            self.turn,
            self.times,
            make,
            model,
            convo.seed or 0,
            progress=self._on_sample,
        )

    def _on_sample(self, done: int) -> None:
        self.progressed.emit(done, self.times)
        if self.stopping:  # an offline agent never yields to the loop: stop between samples
            raise asyncio.CancelledError


def result_rows(result: ReplayResult) -> list[dict[str, Any]]:
    """The table's rows: each action taken, most frequent first; the original one also when never taken again."""
    rows = result.actions()
    if result.samples and not any(row["original"] for row in rows):
        rows.append(
            {"action": result.original, "count": 0, "share": 0.0, "interval": wilson(0, len(result.samples)), "original": True}
        )
    return rows


class ReplayDialog(QDialog):
    """Choose the agent and N, replay the turn in the background, read how often each action came."""

    finished_replay = Signal(object)  # Outcome

    def __init__(
        self, store: Store, record: ConversationRecord, events: Sequence[Event], turn: int, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setWindowTitle(f"Replay from turn {turn}")
        self.setObjectName("replayDialog")
        self.store, self.record, self.turn = store, record, turn
        self.imported = record.source_id is not None
        self.original = action_of([e for e in events if e.turn == turn])
        self.worker: ReplayThread | None = None
        self.replayed: ReplayResult | None = None
        self._build()
        self._on_agent_edited()
        self.resize(760, 520)

    # --- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        name = self.record.source_id or self.record.id
        heading = QLabel(
            f"<b>{name}</b> · case {self.record.case_id} · the agent's turn {self.turn}<br>"
            f"<span style='color:#475569'>Originally: {self.original}</span>"
        )
        heading.setObjectName("replayHeading")
        heading.setTextFormat(Qt.TextFormat.RichText)
        intro = QLabel(
            "The conversation is cut just before the agent answers in this turn; the agent then plays the "
            "turn again, each time on a fresh copy with its own seed. Nothing is stored."
        )
        intro.setObjectName("hint")
        intro.setWordWrap(True)
        self.agent = QLineEdit("" if self.imported else self.record.agent)
        self.agent.setPlaceholderText("the agent to replay it with: baseline:oracle, openai/gpt-4o-mini …")
        self.agent.setToolTip("Another agent to put at the fork (default: the conversation's own)")
        self.agent.textChanged.connect(self._on_agent_edited)
        self.api_base = QLineEdit()
        self.api_base.setPlaceholderText("default: the run's (or the provider's own)")
        self.times = QSpinBox()
        self.times.setRange(1, MAX_TIMES)
        self.times.setValue(DEFAULT_TIMES)
        self.times.setToolTip("How many times to play the turn; more samples narrow the intervals")
        self.times.setMaximumWidth(110)
        form = QFormLayout()
        form.addRow("Agent", self.agent)
        form.addRow("API base", self.api_base)
        form.addRow("Times", self.times)
        self.progress = QProgressBar()
        self.progress.setMaximumHeight(10)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = QLabel("")
        self.status.setObjectName("replayStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = self._make_table()
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        layout.addLayout(self._buttons())

    def _make_table(self) -> QTableWidget:
        from sage_desk.gui.common.widgets import read_only_rows

        table = QTableWidget(0, len(COLUMNS))
        table.setObjectName("replayTable")
        table.setHorizontalHeaderLabels(list(COLUMNS))
        read_only_rows(table, 26)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column, width in ((1, 70), (2, 70), (3, 120)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
            header.resizeSection(column, width)
        return table

    def _buttons(self) -> QHBoxLayout:
        self.start_button = QPushButton("Start")
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.reject)
        row = QHBoxLayout()
        row.addStretch(1)
        for button in (self.start_button, self.cancel_button, self.close_button):
            row.addWidget(button)
        return row

    # --- replaying --------------------------------------------------------------------------

    def _on_agent_edited(self) -> None:
        if self.is_running():
            return
        named = bool(self.agent.text().strip())
        self.start_button.setEnabled(named or not self.imported)
        if self.imported and not named:
            self.status.setText(IMPORTED_NOTE)
        elif self.status.text() == IMPORTED_NOTE:
            self.status.setText("")

    def start(self) -> bool:
        """Replay in the background with the chosen agent and N; False when it cannot start."""
        agent = self.agent.text().strip()
        if self.is_running() or (self.imported and not agent):
            return False
        times = self.times.value()
        self.worker = ReplayThread(
            self.store, self.record.id, self.turn, times, agent, self.api_base.text().strip() or None, parent=self
        )
        self.worker.progressed.connect(self._on_progress)
        self.worker.ended.connect(self._on_ended)
        self.replayed = None
        self.table.setRowCount(0)
        self.progress.setRange(0, times)
        self.progress.setValue(0)
        self._set_busy(True)
        self._say(f"Replaying turn {self.turn} with {agent or self.record.agent}: 0 of {times}…")
        self.worker.start()
        return True

    def cancel(self) -> None:
        """Stop the replay under way (the samples played so far are dropped)."""
        if self.worker is not None:
            self.worker.cancel()
            self.cancel_button.setEnabled(False)
            self._say("Cancelling…")

    def is_running(self) -> bool:
        """Whether a replay is under way."""
        return self.worker is not None and self.worker.isRunning()

    def _set_busy(self, busy: bool) -> None:
        for widget in (self.agent, self.api_base, self.times, self.start_button):
            widget.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy)

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setValue(done)
        if self.worker is not None and not self.worker.stopping:
            self._say(f"Replaying turn {self.turn}: {done} of {total}…")

    def _on_ended(self, outcome: Outcome) -> None:
        if self.worker is not None:
            self.worker.wait()
            self.worker.deleteLater()
            self.worker = None
        self._set_busy(False)
        if outcome.cancelled:
            self._say("Cancelled: nothing to show.")
        elif outcome.error is not None:
            self._show_error(outcome.error)
        else:
            self.replayed = outcome.result
            self._show_result(outcome.result)
        self.finished_replay.emit(outcome)

    def _show_error(self, error: BaseException) -> None:
        message, details = describe(error)
        if not isinstance(error, SageError):  # not one of ours: keep the traceback for a bug report
            print(f"Replay failed: {message}\n{details}".rstrip(), file=sys.stderr)
        self._say(f"Could not replay: {message}", error=True)

    def _show_result(self, result: ReplayResult) -> None:
        rows = result_rows(result)
        self.table.setRowCount(len(rows))
        for number, row in enumerate(rows):
            self._fill_row(number, row)
        played = len(result.samples)
        text = f"Played {played} of {result.times} times with {result.agent}."
        if result.errors:
            text += f" {len(result.errors)} failed and are not counted: {result.errors[0]}"
        self._say(text, error=bool(result.errors) and not played)

    def _fill_row(self, number: int, row: dict[str, Any]) -> None:
        low, high = row["interval"]
        action = f"{row['action']}   {ORIGINAL_MARK}" if row["original"] else row["action"]
        texts = (action, str(row["count"]), f"{row['share']:.0%}", f"{low:.0%} – {high:.0%}")
        for column, text in enumerate(texts):
            item = QTableWidgetItem(text)
            if column:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if row["original"]:
                font = QFont(item.font())
                font.setBold(True)
                item.setFont(font)
                item.setBackground(QBrush(QColor(ORIGINAL_FILL)))
                item.setToolTip("What the agent did at this turn in the stored conversation")
            self.table.setItem(number, column, item)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color: #b91c1c;" if error else "")
        self.status.setText(text)

    # --- closing ----------------------------------------------------------------------------

    def reject(self) -> None:
        """Close: a replay under way is cancelled first (its thread must not outlive the dialog)."""
        self.stop()
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt's name
        self.stop()
        super().closeEvent(event)

    def stop(self) -> None:
        """Cancel a replay under way and wait for its thread to end."""
        if self.worker is not None:
            self.worker.cancel()
            self.worker.wait()
