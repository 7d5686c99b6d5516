"""The Calibration screen: how far the judge agrees with human labels, and whether few-shot calibration helps.

Left: the run and judge, a summary of the labels, and the Calibrate form. Right: agreement per
criterion (labelled n, accuracy, kappa, true-pass / true-fail rates, a "too few labels" status), the
confusion matrix of the selected criterion, and its disagreements (double-click or Enter opens one
in Review); after Calibrate, agreement before and after on the held-out labels. Every figure comes
from `core.calibration`; labels written in Review arrive through `verdicts_changed`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.calibration import MIN_LABELS, CalibrationReport, calibration_report
from sage_desk.core.errors import SageError
from sage_desk.gui.calibration.confusion import ConfusionMatrix
from sage_desk.gui.calibration.models import AgreementModel, BeforeAfterModel, DisagreementModel, kappa_text, pct
from sage_desk.gui.calibration.panel import CalibratePanel
from sage_desk.gui.calibration.reviewers_tab import ReviewerAgreementTab
from sage_desk.gui.calibration.worker import CalibrateOutcome, CalibrateThread
from sage_desk.gui.common import file_dialogs
from sage_desk.gui.common.widgets import export_target, read_only_rows, remember_export
from sage_desk.gui.common.workspace import StoreScreen, Workspace

NO_RUNS = "No runs yet: start one in Runs or with `sage-desk run` (or look at the sample runs: `sage-desk --db sample`)."
ROW_HEIGHT = 26
EXPORT_FILTERS = {"JSON Lines (*.jsonl)": "jsonl", "CSV (*.csv)": "csv"}


def no_labels_text(run_id: str, judges: list[str]) -> str:
    """What an unlabelled run shows: how to get labels."""
    have = f" Judges in this run: {', '.join(judges)}." if judges else " This run has no judge verdicts to compare."
    return (
        f"<p><b>No human labels in this run yet.</b></p><p>Label conversations in <b>Review</b> (override a "
        f"judge score), or import a CSV of labels:<br><code>sage-desk label --run {run_id} --from labels.csv</code>"
        f"<br>(columns conversation, criterion, value, reason, author).</p><p>The figures need {MIN_LABELS} or more "
        f"labels of each criterion, passes and fails both.{have}</p>"
    )


def _table(model: Any, stretch_last: bool = True) -> QTableView:
    view = QTableView()
    view.setModel(model)
    read_only_rows(view, ROW_HEIGHT)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(stretch_last)
    return view


def judge_failures(result: Any) -> tuple[int, int, str]:
    """(conversations the calibrated judge could not judge, held-out conversations, the first failure's text)."""
    failed, first = 0, ""
    for verdicts in result.after_verdicts.values():
        if verdicts and all(v.unscored for v in verdicts):
            failed += 1
            first = first or verdicts[0].rationale.removeprefix("unscored: ")
    return failed, len(result.after_verdicts), first


class CalibrationScreen(StoreScreen, QWidget):
    """Agreement per criterion, the confusion matrix, disagreements, Calibrate and Export."""

    message = Signal(str)

    def __init__(
        self,
        workspace: Workspace | None = None,
        notifier: Any = None,
        store: Any = None,
        db_url: str | None = None,
        parent: Any = None,
    ):
        super().__init__(parent)
        self.setObjectName("calibration")
        self.workspace = workspace or Workspace(db_url=db_url, store=store, parent=self)
        self.workspace.runs_changed.connect(self._on_runs_written)
        self.workspace.verdicts_changed.connect(self._on_verdicts_written)
        self.notifier = notifier
        self.store: Any = None
        self.report: CalibrationReport | None = None
        self._worker: CalibrateThread | None = None
        self._stale = False
        self.runs = QComboBox()
        self.judges = QComboBox()
        self.summary = QLabel("")
        self.panel = CalibratePanel()
        self.empty = QLabel("")
        self.agreement = AgreementModel(self)
        self.table = _table(self.agreement)
        self.matrix = ConfusionMatrix()
        self.all_criteria = QCheckBox("All criteria")
        self.disagreements = DisagreementModel(self)
        self.disagreement_view = _table(self.disagreements)
        self.results = BeforeAfterModel(self)
        self.results_view = _table(self.results)
        self.results_summary = QLabel("Calibrate a judge (left) to see agreement before and after on held-out labels.")
        self.tabs = QTabWidget()
        self.between_reviewers = ReviewerAgreementTab()
        self._build()
        self._actions()
        self._connect()
        if store is not None or (workspace is not None and workspace.is_open):
            self._open_store()

    # --- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("calibrationSides")  # its sizes are kept between sessions (main_window)
        side, main = self._side(), self._main()
        # Explicit minimums (below the children's own hints) let the window shrink; the panes clip instead
        side.setMinimumWidth(230)
        main.setMinimumWidth(320)
        splitter.addWidget(side)
        splitter.addWidget(main)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([340, 1060])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def _side(self) -> QWidget:
        side = QWidget()
        layout = QVBoxLayout(side)
        layout.setContentsMargins(10, 10, 6, 10)
        for text, widget in (("Run", self.runs), ("Judge", self.judges)):
            label = QLabel(text)
            label.setObjectName("panelTitle")
            layout.addWidget(label)
            layout.addWidget(widget)
        self.runs.setToolTip("Runs, newest first")
        self.judges.setToolTip("The judge whose verdicts are compared with the human labels")
        self.judges.setPlaceholderText("no labelled judge verdicts yet")
        self.summary.setObjectName("hint")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        layout.addSpacing(8)
        layout.addWidget(self.panel)
        layout.addStretch(1)
        return side

    def _main(self) -> QWidget:
        top = QWidget()
        column = QVBoxLayout(top)
        column.setContentsMargins(6, 10, 12, 4)
        title = QLabel("Agreement with human labels, per criterion")
        title.setObjectName("panelTitle")
        column.addWidget(title)
        self.empty.setObjectName("placeholderText")
        self.empty.setWordWrap(True)
        self.empty.setTextFormat(Qt.TextFormat.RichText)
        self.empty.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty.setMaximumWidth(760)
        column.addWidget(self.empty, 1)
        column.addWidget(self.table, 1)
        header = self.table.horizontalHeader()
        header.setDefaultSectionSize(86)
        header.resizeSection(0, 180)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.setObjectName("calibrationBottom")  # its sizes are kept between sessions (main_window)
        self.matrix.setMinimumWidth(300)
        bottom.addWidget(self.matrix)
        bottom.addWidget(self._tabs())
        bottom.setStretchFactor(1, 1)
        bottom.setSizes([320, 760])
        right = QSplitter(Qt.Orientation.Vertical)
        right.setObjectName("calibrationRight")  # its sizes are kept between sessions (main_window)
        right.addWidget(top)
        right.addWidget(bottom)
        right.setSizes([250, 570])
        self.bottom = bottom
        return right

    def _tabs(self) -> QWidget:
        disagreements = QWidget()
        layout = QVBoxLayout(disagreements)
        layout.setContentsMargins(4, 6, 4, 4)
        hint = QLabel("Double-click or press Enter to open a conversation in Review.")
        hint.setObjectName("hint")
        row = QHBoxLayout()
        row.addWidget(hint, 1)
        row.addWidget(self.all_criteria)
        layout.addLayout(row)
        layout.addWidget(self.disagreement_view)
        header = self.disagreement_view.horizontalHeader()
        for column, width in enumerate((112, 78, 64, 240, 130, 130, 80, 130)):
            header.resizeSection(column, width)
        header.setStretchLastSection(False)
        results = QWidget()
        layout = QVBoxLayout(results)
        layout.setContentsMargins(4, 6, 4, 4)
        self.results_summary.setWordWrap(True)
        layout.addWidget(self.results_summary)
        layout.addWidget(self.results_view, 1)
        header = self.results_view.horizontalHeader()
        for column, width in enumerate((190, 78, 110, 120, 110, 110)):
            header.resizeSection(column, width)
        self.tabs.addTab(disagreements, "Disagreements")
        self.tabs.addTab(results, "Calibration: before → after")
        self.tabs.addTab(self.between_reviewers, "Between reviewers")
        return self.tabs

    def _actions(self) -> None:
        self.refresh_action = QAction("Refresh", self)
        self.refresh_action.setShortcut(QKeySequence.StandardKey.Refresh)
        self.refresh_action.triggered.connect(self.refresh)
        self.calibrate_action = QAction("Calibrate", self)
        self.calibrate_action.triggered.connect(self.start_calibration)
        self.export_action = QAction("Export Calibration Set…", self)
        self.export_action.triggered.connect(self._ask_export)

    def menus(self) -> dict[str, list[QAction | None]]:
        """The Calibration menu of the main window."""
        return {
            "&File": [self.export_action],
            "&Calibration": [self.refresh_action, self.calibrate_action, None, self.export_action],
        }

    def toolbar_actions(self) -> list[QAction | None]:
        """Buttons for the main toolbar."""
        return [self.refresh_action, None, self.calibrate_action, self.export_action]

    def _connect(self) -> None:
        self.runs.currentIndexChanged.connect(self._load_run)
        self.workspace.run_chosen.connect(self._on_run_chosen_elsewhere)
        self.judges.currentIndexChanged.connect(self._show_judge)
        self.table.selectionModel().currentRowChanged.connect(self._on_criterion)
        self.all_criteria.toggled.connect(self._fill_disagreements)
        self.disagreement_view.activated.connect(self._open_conversation)
        self.between_reviewers.adjudicated.connect(self.workspace.verdicts_changed)  # labels changed: every screen
        self.between_reviewers.open_conversation.connect(self.workspace.open_conversation_requested)
        self.panel.calibrate_requested.connect(self.start_calibration)
        self.panel.start_enabled.connect(self._sync_calibrate_action)
        self.panel.cancel_requested.connect(self.cancel_calibration)

    # --- data -------------------------------------------------------------------------------

    def _on_runs_written(self) -> None:
        self._stale = True
        if self.isVisible() and self.store is not None:
            self.refresh()

    def _on_verdicts_written(self, run_id: str) -> None:
        if run_id != self.current_run() or self.store is None:
            return
        if self.isVisible():
            self._load_run()
        else:
            self._stale = True

    def current_run(self) -> str | None:
        """The id of the run on show."""
        return self.runs.currentData()

    def current_judge(self) -> str | None:
        """The judge (verdict source) on show."""
        return self.judges.currentData()

    def refresh(self) -> None:
        """Read the runs again (newest first), keep the chosen one, and recompute its figures."""
        if self.store is None:
            return
        self._stale = False
        chosen = self.current_run() or self.workspace.run_id
        runs = self.store.list_runs()
        self.runs.blockSignals(True)
        self.runs.clear()
        for run in runs:
            self.runs.addItem(f"{run.id} · {run.domain} · {run.total:,} conv.", run.id)
        index = self.runs.findData(chosen)
        self.runs.setCurrentIndex(index if index >= 0 else 0)
        self.runs.blockSignals(False)
        self._load_run()

    def select_run(self, run_id: str) -> None:
        """Show this run."""
        self.runs.setCurrentIndex(self.runs.findData(run_id))

    def _on_run_chosen_elsewhere(self, run_id: str) -> None:
        # Review and Calibration work on one run: picking it in either shows it in both
        if self.store is not None and run_id != self.current_run() and self.runs.findData(run_id) >= 0:
            self.select_run(run_id)

    def _load_run(self, *_args: Any) -> None:
        run_id = self.current_run()
        self.workspace.choose_run(run_id)
        self.report = calibration_report(self.store, run_id) if run_id else None
        self.between_reviewers.show_run(self.store, run_id)
        chosen = self.current_judge()
        sources = self.report.sources if self.report else []
        self.judges.blockSignals(True)
        self.judges.clear()
        for source in sources:
            self.judges.addItem(source, source)
        index = self.judges.findData(chosen)
        self.judges.setCurrentIndex(index if index >= 0 else 0)
        self.judges.blockSignals(False)
        self._offer_models(run_id)
        self._show_judge()

    def _run_judges(self, run_id: str | None) -> list[str]:
        if not run_id:
            return []
        configured = list(self.store.get_run(run_id).config.get("judges") or [])
        return sorted({*configured, *(self.report.sources if self.report else [])})

    def _offer_models(self, run_id: str | None) -> None:
        judges = self._run_judges(run_id)
        llm = [j.removeprefix("judge:") for j in judges if not j.startswith("baseline:")]
        baseline = next((j for j in judges if j.startswith("baseline:")), None)
        self.panel.set_models(llm, None if llm else baseline)
        labels = self.report.labels if self.report else 0
        self.panel.set_ready(labels > 0, "No human labels to calibrate on yet")
        self._sync_calibrate_action()
        self.export_action.setEnabled(bool(self.report and self.report.items))

    def _show_judge(self, *_args: Any) -> None:
        report, judge = self.report, self.current_judge()
        rows = report.rows(judge) if report and judge else []
        chosen = self.current_criterion()
        self.agreement.set_rows(rows)
        self._show_empty(report)
        self._summarise(report, judge)
        criteria = [r.criterion for r in rows]
        if rows:
            self.table.selectRow(criteria.index(chosen) if chosen in criteria else 0)
        else:
            self._on_criterion()

    def _show_empty(self, report: CalibrationReport | None) -> None:
        empty = report is None or not report.items
        if self.runs.count() == 0:
            self.empty.setText(NO_RUNS)
        elif report is not None and empty:
            judges = self._run_judges(report.run_id)
            text = no_labels_text(report.run_id, judges)
            if report.labels:
                text = (
                    f"<p><b>{report.labels} human label(s), but no judge verdict to compare them with.</b></p>"
                    "<p>Re-judge the run (<code>sage-desk rejudge</code>) or label judge scores in Review.</p>"
                )
            self.empty.setText(text)
        self.empty.setVisible(empty)
        self.table.setVisible(not empty)
        self.bottom.setVisible(not empty)  # no matrix or lists to read without labels

    def _summarise(self, report: CalibrationReport | None, judge: str | None) -> None:
        if report is None or not report.labels:
            self.summary.setText("No human labels yet.")
            return
        mine = [i for i in report.items if i.source == judge]
        authors = {i.label.author for i in mine if i.label.author}
        disagreements = len(report.disagreements(judge))
        self.summary.setText(
            f"{report.labels} human label(s) in this run; {len(mine)} scored by {judge} "
            f"({disagreements} disagreement(s)); {len(authors)} reviewer(s)."
        )

    def current_criterion(self) -> str | None:
        """The criterion selected in the agreement table."""
        index = self.table.selectionModel().currentIndex()
        if not index.isValid() or index.row() >= len(self.agreement.rows):
            return None
        return self.agreement.rows[index.row()].criterion

    def _on_criterion(self, *_args: Any) -> None:
        criterion = self.current_criterion()
        row = next((r for r in self.agreement.rows if r.criterion == criterion), None)
        self.matrix.show_agreement(criterion, row.agreement if row else None)
        self._fill_disagreements()

    def _fill_disagreements(self, *_args: Any) -> None:
        report, judge = self.report, self.current_judge()
        criterion = None if self.all_criteria.isChecked() else self.current_criterion()
        found = (
            report.disagreements(judge, criterion) if report and judge and (criterion or self.all_criteria.isChecked()) else []
        )
        self.disagreements.set_rows(found)
        self.disagreement_view.setColumnHidden(DisagreementModel.CRITERION, not self.all_criteria.isChecked())
        self.tabs.setTabText(0, f"Disagreements ({len(found)})")

    def _open_conversation(self, index: QModelIndex) -> None:
        if index.isValid():
            self.workspace.open_conversation_requested.emit(self.disagreements.rows[index.row()].conversation_id)

    # --- calibrate --------------------------------------------------------------------------

    def start_calibration(self) -> bool:
        """Start calibrating the model in the form on a background thread; False when it cannot start."""
        run_id = self.current_run()
        problem = self.panel.problem() or (None if self.report and self.report.labels else "No human labels to calibrate on.")
        if self._worker is not None or not run_id or problem:
            if problem:
                self.message.emit(problem)
            return False
        self._worker = CalibrateThread(self.store, run_id, self.panel.model_name(), parent=self, **self.panel.options())
        self._worker.progressed.connect(self.panel.set_progress)
        self._worker.ended.connect(self._on_calibrated)
        self.panel.set_busy(True)
        self.message.emit(f"Calibrating {self.panel.model_name()} on run {run_id}…")
        self._worker.start()
        return True

    def _sync_calibrate_action(self, *_args: Any) -> None:
        self.calibrate_action.setEnabled(self.panel.start.isEnabled())
        self.calibrate_action.setToolTip(self.panel.problem() or self.panel.start.toolTip())

    def cancel_calibration(self) -> None:
        """Stop a running calibration."""
        if self._worker is not None:
            self._worker.cancel()

    def _on_calibrated(self, outcome: CalibrateOutcome) -> None:
        thread, self._worker = self._worker, None
        if thread is not None:
            thread.wait()
            thread.deleteLater()
        self.panel.set_busy(False)
        if outcome.cancelled:
            self.message.emit("Calibration cancelled")
        elif outcome.error is not None:
            self._report_error("Calibration failed", outcome.error)
        elif outcome.result is not None:
            failed, total, first = judge_failures(outcome.result)
            if total and failed == total:  # nothing was measured: an error, not an empty success
                self.results.set_rows([])
                self.results_summary.setText(
                    f"<b>{outcome.result.model}</b> answered none of {total} held-out conversation(s): {first}"
                )
                self._report_error(
                    "Calibration failed",
                    f"{outcome.result.model} answered none of {total} held-out conversation(s). The first error: {first}",
                )
                return
            self._show_result(outcome.result)
            if failed:
                self.results_summary.setText(
                    self.results_summary.text() + f"<br><span style='color:#b91c1c'>{failed} of "
                    f"{total} held-out conversation(s) were not judged (left out above): {first}</span>"
                )

    def _show_result(self, result: Any) -> None:
        self.results.set_rows(result.rows)
        before, after = result.before, result.after
        origin = (
            "the stored verdicts of this judge" if result.before_from == "stored" else "this judge without examples, judged now"
        )
        skipped = "".join(f"<br>No examples for {c}: {why}." for c, why in result.selection.skipped.items())
        warn = f" <span style='color:#8a5a00'>({after.warning})</span>" if after.warning else ""
        self.results_summary.setText(
            f"<b>{result.model}</b>: {len(result.selection.examples)} example(s) from "
            f"{len(result.train_conversations)} train conversation(s); measured on "
            f"{len(result.heldout_conversations)} held-out conversation(s).<br>"
            f"All held-out labels: accuracy <b>{pct(before.accuracy)} → {pct(after.accuracy)}</b>, kappa "
            f"<b>{kappa_text(before.kappa)} → {kappa_text(after.kappa)}</b>{warn}.<br>"
            f"Before = {origin}. {result.calls} model call(s), ${result.cost_usd:.4f}. "
            f"The run's stored verdicts are unchanged.{skipped}"
        )
        self.tabs.setCurrentIndex(1)
        self.message.emit(f"Calibrated {result.model}: held-out accuracy {pct(before.accuracy)} → {pct(after.accuracy)}")

    def can_close(self) -> bool:
        """A running calibration is cancelled (its calls too) before the window closes."""
        if self._worker is not None:
            self._worker.cancel()
            self._worker.wait(15000)
        return True

    # --- export and state -------------------------------------------------------------------

    def export_set(self, path: str | Path, fmt: str | None = None) -> int:
        """Write the run's labelled items as a calibration set; returns how many."""
        from sage_desk.core.export.calibration import write_calibration_set

        run_id = self.current_run()
        if run_id is None:
            raise SageError("Choose a run to export its calibration set")
        target = Path(path)
        fmt = fmt or ("csv" if target.suffix.lower() == ".csv" else "jsonl")
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # a few seconds for thousands of labels
        try:
            count = write_calibration_set(self.store, run_id, target, fmt)
        finally:
            QGuiApplication.restoreOverrideCursor()
        self.message.emit(f"Wrote {count} labelled item(s) to {target}")
        return count

    def _ask_export(self) -> None:
        if not self.current_run():
            return
        path, chosen = file_dialogs.save_file_name(
            self, "Export calibration set", export_target(f"{self.current_run()}-calibration.jsonl"), ";;".join(EXPORT_FILTERS)
        )
        remember_export(path)
        if path:
            fmt = "csv" if path.lower().endswith(".csv") else EXPORT_FILTERS.get(chosen, "jsonl")
            try:
                self.export_set(path, fmt)
            except (OSError, SageError) as exc:
                self._report_error("Could not export the calibration set", exc)

    def save_state(self, settings: QSettings) -> None:
        """Remember the Calibrate form."""
        settings.setValue("calibration/model", self.panel.model_name())
        settings.setValue("calibration/api_base", self.panel.api_base.text())
        settings.setValue("calibration/per_class", self.panel.per_class.value())

    def restore_state(self, settings: QSettings) -> None:
        """Fill the Calibrate form as it was left."""
        self.panel.model.setCurrentText(str(settings.value("calibration/model", "") or ""))
        self.panel.api_base.setText(str(settings.value("calibration/api_base", "") or ""))
        self.panel.per_class.setValue(int(str(settings.value("calibration/per_class", 2) or 2)))
