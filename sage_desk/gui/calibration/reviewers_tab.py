"""The Calibration screen's "Between reviewers" tab: how far human reviewers agree, per criterion.

Figures come from `sage_desk.core.calibration.human_agreement` (the same as `sage-desk
agreement`); the tab only lays them out: one row per criterion, then each item where reviewers
disagree, with each one's label and whether it has been adjudicated (`sage-desk adjudicate`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from sage_desk.core.calibration.human_agreement import CriterionAgreement, Disagreement, run_agreement
from sage_desk.gui.calibration.models import Column, RecordTable, kappa_text, pct, short_criterion
from sage_desk.gui.common.widgets import read_only_rows

ROW_HEIGHT = 26  # as the screen's other tables


def _reviewers(row: CriterionAgreement) -> str:
    return ", ".join(r or "(no name)" for r in row.reviewers)


class ReviewerAgreementModel(RecordTable[CriterionAgreement]):
    """One row per criterion: reviewers, n, % agreement, kappa, alpha, disagreements."""

    columns = (
        Column("Criterion", "The criterion reviewers labelled", lambda r: short_criterion(r.criterion), False),
        Column("Reviewers", "Who labelled it", _reviewers, False),
        Column("n", "Items two or more reviewers labelled", lambda r: str(r.n)),
        Column("Agree", "Share of those items on which every reviewer gave the same pass/fail",
               lambda r: pct(r.percent_agreement)),
        Column("Kappa", "Cohen's kappa between the two reviewers (– with more than two: see `sage-desk agreement "
               "--format json` for every pair)", lambda r: kappa_text(r.kappa)),
        Column("Alpha", "Krippendorff's alpha on pass/fail (any number of reviewers)", lambda r: kappa_text(r.alpha)),
        Column("Disagree", "Items where reviewers differ", lambda r: str(len(r.disagreements()))),
        Column("Unresolved", "Disagreements nobody has adjudicated: left out of calibration",
               lambda r: str(sum(1 for d in r.disagreements() if d.adjudicated is None))),
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
    """Agreement between human reviewers on the chosen run."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.criteria = ReviewerAgreementModel(self)
        self.disagreements = ReviewerDisagreementModel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 6, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(_view(self.criteria), 1)
        layout.addWidget(_view(self.disagreements), 1)

    def show_run(self, store: Any, run_id: str | None) -> None:
        """Read and show the run's agreement between reviewers (nothing without a run)."""
        result = run_agreement(store, run_id) if store is not None and run_id else None
        rows = [c for c in result.criteria if c.n] if result else []
        self.criteria.set_rows(rows)
        self.disagreements.set_rows(result.disagreements() if result else [])
        if not rows:
            self.summary.setText("No item has labels from two reviewers yet. A review queue with two reviews "
                                 "per item (`sage-desk queue create NAME --reviews 2`) arranges it.")
        else:
            found = self.disagreements.rows
            open_ = sum(1 for d in found if d.adjudicated is None)
            self.summary.setText(f"{len(found)} disagreement(s), {open_} unresolved: unresolved ones are left out of "
                                 "calibration until adjudicated (`sage-desk adjudicate`).")


def _view(model: Any) -> QTableView:
    view = QTableView()
    view.setModel(model)
    read_only_rows(view, ROW_HEIGHT)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    return view
