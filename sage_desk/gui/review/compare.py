"""Two conversations of one case side by side: two models, or two repeats of one model."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from sage_desk.gui.review.detail import ConversationDetail
from sage_desk.gui.review.transcript import transcript_over_timeline

if TYPE_CHECKING:
    from sage_desk.gui.review.host import ReviewHost


def verdict_line(detail: ConversationDetail) -> str:
    """'closed · 3 rules failed (outcome, path.action_accuracy …) · judge 0.62'."""
    rules = [v for v in detail.verdicts if v.source == "rules"]
    failed = [v.criterion for v in rules if v.passed is False]
    judged = [v.score for v in detail.verdicts if v.source != "rules" and v.score is not None and not v.unscored]
    parts = [(detail.record.termination or detail.record.status.value).replace("_", " ")]
    if rules:
        shown = ", ".join(failed[:3]) + (" …" if len(failed) > 3 else "")
        parts.append(
            f"<span style='color:#b91c1c'>{len(failed)} rules failed ({shown})</span>"
            if failed
            else "<span style='color:#15803d'>every rule passed</span>"
        )
    if judged:
        parts.append(f"judge {sum(judged) / len(judged):.2f}")
    return " · ".join(parts)


def compare_options(table: Any, record: Any) -> tuple[list[tuple[str, str]], str | None]:
    """The run's conversations of the record's case (id, label), and the one to show beside it.

    Beside it goes another model on the same repeat when there is one, else another repeat.
    """
    rows = [i for i in range(len(table)) if table.case_ids[i] == record.case_id]
    options = [
        (table.ids[i], f"{table.agents[i]} · repeat {table.repeats[i]} · {table.endings[i].replace('_', ' ')}") for i in rows
    ]
    others = [i for i in rows if table.ids[i] != record.id]
    if not others:
        return options, None
    other = next((i for i in others if table.agents[i] != record.agent and table.repeats[i] == record.repeat), others[0])
    return options, table.ids[other]


class ConversationPane(QWidget):
    """A picker of the case's conversations, then the chosen one's transcript over its timeline."""

    def __init__(self, load: Callable[[str], ConversationDetail], options: list[tuple[str, str]], parent=None):
        super().__init__(parent)
        self.load = load
        self.detail: ConversationDetail | None = None
        self.picker = QComboBox()
        # sized to the pane, not to the longest option (two of them made the dialog wider than a laptop)
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.setMinimumContentsLength(24)
        for conversation_id, label in options:
            self.picker.addItem(label, conversation_id)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.transcript, self.timeline, split = transcript_over_timeline(520, 220)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.picker)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.picker.currentIndexChanged.connect(self._on_pick)

    def show_conversation(self, conversation_id: str) -> None:
        """Pick and show one of the case's conversations."""
        index = self.picker.findData(conversation_id)
        if index == self.picker.currentIndex() and self.detail is not None:
            return
        if index == self.picker.currentIndex():
            self._on_pick(index)
        else:
            self.picker.setCurrentIndex(index)

    def conversation_id(self) -> str | None:
        """The conversation on show."""
        return self.detail.id if self.detail else None

    def _on_pick(self, index: int) -> None:
        conversation_id = self.picker.itemData(index)
        if conversation_id is None:
            return
        self.detail = self.load(conversation_id)
        kinds = self.detail.tool_kinds
        self.summary.setText(verdict_line(self.detail))
        self.transcript.show_events(self.detail.events, kinds)
        self.timeline.show_events(self.detail.events, kinds)


class CompareDialog(QDialog):
    """Two conversations of one case, each with its own picker, side by side."""

    def __init__(
        self,
        case_id: str,
        options: list[tuple[str, str]],
        left: str,
        right: str,
        load: Callable[[str], ConversationDetail],
        parent=None,
    ):
        super().__init__(parent)
        self.setWindowTitle(f"Compare conversations of case {case_id}")
        self.setObjectName("compareDialog")
        self.resize(1280, 820)
        self.left = ConversationPane(load, options)
        self.right = ConversationPane(load, options)
        heading = QLabel(
            f"<b>Case {case_id}</b> — pick any two of its {len(options)} conversations in this run "
            "(other models, or other repeats of one model)."
        )
        heading.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.left)
        split.addWidget(self.right)
        row = QHBoxLayout()
        row.addWidget(split)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(row, 1)
        self.left.show_conversation(left)
        self.right.show_conversation(right)


def open_compare(screen: ReviewHost) -> CompareDialog | None:
    """Open the selected conversation beside another of the same case (another model first)."""
    if screen.detail is None or screen.loader is None:
        screen.message.emit("Pick a conversation to compare")
        return None
    if screen.verdict_model.blind:
        screen.message.emit("Compare shows the judge's values: label this conversation first (blind queue)")
        return None
    table, record = screen.list_model.table, screen.detail.record
    options, other = compare_options(table, record)
    if other is None:
        screen.message.emit(f"Case {record.case_id} has no other conversation in this run to compare with")
        return None
    dialog = CompareDialog(record.case_id, options, record.id, other, screen.loader.load, screen.widget())
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    screen.compare_dialog = dialog
    return dialog
