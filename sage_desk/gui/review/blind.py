"""The verdict table of a blind review queue: what the reviewer may not see until they have labelled.

A blind queue hides the judge's value and other reviewers' labels of an item until the reviewer
has labelled it (`core/store/queues.py`, `reveals`). While it is hidden:
- every judge verdict shows "hidden" for its value and its rationale (the rationale gives the value away);
- a rule verdict stays readable: a rule is a deterministic check of what happened (the tool calls,
  the route, the ending), which the transcript and the route graph show anyway. A rule the queue
  asks reviewers to label (one of its criteria) is hidden like a judge's, since that is the
  value the reviewer is to give on their own;
- no verdict shows another reviewer's label: the Human column holds only the reviewer's own keyed
  value, and no machine value is struck through because someone overrode it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush

from sage_desk.core.review.session import ReviewSession, StoredVerdict
from sage_desk.core.rules.verdict import RULES_SOURCE
from sage_desk.gui.review.verdict_model import FAIL, HUMAN, MUTED, PASS, Index, VerdictModel

HIDDEN = "hidden until you label"
HIDDEN_SHORT = "hidden"
NOTE = (
    "Blind queue: the judge's values and other reviewers' labels are hidden until you label this "
    "conversation (save a value, Enter)."
)


class BlindVerdictModel(VerdictModel):
    """The verdict table, which hides judge values and others' labels while `blind` is on."""

    def __init__(self, parent: Any = None, session: ReviewSession | None = None):
        super().__init__(parent, session)
        self.blind = False
        self.criteria: frozenset[str] = frozenset()
        """The criteria the queue asks to label (empty: any)."""

    def set_blind(self, blind: bool, criteria: Sequence[str] = ()) -> None:
        """Hide (True) or show what a blind queue keeps from the reviewer; the rows and selection stay."""
        if (blind, frozenset(criteria)) == (self.blind, self.criteria):
            return
        self.blind, self.criteria = blind, frozenset(criteria)
        if self.verdicts:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.verdicts) - 1, self.columnCount() - 1))

    def hides(self, verdict: StoredVerdict | None) -> bool:
        """Whether this verdict's machine value is hidden from the reviewer now."""
        if not self.blind or verdict is None:
            return False
        return verdict.source != RULES_SOURCE or verdict.criterion in self.criteria

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self.blind or not index.isValid() or not 0 <= index.row() < len(self.verdicts):
            return super().data(index, role)
        verdict, column = self.verdicts[index.row()], index.column()
        pending = self.pending.get(verdict.id)
        if column == 3:
            return self._own_value(pending, role)
        if self.hides(verdict) and column in (2, 4):
            return self._hidden(column, role)
        if self.hides(verdict) and column == 0 and role == Qt.ItemDataRole.ToolTipRole:
            return f"{verdict.criterion}: {HIDDEN}"  # its rationale would give the value away
        if role == Qt.ItemDataRole.FontRole and column == 2:
            return self._struck if pending is not None else None
        if role == Qt.ItemDataRole.ForegroundRole and column in (0, 2):
            passed, _score = self._machine(verdict)
            if column == 0:
                return QBrush(FAIL) if passed is False and not self.hides(verdict) else None
            return QBrush(MUTED if pending is not None or passed is None else PASS if passed else FAIL)
        return super().data(index, role)

    def _own_value(self, pending: Any, role: int) -> Any:
        """The Human column: the reviewer's keyed value only (others' labels are hidden)."""
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{pending.text()} (unsaved)" if pending is not None else ""
        if role == Qt.ItemDataRole.FontRole:
            return self._italic if pending is not None else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(HUMAN)
        if role == Qt.ItemDataRole.ToolTipRole:
            return "Other reviewers' labels are hidden until you label this conversation (blind queue)"
        return None

    @staticmethod
    def _hidden(column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return HIDDEN_SHORT if column == 2 else HIDDEN
        if role == Qt.ItemDataRole.ToolTipRole:
            return "The judge's value is hidden until you label this conversation (blind queue)"
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(MUTED)
        return None
