"""The verdicts of one conversation: rule verdicts and judge scores, the machine's value beside the human's.

An overridden verdict shows the machine's value struck through and the human's beside it. A value
the reviewer has keyed but not saved yet shows in the Human column in italics, marked unsaved.

Keys a reviewer presses (see `value_for_key`), each with one meaning wherever it is pressed:
- P = pass, X = fail: pass/fail verdicts (every rule, and judge checks without a score);
- 1-5 = a score on a five-step scale, 0.00, 0.25, 0.50, 0.75, 1.00: scored judge verdicts (0-1);
  pass/fail follows the judge's pass mark (`PASS_THRESHOLD`), as the judge's own values do.
A key that does not fit the verdict keys nothing and says which keys do.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from sage_desk.core.judge.rubric import PASS_THRESHOLD
from sage_desk.core.review.session import HumanValue, ReviewSession, StoredVerdict, value_text
from sage_desk.core.rules.verdict import RULES_SOURCE

Index = QModelIndex | QPersistentModelIndex
SCALE = {"1": 0.0, "2": 0.25, "3": 0.5, "4": 0.75, "5": 1.0}
"""Number key -> human score, for scored verdicts."""
VERDICT_KEYS = {"p": True, "x": False}
"""Letter key -> pass/fail, for pass/fail verdicts."""
HEADERS = ("Criterion", "Source", "Machine", "Human", "Why")
HELP = (
    "What was checked",
    "The rule engine, or which judge",
    "The rule's or judge's value (struck through when a human overrode it)",
    "The reviewer's value (italic: keyed, not saved yet)",
    "The rule's or judge's rationale",
)
FAIL, PASS, HUMAN, MUTED = QColor("#b91c1c"), QColor("#15803d"), QColor("#7c3aed"), QColor("#64748b")
NEEDS = QColor("#b45309")  # amber, as the Slots panel marks the slots these verdicts wait on


def needs_of(verdict: StoredVerdict) -> list[str]:
    """The slots an unscored verdict waits on (`unscored: needs FaultType, ...` from an imported conversation's rules)."""
    if not verdict.unscored:
        return []
    needs = verdict.details.get("needs") if isinstance(verdict.details, dict) else None
    if isinstance(needs, list) and needs:
        return [str(n) for n in needs]
    head, _, rest = verdict.rationale.partition("unscored: needs ")
    if head or not rest:
        return []
    names = rest.split(" (")[0].split(" from ")[0]
    return [n.strip() for n in names.split(",") if n.strip().isidentifier()]


def unscored_text(verdict: StoredVerdict) -> str:
    """`needs slot` (its tooltip names them) or `unscored`: what an unscored verdict waits for, in a narrow column."""
    return "needs slot" if needs_of(verdict) else "unscored"


def is_provisional(verdict: StoredVerdict) -> bool:
    """A rule verdict resting only on a slot the agent's own tag gave, not yet settled by a reviewer."""
    return not verdict.overridden and isinstance(verdict.details, dict) and bool(verdict.details.get("provisional"))


def is_scored(verdict: StoredVerdict) -> bool:
    """Whether the reviewer gives this verdict a score (judge scores) rather than pass/fail."""
    if verdict.source == RULES_SOURCE:
        return False
    return verdict.score is not None or verdict.original_score is not None


def value_for_key(verdict: StoredVerdict, key: str) -> HumanValue | None:
    """The human value a key ("1"-"5", "p", "x") stands for on this verdict, or None when it does not fit."""
    if is_scored(verdict) and key in SCALE:
        score = SCALE[key]
        return HumanValue(score >= PASS_THRESHOLD, score)
    passed = VERDICT_KEYS.get(key)  # on a scored verdict too: pass or fail without a score (the heuristic judge
    # scores everything, and a reviewer often knows only that it passes)
    return None if passed is None else HumanValue(passed)


def keys_for(verdict: StoredVerdict) -> str:
    """The keys that set a value on this verdict, as a reviewer reads them."""
    return "1–5 set the score (0, .25, .5, .75, 1), P/X pass or fail without one" if is_scored(verdict) else "P = pass, X = fail"


def key_help(verdict: StoredVerdict | None) -> str:
    """What the keys do on this verdict, in one line."""
    if verdict is None:
        return "Pick a verdict to override it."
    return f"{keys_for(verdict)} · Enter saves and moves on · ? lists every key"


def short_source(source: str) -> str:
    """`rules`, `heuristic`, `gpt-4o-mini` ... for a narrow column."""
    if source.startswith("judge:"):
        return source.removeprefix("judge:").split("/")[-1]
    return source.removeprefix("baseline:")


class VerdictModel(QAbstractTableModel):
    """One row per verdict of the conversation, in the order the rules and judges gave them."""

    def __init__(self, parent=None, session: ReviewSession | None = None):
        super().__init__(parent)
        self.verdicts: list[StoredVerdict] = []
        self.session = session if session is not None else ReviewSession()  # keyed labels are the session's
        self.session.pending_changed.connect(self._on_pending)
        self._struck = QFont()
        self._struck.setStrikeOut(True)
        self._italic = QFont()
        self._italic.setItalic(True)

    def set_verdicts(self, verdicts: list[StoredVerdict]) -> None:
        """Show another conversation's verdicts; unsaved values are dropped."""
        self.beginResetModel()
        self.verdicts = list(verdicts)
        self.session.drop_pending()
        self.endResetModel()

    def verdict(self, row: int) -> StoredVerdict | None:
        """The verdict on a row."""
        return self.verdicts[row] if 0 <= row < len(self.verdicts) else None

    def row_of(self, criterion: str, source: str) -> int | None:
        """The row of a (criterion, source), or None."""
        return next((i for i, v in enumerate(self.verdicts) if (v.criterion, v.source) == (criterion, source)), None)

    @property
    def pending(self) -> dict[int, HumanValue]:
        """The keyed, unsaved values: verdict id -> value (the session's)."""
        return self.session.pending

    def set_pending(self, row: int, value: HumanValue | None) -> None:
        """Key a human value (not saved yet) on a row; None clears it."""
        verdict = self.verdict(row)
        if verdict is not None:
            self.session.key_label(verdict.id, value)

    def _on_pending(self, verdict_id: int | None) -> None:
        row = next((i for i, v in enumerate(self.verdicts) if v.id == verdict_id), None)
        if row is not None:  # a whole reset (None) comes with the model's own reset
            self.dataChanged.emit(self.index(row, 2), self.index(row, 3))

    def pending_items(self) -> list[tuple[StoredVerdict, HumanValue]]:
        """The keyed, unsaved values with their verdicts, in row order."""
        return [(v, self.pending[v.id]) for v in self.verdicts if v.id in self.pending]

    # --- Qt model API -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.verdicts)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # Qt API
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return HELP[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.verdicts):
            return None
        verdict, column = self.verdicts[index.row()], index.column()
        pending = self.pending.get(verdict.id)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(verdict, column, pending)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(verdict, column)
        if role == Qt.ItemDataRole.FontRole:
            if column == 2 and (verdict.overridden or pending is not None):
                return self._struck
            if column == 3 and pending is not None:
                return self._italic
            return None
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._colour(verdict, column, pending)
        return None

    def _machine(self, verdict: StoredVerdict) -> tuple[bool | None, float | None]:
        if verdict.overridden:
            return verdict.original_passed, verdict.original_score
        return verdict.passed, verdict.score

    def _text(self, verdict: StoredVerdict, column: int, pending: HumanValue | None) -> str:
        if column == 0:
            return verdict.criterion
        if column == 1:
            return short_source(verdict.source)
        if column == 2:
            passed, score = self._machine(verdict)
            if verdict.unscored and not verdict.overridden:
                return unscored_text(verdict)
            if is_provisional(verdict):  # apart from settled values: it rests on the agent's own tag
                return f"provisional {value_text(passed, score)}"
            return value_text(passed, score)
        if column == 3:
            if pending is not None:
                return f"{pending.text()} (unsaved)"
            return value_text(verdict.passed, verdict.score) if verdict.overridden else ""
        return verdict.rationale.replace("\n", " ")

    def _colour(self, verdict: StoredVerdict, column: int, pending: HumanValue | None) -> QBrush | None:
        if column == 2:
            passed, _ = self._machine(verdict)
            if verdict.unscored and not verdict.overridden and pending is None and needs_of(verdict):
                return QBrush(NEEDS)
            if verdict.overridden or pending is not None or passed is None or (is_provisional(verdict) and passed):
                return QBrush(MUTED)  # a provisional pass is never shown green
            return QBrush(PASS if passed else FAIL)
        if column == 3:
            return QBrush(HUMAN)
        if column == 0 and verdict.passed is False:
            return QBrush(FAIL)
        return None

    def _tooltip(self, verdict: StoredVerdict, column: int) -> str | None:
        if column == 1:
            return verdict.source
        if column == 2 and verdict.unscored:
            needs = needs_of(verdict)
            return f"Unscored until someone sets {', '.join(needs)} (Slots, above)" if needs else verdict.rationale or "unscored"
        if column == 2 and is_provisional(verdict):
            fields = ", ".join(verdict.details.get("provisional") or [])
            return f"Provisional: rests only on the agent's own tag for {fields}; set it (Slots, above) or override to settle it"
        if column in (0, 4):
            where = [f"event #{verdict.event_seq}"] if verdict.event_seq is not None else []
            where += [f"node {verdict.node}"] if verdict.node else []
            return f"{verdict.criterion}: {verdict.rationale}" + (f"\n({', '.join(where)})" if where else "")
        return None
