"""The Calibration screen's "Between reviewers" tab: how far human reviewers agree, per criterion.

Figures come from `sage_desk.core.calibration.human_agreement` (the same as `sage-desk
agreement`); the tab lays them out: one row per criterion, then each item where reviewers
disagree, with each one's label and whether it has been adjudicated. "Adjudicate…" (or a double
click on a disagreement) records the final label as `sage-desk adjudicate` does
(adjudicate_dialog.py), then the tab reads the figures again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableView, QVBoxLayout, QWidget

from sage_desk.core.calibration.human_agreement import CriterionAgreement, Disagreement, run_agreement
from sage_desk.gui.calibration.adjudicate_dialog import AdjudicateDialog, open_dialog
from sage_desk.gui.calibration.models import Column, RecordTable, kappa_text, pct, short_criterion
from sage_desk.gui.common.widgets import read_only_rows

if TYPE_CHECKING:
    from sage_desk.core.store import Store

ROW_HEIGHT = 26  # as the screen's other tables


def _reviewers(row: CriterionAgreement) -> str:
    return ", ".join(r or "(no name)" for r in row.reviewers)


class ReviewerAgreementModel(RecordTable[CriterionAgreement]):
    """One row per criterion: reviewers, n, % agreement, kappa, alpha, disagreements."""

    columns = (
        Column("Criterion", "The criterion reviewers labelled", lambda r: short_criterion(r.criterion), False),
        Column("Reviewers", "Who labelled it", _reviewers, False),
        Column("n", "Items two or more reviewers labelled", lambda r: str(r.n)),
        Column(
            "Agree", "Share of those items on which every reviewer gave the same pass/fail", lambda r: pct(r.percent_agreement)
        ),
        Column(
            "Kappa",
            "Cohen's kappa between the two reviewers (– with more than two: see `sage-desk agreement "
            "--format json` for every pair)",
            lambda r: kappa_text(r.kappa),
        ),
        Column("Alpha", "Krippendorff's alpha on pass/fail (any number of reviewers)", lambda r: kappa_text(r.alpha)),
        Column("Disagree", "Items where reviewers differ", lambda r: str(len(r.disagreements()))),
        Column(
            "Unresolved",
            "Disagreements nobody has adjudicated: left out of calibration",
            lambda r: str(sum(1 for d in r.disagreements() if d.adjudicated is None)),
        ),
    )


def _labels(d: Disagreement) -> str:
    return ", ".join(f"{r or '(no name)'} {'pass' if p else 'fail'}" for r, p in sorted(d.labels.items()))


def _state(d: Disagreement) -> str:
    return "unresolved" if d.adjudicated is None else f"adjudicated: {'pass' if d.adjudicated else 'fail'}"


class ReviewerDisagreementModel(RecordTable[Disagreement]):
    """One row per item where reviewers disagree."""

    columns = (
        Column("Conversation", "The conversation", lambda d: d.conversation_id, False),
        Column("Criterion", "The criterion", lambda d: short_criterion(d.criterion), False),
        Column("Labels", "Each reviewer's latest label", _labels, False),
        Column("State", "Adjudicated (the final label) or unresolved", _state, False),
    )


class ReviewerAgreementTab(QWidget):
    """Agreement between human reviewers on the chosen run; disagreements adjudicated from here."""

    adjudicated = Signal(str)  # the run whose labels an adjudication changed
    open_conversation = Signal(str)  # "show this conversation in Review"

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.store: Any = None
        self.run_id: str | None = None
        self.dialog: AdjudicateDialog | None = None
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.criteria = ReviewerAgreementModel(self)
        self.disagreements = ReviewerDisagreementModel(self)
        self.disagreement_view = _view(self.disagreements)
        self.disagreement_view.doubleClicked.connect(lambda index: self.adjudicate(index.row()))
        self.disagreement_view.selectionModel().currentRowChanged.connect(lambda *_: self._enable())
        self.adjudicate_button = QPushButton("Adjudicate…")
        self.adjudicate_button.setToolTip(
            "Record the final label of the chosen disagreement, with a reason "
            "(as `sage-desk adjudicate`); double-clicking a row does the same"
        )
        self.adjudicate_button.clicked.connect(lambda: self.adjudicate())
        self.open_button = QPushButton("Open Conversation")
        self.open_button.setToolTip(
            "Show the chosen disagreement's conversation in Review: its turns, tool calls "
            "and verdicts (the Adjudicate dialog shows it beside the labels too)"
        )
        self.open_button.clicked.connect(self._open)
        actions = QHBoxLayout()
        actions.addWidget(QLabel("Where reviewers disagree:"))
        actions.addStretch(1)
        actions.addWidget(self.open_button)
        actions.addWidget(self.adjudicate_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 6, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(_view(self.criteria), 1)
        layout.addLayout(actions)
        layout.addWidget(self.disagreement_view, 1)
        self._enable()

    def show_run(self, store: Store, run_id: str | None) -> None:
        """Read and show the run's agreement between reviewers (nothing without a run)."""
        self.store, self.run_id = store, run_id
        result = run_agreement(store, run_id) if store is not None and run_id else None
        rows = [c for c in result.criteria if c.n] if result else []
        self.criteria.set_rows(rows)
        self.disagreements.set_rows(result.disagreements() if result else [])
        header = self.disagreement_view.horizontalHeader()
        for column in range(header.count() - 1):  # names and labels whole (they were cut: "ana.sample …")
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        if not rows:
            self.summary.setText(
                "No item has labels from two reviewers yet. A review queue with two reviews "
                "per item (`sage-desk queue create NAME --reviews 2`) arranges it."
            )
        else:
            found = self.disagreements.rows
            open_ = sum(1 for d in found if d.adjudicated is None)
            self.summary.setText(
                f"{len(found)} disagreement(s), {open_} unresolved: unresolved ones are left out of "
                "calibration until adjudicated (Adjudicate…, or `sage-desk adjudicate`)."
            )
        self._enable()

    def select_disagreement(self, conversation_id: str, criterion: str) -> int | None:
        """Select a disagreement's row; its row, or None when it is not listed."""
        rows = self.disagreements.rows
        row = next((i for i, d in enumerate(rows) if (d.conversation_id, d.criterion) == (conversation_id, criterion)), None)
        if row is not None:
            self.disagreement_view.selectRow(row)
        return row

    def adjudicate(self, row: int | None = None) -> AdjudicateDialog | None:
        """Open the Adjudicate dialog on a disagreement (default: the selected one)."""
        if row is None:
            row = self.disagreement_view.selectionModel().currentIndex().row()
        rows = self.disagreements.rows
        if self.store is None or not self.run_id or not 0 <= row < len(rows):
            return None
        chosen = rows[row]
        self.dialog = open_dialog(self.store, chosen, self)
        self.dialog.accepted.connect(lambda: self._after_adjudication(chosen))
        self.dialog.finished.connect(self._forget_dialog)
        return self.dialog

    def _after_adjudication(self, done: Disagreement) -> None:
        self.show_run(self.store, self.run_id)
        self.select_disagreement(done.conversation_id, done.criterion)
        if self.run_id:
            self.adjudicated.emit(self.run_id)

    def _open(self) -> None:
        row = self.disagreement_view.selectionModel().currentIndex().row()
        if 0 <= row < len(self.disagreements.rows):
            self.open_conversation.emit(self.disagreements.rows[row].conversation_id)

    def _forget_dialog(self) -> None:
        self.dialog = None

    def _enable(self) -> None:
        current: QModelIndex = self.disagreement_view.selectionModel().currentIndex()
        self.adjudicate_button.setEnabled(self.store is not None and current.isValid())
        self.open_button.setEnabled(self.store is not None and current.isValid())


def _view(model: Any) -> QTableView:
    view = QTableView()
    view.setModel(model)
    read_only_rows(view, ROW_HEIGHT)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    return view
