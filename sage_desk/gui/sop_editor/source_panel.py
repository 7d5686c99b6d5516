"""The source text beside the canvas, for a graph drafted from prose.

It shows the document the draft came from and, when one node is selected, highlights the
sentence that node came from (its `cite`, found again in the text, so a node renamed or edited
after drafting still finds its sentence). Hard-wrapped lines are shown joined into paragraphs. What the author should check first (steps the domain
has no tool for, sentences the model misquoted) is listed under the text.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTextEdit, QVBoxLayout, QWidget

from sage_desk.core.sop.extract import DraftResult
from sage_desk.core.sop.source import Span, locate, unwrap

HIGHLIGHT = QColor("#fde68a")


class SourcePanel(QWidget):
    """The SOP text a draft came from, with the selected node's sentence highlighted."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("sourcePanel")
        self.text = ""
        self.positions: list[int] = [0]  # where each char of `text` is in the view (lines unwrapped)
        self.provenance: dict[str, Span] = {}
        title = QLabel("Source text")
        title.setObjectName("panelTitle")
        self.hint = QLabel("Select a node to see the sentence it was drafted from.")
        self.hint.setObjectName("hint")
        self.hint.setWordWrap(True)
        self.view = QPlainTextEdit()
        self.view.setObjectName("sourceText")
        self.view.setReadOnly(True)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.notes = QLabel()
        self.notes.setObjectName("draftNotes")
        self.notes.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        for widget in (title, self.hint):
            layout.addWidget(widget)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.notes)
        self.highlighted: Span | None = None

    def set_draft(self, result: DraftResult) -> None:
        """Show the text of a draft and what to check in it."""
        self.text = result.text
        self.provenance = dict(result.provenance)
        shown, self.positions = unwrap(result.text)  # hard-wrapped prose reads badly in a narrow panel
        self.view.setPlainText(shown)
        self.highlighted = None
        notes = [f"• {u.node}: the domain has no tool {u.tool!r}" for u in result.unmatched]
        notes += [f"• {w}" for w in result.warnings]
        self.notes.setText(("<b>To check</b><br>" + "<br>".join(_escape(n) for n in notes)) if notes else "")
        self.notes.setVisible(bool(notes))

    def span_for(self, node_id: str, cite: str) -> Span | None:
        """Where a node's sentence is: where it was drafted from, else its cite found in the text."""
        span = self.provenance.get(node_id)
        if span is not None and " ".join(span.text(self.text).split()) == " ".join(cite.split()):
            return span
        return locate(cite, self.text) if cite else None

    def highlight(self, node_id: str | None, cite: str = "") -> Span | None:
        """Highlight the sentence of `node_id` (None clears it) and scroll to it; returns its span."""
        span = self.span_for(node_id, cite) if node_id else None
        self.highlighted = span
        if span is None:
            self.view.setExtraSelections([])
            self.hint.setText(
                "Select a node to see the sentence it was drafted from."
                if not node_id
                else f"No source sentence found for {node_id!r}."
            )
            return None
        selection = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(HIGHLIGHT)
        selection.format = fmt
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(self.positions[span.start])
        cursor.setPosition(self.positions[span.end], QTextCursor.MoveMode.KeepAnchor)
        selection.cursor = cursor
        self.view.setExtraSelections([selection])
        self.view.setTextCursor(QTextCursor(cursor.block()))  # scroll to it without selecting
        self.view.centerCursor()
        self.hint.setText(f"Drafted from the highlighted sentence: {node_id}")
        return span


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
