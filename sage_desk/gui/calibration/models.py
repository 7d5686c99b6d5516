"""Table models of the Calibration screen: agreement per criterion, disagreements, before/after.

Each is a QAbstractTableModel over plain core records (`CriterionRow`, `LabelledItem`,
`BeforeAfter`) with cheap `data()`; the figures come from core, the models only format them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from sage_desk.core.calibration import BeforeAfter, CriterionRow, LabelledItem

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")
WARN_FILL, WARN_TEXT = "#fdf1d8", "#8a5a00"
BAD_TEXT, GOOD_TEXT = "#b42318", "#1e7b3a"


def pct(value: float | None) -> str:
    """A rate as a whole percentage, or an en dash when undefined."""
    return "–" if value is None else f"{value:.0%}"


def kappa_text(value: float | None) -> str:
    """Kappa with its sign, or an en dash when undefined."""
    return "–" if value is None else f"{value:+.2f}"


def short_criterion(name: str) -> str:
    """`judge.empathy` -> `empathy`, `judge.say.ask_photo` -> `say: ask_photo`."""
    if name.startswith("judge.say."):
        return "say: " + name.removeprefix("judge.say.")
    return name.removeprefix("judge.").replace("_", " ")


def verdict_text(passed: bool | None, score: float | None) -> str:
    """`pass 0.80`, `fail`, or `unscored`."""
    if passed is None:
        return "unscored"
    word = "pass" if passed else "fail"
    return f"{word} {score:.2f}" if score is not None else word


@dataclass(frozen=True)
class Column(Generic[Row]):
    """One column: its header, what it means, how a row shows in it, and its alignment."""

    header: str
    help: str
    text: Callable[[Row], str]
    numeric: bool = True


class RecordTable(QAbstractTableModel, Generic[Row]):
    """A read-only table of records, one column per `Column`."""

    columns: Sequence[Column[Row]] = ()

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.rows: list[Row] = []

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Show these rows."""
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = self.rows[index.row()], self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(row)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = Qt.AlignmentFlag.AlignRight if column.numeric else Qt.AlignmentFlag.AlignLeft
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return row
        return self.extra(row, index.column(), role)

    def extra(self, row: Row, column: int, role: int) -> Any:
        """Colours and tooltips of a cell, for subclasses."""
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # Qt API
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.columns):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].header
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.columns[section].help
        return None


class AgreementModel(RecordTable[CriterionRow]):
    """One row per criterion of the chosen judge: labelled n, accuracy, kappa, rates, a warning."""

    columns = (
        Column("Criterion", "The judge criterion a human labelled", lambda r: short_criterion(r.criterion), False),
        Column("Labelled", "Conversations a human labelled that this judge scored", lambda r: str(r.agreement.n)),
        Column("Accuracy", "Share of labelled conversations where judge and human agree", lambda r: pct(r.agreement.accuracy)),
        Column(
            "Kappa",
            "Cohen's kappa: agreement beyond chance (1 perfect, 0 chance, below 0 worse than chance; "
            "– when undefined: everyone gave one class)",
            lambda r: kappa_text(r.agreement.kappa),
        ),
        Column("True pass", "Of what humans passed, the share the judge passed too", lambda r: pct(r.agreement.true_pass_rate)),
        Column("True fail", "Of what humans failed, the share the judge failed too", lambda r: pct(r.agreement.true_fail_rate)),
        Column("Status", "Whether there are enough labels of both classes to trust the figures", lambda r: _status(r), False),
    )

    def extra(self, row: CriterionRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.criterion if column == 0 else _status(row)
        if column == len(self.columns) - 1 and not row.agreement.reliable:
            if role == Qt.ItemDataRole.BackgroundRole:
                return QBrush(QColor(WARN_FILL))
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(QColor(WARN_TEXT))
        if column == len(self.columns) - 1 and poor_agreement(row) and role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(BAD_TEXT))
        return None


KAPPA_WORDS = (
    (0.005, "no better than chance"),
    (0.2, "slight agreement"),
    (0.4, "fair agreement"),
    (0.6, "moderate agreement"),
    (0.8, "substantial agreement"),
    (1.01, "almost perfect agreement"),
)
"""Landis and Koch's reading of kappa: below each bound, these words."""


def agreement_words(kappa: float | None) -> str:
    """What a kappa means in words (enough labels assumed)."""
    if kappa is None:
        return "agreement undefined (one class only)"
    return next(words for bound, words in KAPPA_WORDS if kappa < bound)


def poor_agreement(row: CriterionRow) -> bool:
    """Enough labels, and the judge agrees with the humans no better than slightly."""
    kappa = row.agreement.kappa
    return row.agreement.reliable and (kappa is None or kappa < 0.2)


def _status(row: CriterionRow) -> str:
    # never a bare "ok": with enough labels the status says how well the judge agrees, so 48 %
    # accuracy and kappa 0.00 read as the poor agreement they are
    text = row.agreement.warning or f"enough labels: {agreement_words(row.agreement.kappa)}"
    if text == "no labels":
        text = "no scored labels"
    return f"{text}; {row.unscored} unscored" if row.unscored else text


class DisagreementModel(RecordTable[LabelledItem]):
    """Labelled verdicts where the judge and the human differ."""

    columns = (
        Column("Conversation", "Double-click or press Enter to open it in Review", lambda i: i.conversation_id, False),
        Column(
            "Judge", "What the judge said (hover for its rationale)", lambda i: verdict_text(i.judge_passed, i.judge_score), False
        ),
        Column("Human", "What the reviewer said", lambda i: verdict_text(i.label.passed, i.label.score), False),
        Column("Reason", "The reviewer's reason", lambda i: i.label.reason, False),
        Column("Case", "The case it played", lambda i: i.case_id, False),
        Column("Agent", "The agent under test", lambda i: i.agent, False),
        Column("By", "Who labelled it", lambda i: i.label.author, False),
        Column("Criterion", "The judged criterion", lambda i: short_criterion(i.criterion), False),
    )
    CRITERION = 7

    def extra(self, row: LabelledItem, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 1:
                return row.judge_rationale or None
            if column == 3:
                return row.label.reason or None
            return "Double-click or press Enter to open this conversation in Review"
        if role == Qt.ItemDataRole.ForegroundRole and column in (1, 2):
            passed = row.judge_passed if column == 1 else row.label.passed
            return QBrush(QColor(GOOD_TEXT if passed else BAD_TEXT))
        return None


def _arrow(before: str, after: str) -> str:
    return before if before == after else f"{before} → {after}"


class BeforeAfterModel(RecordTable[BeforeAfter]):
    """Agreement on the held-out labels before and after calibration, per criterion."""

    columns = (
        Column(
            "Criterion",
            "The judge criterion; '(no examples)' when the prompt had none for it",
            lambda r: short_criterion(r.criterion) + ("" if r.calibrated else " (no examples)"),
            False,
        ),
        Column("Held out", "Held-out labels scored both before and after (amber: too few to trust)", lambda r: str(r.after.n)),
        Column("Accuracy", "Before → after", lambda r: _arrow(pct(r.before.accuracy), pct(r.after.accuracy))),
        Column("Kappa", "Before → after", lambda r: _arrow(kappa_text(r.before.kappa), kappa_text(r.after.kappa))),
        Column("True pass", "Before → after", lambda r: _arrow(pct(r.before.true_pass_rate), pct(r.after.true_pass_rate))),
        Column("True fail", "Before → after", lambda r: _arrow(pct(r.before.true_fail_rate), pct(r.after.true_fail_rate))),
    )

    def extra(self, row: BeforeAfter, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole:
            return _held_status(row) if column == 1 else self.columns[column].help
        if column == 2 and role == Qt.ItemDataRole.ForegroundRole:
            before, after = row.before.accuracy, row.after.accuracy
            if before is not None and after is not None and before != after:
                return QBrush(QColor(GOOD_TEXT if after > before else BAD_TEXT))
        if column == 1 and not row.after.reliable:
            if role == Qt.ItemDataRole.BackgroundRole:
                return QBrush(QColor(WARN_FILL))
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(QColor(WARN_TEXT))
        return None


def _held_status(row: BeforeAfter) -> str:
    text = row.after.warning or "enough held-out labels"
    return f"{text}; {row.dropped} left unscored before or after" if row.dropped else text
