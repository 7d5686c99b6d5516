"""The bar over the Review list in queue mode: the queue's progress, and Next item, Skip, Flag….

It shows what `core/store/queues.py` reports ("12 of 40 done · you labelled 5") and asks for
actions through signals; `queue_mode.QueueMode` does them.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

DONE = "#15803d"
MUTED = "#64748b"


def progress_text(progress: Any, reviewer: str) -> str:
    """'12 of 40 done · you labelled 5 · 2 skipped · 1 flagged'."""
    parts = [progress.summary, f"you labelled {progress.labelled_by(reviewer)}"]
    skipped = len(progress.skipped.get(reviewer, []))
    if skipped:
        parts.append(f"{skipped} skipped")
    if progress.flagged:
        parts.append(f"{len(progress.flagged)} flagged")
    return " · ".join(parts)


def reviewers_tip(progress: Any) -> str:
    """Each reviewer's figures, one a line (what others have done shows here)."""
    data = progress.to_dict()
    lines = [f"{who or '(no name)'}: {c['labelled']} labelled, {c['skipped']} skipped" for who, c in data["reviewers"].items()]
    return "Reviewers so far:\n" + ("\n".join(lines) if lines else "nobody has labelled yet")


class QueueBar(QWidget):
    """The queue's name and progress, a progress bar, and the queue's actions."""

    next_requested = Signal()
    skip_requested = Signal()
    flag_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("queueBar")
        self.title = QLabel("")
        self.title.setObjectName("queueTitle")
        self.progress = QLabel("")
        self.progress.setObjectName("queueProgress")
        self.meter = QProgressBar()
        self.meter.setTextVisible(False)
        self.meter.setFixedSize(120, 8)
        self.note = QLabel("")
        self.note.setObjectName("queueNote")
        # always rich text: a plain message, escaped, showed its entities ("&#x27;lead&#x27; is not a reviewer")
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.next_button = QPushButton("Next item  N")
        self.next_button.setToolTip(
            "Your next item of the queue: one you have not labelled or skipped that still needs reviews (N)"
        )
        self.skip_button = QPushButton("Skip")
        self.skip_button.setToolTip("Leave this item to other reviewers and go to your next one")
        self.flag_button = QPushButton("Flag…")
        self.flag_button.setToolTip("Flag this item for the queue's owner, with a note (a bad case, a broken transcript…)")
        for button in (self.next_button, self.skip_button, self.flag_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keyboard stays on the list
        self.next_button.clicked.connect(self.next_requested)
        self.skip_button.clicked.connect(self.skip_requested)
        self.flag_button.clicked.connect(self.flag_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 2, 10, 4)
        layout.setSpacing(8)
        layout.addWidget(self.title)
        layout.addWidget(self.meter)
        layout.addWidget(self.progress)
        layout.addWidget(self.note, 1)
        layout.addWidget(self.next_button)
        layout.addWidget(self.skip_button)
        layout.addWidget(self.flag_button)
        self.hide()

    def show_queue(self, record: Any, reviewer: str) -> None:
        """The queue's name and how it is reviewed."""
        about = [f"{record.reviews_per_item} review{'s' if record.reviews_per_item != 1 else ''} per item"]
        if record.blind:
            about.insert(0, "<b>blind</b>")
        self.title.setText(
            f"Queue <b>{escape(record.name)}</b> <span style='color:{MUTED}'>· {' · '.join(about)} · as {escape(reviewer)}</span>"
        )
        self.title.setToolTip(
            "Blind: the judge's values and other reviewers' labels of an item stay hidden until you label it."
            if record.blind
            else "Not blind: you see the judge and others' labels."
        )

    def show_progress(self, progress: Any, reviewer: str) -> None:
        """'12 of 40 done · you labelled 5' and the bar; others' figures in the tooltip."""
        self.progress.setText(progress_text(progress, reviewer))
        self.progress.setToolTip(reviewers_tip(progress))
        self.meter.setRange(0, max(progress.total, 1))
        self.meter.setValue(progress.done)
        self.meter.setToolTip(progress.summary)

    def show_item(self, in_queue: bool, flagged_by_me: bool) -> None:
        """Skip and Flag act on the conversation shown: on only when it is one of the queue's."""
        self.skip_button.setEnabled(in_queue)
        self.flag_button.setEnabled(in_queue)
        self.flag_button.setText("Unflag" if flagged_by_me else "Flag…")

    def say(self, text: str, done: bool = False) -> None:
        """A line beside the buttons: the queue is done, nothing is left for you, a problem."""
        self.note.setText(f"<span style='color:{DONE}'><b>{escape(text)}</b></span>" if done else escape(text))
        self.note.setToolTip(text)
