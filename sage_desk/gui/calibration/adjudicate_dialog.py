"""Adjudicate a disagreement between reviewers: the conversation beside each one's label and whole
reason, then the final word.

What `sage-desk adjudicate --conversation C --criterion K --value V --reason TEXT` does, from the
Calibration screen's "Between reviewers" tab: an *adjudication* override (append-only) against
every verdict of the criterion in the conversation, by the reviewer profile's name (asked for,
and kept as the profile, when there is none). The label rule (docs/calibration.md, "Which label
counts") then takes it as the item's label.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QRadioButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.calibration.human_agreement import Disagreement
from sage_desk.core.errors import SageError
from sage_desk.core.judge.rubric import PASS_THRESHOLD
from sage_desk.core.reviewers import check_name, reviewer_name, set_reviewer_name
from sage_desk.core.store.consensus import ADJUDICATION, by_criterion, resolve
from sage_desk.core.store.reviews import NewOverride

if TYPE_CHECKING:
    from sage_desk.core.store import Store

NO_SCORE = -0.05
"""The score box's lowest step, shown as "no score": the adjudication is pass/fail only."""


def reviewer_labels(store: Store, disagreement: Disagreement) -> dict[str, Any]:
    """reviewer -> their latest label of the item (an override record, with its reason), as agreement counts it."""
    found = [o for o in store.overrides(conversation_id=disagreement.conversation_id) if o.criterion == disagreement.criterion]
    return resolve(found, key=by_criterion).reviewers.get((disagreement.conversation_id, disagreement.criterion), {})


def _profile_name() -> str:
    try:
        return reviewer_name() or ""
    except OSError:  # an unreadable settings file: ask, as when there is no profile
        return ""


class AdjudicateDialog(QDialog):
    """Shows each reviewer's label and reason; saves the adjudicator's final label with a required reason."""

    def __init__(self, store: Store, disagreement: Disagreement, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("adjudicateDialog")
        self.setWindowTitle("Adjudicate")
        self.store, self.disagreement = store, disagreement
        self.saved_ids: list[int] = []
        self.profile = _profile_name()
        self.labels = reviewer_labels(store, disagreement)
        self.table = self._labels_table()
        self.passed = QRadioButton("Pass")
        self.failed = QRadioButton("Fail")
        self.choice = QButtonGroup(self)
        self.choice.addButton(self.passed)
        self.choice.addButton(self.failed)
        self.score = QDoubleSpinBox()
        self.score.setRange(NO_SCORE, 1.0)
        self.score.setSingleStep(0.05)
        self.score.setDecimals(2)
        self.score.setSpecialValueText("no score")
        self.score.setValue(NO_SCORE)
        self.score.setToolTip(f'A 0-1 score (pass from {PASS_THRESHOLD:g}); leave at "no score" for pass/fail only')
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Why this is the final label (required)")
        self.author = QLineEdit(self.profile)
        self.author.setPlaceholderText("Your name (kept as your reviewer name)")
        self.author.setReadOnly(bool(self.profile))
        self.problem = QLabel("")
        self.problem.setObjectName("hint")
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setText("Save adjudication")
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self._build()
        for signal in (self.passed.toggled, self.reason.textChanged, self.author.textChanged):
            signal.connect(self._check)
        self.failed.toggled.connect(self._check)
        self.score.valueChanged.connect(self._on_score)
        self._check()

    def _build(self) -> None:
        d = self.disagreement
        head = QLabel(
            f"<b>{d.criterion}</b> of <b>{d.conversation_id}</b>: the reviewers disagree. "
            "Your label is final: calibration and metrics use it (append-only, the reviewers' labels stay)."
        )
        head.setWordWrap(True)
        value = QHBoxLayout()
        value.addWidget(self.passed)
        value.addWidget(self.failed)
        value.addSpacing(12)
        score_label = QLabel("Score:")
        value.addWidget(score_label)
        value.addWidget(self.score)
        value.addStretch(1)
        self.score.setVisible(bool(d.scores))
        score_label.setVisible(bool(d.scores))
        form = QFormLayout()
        form.addRow("Final label:", value)
        form.addRow("Reason:", self.reason)
        form.addRow("Adjudicator:", self.author)
        decide = QWidget()
        right = QVBoxLayout(decide)
        right.setContentsMargins(8, 0, 0, 0)
        right.addWidget(head)
        right.addWidget(self.table, 1)
        right.addLayout(form)
        right.addWidget(self.problem)
        # the conversation beside the labels: an adjudicator reads what was said and done before deciding
        self.conversation = ConversationPreview(self.store, d.conversation_id)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setObjectName("adjudicateSplit")
        self.split.addWidget(self.conversation)
        self.split.addWidget(decide)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.split, 1)
        layout.addWidget(self.buttons)
        self.resize(1180, 660)  # the screen fitter shrinks it on a smaller screen

    def _labels_table(self) -> QTableWidget:
        table = QTableWidget(len(self.labels), 3)
        table.setHorizontalHeaderLabels(["Reviewer", "Label", "Reason"])
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        table.verticalHeader().hide()
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)  # names whole, never cut
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # the reason, wrapped whole
        table.setWordWrap(True)
        table.setTextElideMode(Qt.TextElideMode.ElideNone)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for row, (who, label) in enumerate(sorted(self.labels.items())):
            passed = self.disagreement.labels.get(who)
            score = f"{label.human_score:.2f} · " if label.human_score is not None else ""
            cells = [who or "(no name)", f"{score}{'pass' if passed else 'fail'}", label.reason or "(no reason given)"]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                table.setItem(row, column, item)
        return table

    def final(self) -> tuple[bool | None, float | None]:
        """The chosen pass/fail and score (None when not given)."""
        score = None if self.score.value() <= NO_SCORE / 2 else round(self.score.value(), 2)
        if score is not None:
            return score >= PASS_THRESHOLD, score
        return (True if self.passed.isChecked() else False if self.failed.isChecked() else None), None

    def _on_score(self) -> None:
        passed, score = self.final()
        for radio in (self.passed, self.failed):
            radio.setEnabled(score is None)
        if score is not None:  # a score decides pass/fail, as a judge's does
            (self.passed if passed else self.failed).setChecked(True)
        self._check()

    def _check(self) -> None:
        passed, _ = self.final()
        missing = [
            what
            for what, gap in (
                ("a final label", passed is None),
                ("a reason", not self.reason.text().strip()),
                ("your name", not self.author.text().strip()),
            )
            if gap
        ]
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(not missing)
        self.problem.setText(f"Needs {' and '.join(missing)}." if missing else "")

    def save(self) -> None:
        """Append the adjudication against every verdict of the criterion; the dialog stays open on an error."""
        d = self.disagreement
        passed, score = self.final()
        try:
            author = self.author.text().strip() if self.profile else check_name(self.author.text())
            sources = sorted({v.source for v in self.store.verdicts(d.conversation_id) if v.criterion == d.criterion})
            if not sources:
                raise SageError(f"conversation {d.conversation_id} has no {d.criterion!r} verdict left to adjudicate")
            self.saved_ids = self.store.add_overrides(
                [
                    NewOverride(
                        d.conversation_id,
                        d.criterion,
                        s,
                        human_passed=passed,
                        human_score=score,
                        reason=self.reason.text().strip(),
                        author=author,
                        kind=ADJUDICATION,
                    )
                    for s in sources
                ]
            )
            if not self.profile:
                set_reviewer_name(author)
        except (SageError, ValueError, OSError) as exc:
            self.problem.setText(f"Not saved: {exc}")
            return
        self.accept()


class ConversationPreview(QWidget):
    """A conversation's turns over its tool calls, read-only, for deciding a label beside it."""

    def __init__(self, store: Store, conversation_id: str, parent: QWidget | None = None):
        super().__init__(parent)
        from sage_desk.core.events import ToolCall
        from sage_desk.gui.review.transcript import transcript_over_timeline

        record = store.conversation(conversation_id)
        events = store.events(conversation_id)
        kinds = {e.name: e.kind for e in events if isinstance(e, ToolCall) and e.kind}
        title = QLabel(
            f"<b>{record.case_id}</b> · {record.agent} · repeat {record.repeat} · "
            f"<span style='color:#64748b'>{conversation_id}</span>"
        )
        title.setWordWrap(True)
        self.transcript, self.timeline, split = transcript_over_timeline(420, 160)
        self.transcript.show_events(events, kinds)
        self.timeline.show_events(events, kinds)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(split, 1)
        self.setMinimumWidth(320)


def open_dialog(store: Store, disagreement: Disagreement, parent: QWidget | None = None) -> AdjudicateDialog:
    """Open the dialog (window-modal, not blocking) and return it."""
    dialog = AdjudicateDialog(store, disagreement, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
