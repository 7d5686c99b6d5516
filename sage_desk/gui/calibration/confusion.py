"""The confusion matrix of one criterion: humans down the side, the judge across the top."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from sage_desk.core.calibration import Agreement
from sage_desk.gui.calibration.models import short_criterion

AGREE_FILL, DISAGREE_FILL, EMPTY_FILL = "#e3f4e8", "#fbe3e0", "#f8fafc"


class ConfusionMatrix(QWidget):
    """A 2x2 grid of counts (with the share of the row), agreement cells green, disagreement red."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("confusionMatrix")
        self.title = QLabel("Confusion matrix")
        self.title.setObjectName("panelTitle")
        self.cells: dict[tuple[bool, bool], QLabel] = {}  # (human pass, judge pass) -> cell
        self.note = QLabel("")
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)
        grid = QGridLayout()
        grid.setSpacing(4)
        for column, text in ((1, "Judge: pass"), (2, "Judge: fail")):
            grid.addWidget(self._header(text), 0, column)
        for row, (text, human) in enumerate((("Human: pass", True), ("Human: fail", False)), start=1):
            grid.addWidget(self._header(text), row, 0)
            for column, judge in ((1, True), (2, False)):
                cell = QLabel("–")
                cell.setAlignment(Qt.AlignmentFlag.AlignCenter)
                cell.setMinimumSize(104, 58)
                self.cells[(human, judge)] = cell
                grid.addWidget(cell, row, column)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.title)
        layout.addLayout(grid)
        layout.addWidget(self.note)
        layout.addStretch(1)
        self.show_agreement(None, None)

    @staticmethod
    def _header(text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("hint")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        return label

    def show_agreement(self, criterion: str | None, agreement: Agreement | None) -> None:
        """Fill the grid for one criterion, or blank it."""
        self.title.setText(f"Confusion matrix: {short_criterion(criterion)}" if criterion else "Confusion matrix")
        c = agreement.confusion if agreement is not None else None
        counts = {} if c is None else {(True, True): c.tp, (True, False): c.fn, (False, True): c.fp, (False, False): c.tn}
        for (human, judge), cell in self.cells.items():
            count = counts.get((human, judge))
            row_total = (c.human_passes if human else c.human_fails) if c is not None else 0
            share = (
                f"<br><span style='color:#64748b'>{count / row_total:.0%} of row</span>"
                if count is not None and row_total
                else ""
            )
            cell.setText("–" if count is None else f"<b style='font-size:15pt'>{count}</b>{share}")
            fill = EMPTY_FILL if count is None else AGREE_FILL if human == judge else DISAGREE_FILL
            cell.setStyleSheet(f"background: {fill}; border-radius: 6px;")
        self.note.setText(
            "Green: judge and human agree. Red: they disagree (listed on the right)."
            if c is not None
            else "Pick a criterion in the table above."
        )

    def counts(self) -> dict[str, int | None]:
        """What the grid shows, for tests: tp, fn, fp, tn (None when blank)."""

        def value(key: tuple[bool, bool]) -> int | None:
            text = self.cells[key].text()
            return None if text == "–" else int(text.split("</b>")[0].rsplit(">", 1)[1])

        return {"tp": value((True, True)), "fn": value((True, False)), "fp": value((False, True)), "tn": value((False, False))}
