"""The Leaderboard screen: pick runs and a domain; read each model's metrics and the four charts."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.agents.display import names_for_runs
from sage_desk.core.export.charts import report_charts
from sage_desk.core.export.leaderboard import leaderboard_report
from sage_desk.core.store.records import RunStatus
from sage_desk.gui.common import file_dialogs
from sage_desk.gui.common.widgets import export_target, remember_export
from sage_desk.gui.common.workspace import StoreScreen, Workspace
from sage_desk.gui.leaderboard.chart_view import ChartPanel
from sage_desk.gui.leaderboard.fit_columns import ColumnFitter
from sage_desk.gui.leaderboard.loader import MetricsThread, ReportThread
from sage_desk.gui.leaderboard.model import LeaderboardModel

ALL_DOMAINS = "All domains"
LIVE_REREAD_S = 5.0
REPORT_IN_THREAD_FROM = 300
"""Runs of at least this many conversations get their report computed off the GUI thread."""
"""A run still playing is read again at most this often while the Leaderboard shows it."""
EMPTY_TEXT = "No runs yet: start one in Runs or with `sage-desk run` (or look at the sample runs: `sage-desk --db sample`)"
ROW_HEIGHT = 28


def tie_text(rows: list[dict[str, Any]]) -> str:
    """' Tied within noise (success intervals overlap, same band): a ≈ b.' for neighbours in the order, or ''."""
    from sage_desk.core.metrics.noise import tied_groups

    groups = tied_groups(rows, "success_rate")  # the order's first key
    if not groups:
        return ""
    return " Tied within noise (success intervals overlap, same band): " + "; ".join(" ≈ ".join(g) for g in groups) + "."


def run_label(run: Any) -> str:
    """Two lines: 'r-... · northline' then '1,458 conv. · 2026-11-20 23:40 · finished'."""
    when = run.created_at.strftime("%Y-%m-%d %H:%M")
    return f"{run.id} · {run.domain}\n{run.total:,} conv. · {when} · {run.status.value}"


MODEL_NAME_WIDTH = 320
"""The widest the model-name column (the table's row header) grows."""


def named_report(report: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A copy of `report` whose rows carry each agent's display name as `agent` (the spec kept as `spec`), so
    legends, axes and row names tell two variants of one baseline apart; the report itself keeps the specs."""

    def rename(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**row, "agent": names.get(row["agent"], row["agent"]), "spec": row["agent"]} for row in rows]

    return {
        **report,
        **{key: rename(report.get(key) or []) for key in ("models", "execution_gap_by_domain", "empathy_resilience")},
    }


class LeaderboardScreen(StoreScreen, QWidget):
    """Runs and a domain on the left; the metric table and the charts on the right."""

    message = Signal(str)

    def __init__(
        self, store: Any = None, db_url: str | None = None, notifier: Any = None, parent=None, workspace: Workspace | None = None
    ):
        super().__init__(parent)
        self.setObjectName("leaderboard")
        self.workspace = workspace or Workspace(db_url=db_url, store=store, parent=self)
        self.workspace.runs_changed.connect(self._on_runs_written)
        self.workspace.verdicts_changed.connect(self._on_verdicts_written)
        self.store = store
        self._stale = False
        self.notifier = notifier
        self.results: dict[str, list[Any]] = {}  # run id -> conversations, read once (on a thread)
        self.report: dict[str, Any] = {}
        self._reader: MetricsThread | None = None
        self._generation = 0  # bumped by every write: an answer read before it is stale
        self._signatures: dict[str, tuple[Any, ...]] = {}  # run id -> (status, counts) when the runs were last listed
        self._read_as: dict[str, tuple[Any, ...] | None] = {}  # run id -> its signature when its results were read
        self._read_at: dict[str, float] = {}
        self._shown: tuple[Any, ...] = ()
        self._configs: dict[str, dict[str, Any]] = {}
        self._reporting: ReportThread | None = None
        self._report_ticket = 0
        self.reading = QLabel()
        self.runs = QListWidget()
        self.domain = QComboBox()
        self.empty = QLabel(EMPTY_TEXT)
        self.model = LeaderboardModel(self)
        self.table = QTableView()
        self.order = QLabel()
        self.panels = [ChartPanel() for _ in range(4)]
        self._build()
        self._actions()
        if store is not None:
            self.refresh()

    # --- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        self.runs.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.runs.setSpacing(3)
        self.runs.setToolTip("Runs, newest first. Ctrl- or Shift-click to pick several.")
        self.runs.itemSelectionChanged.connect(self._on_runs_changed)
        self.domain.currentIndexChanged.connect(self._update_view)
        self.empty.setObjectName("placeholderText")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self._build_table()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("leaderboardSides")  # its sizes are kept between sessions (main_window)
        splitter.addWidget(self._side())
        splitter.addWidget(self._main())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([300, 1000])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def _build_table(self) -> None:
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.model.set_rows([])  # setSortingEnabled sorted once; the default order is core's
        self.model.layoutChanged.connect(self._show_order)
        self.model.modelReset.connect(self._show_order)
        self.order.setObjectName("hint")
        self.order.setWordWrap(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(ROW_HEIGHT)
        rows.setMinimumWidth(150)  # the model names: the row header stays put while the metrics scroll
        # a long model name (an agent's options in it) is cut in the middle, whole in its tooltip:
        # at full length one name took half a laptop's width from the metrics
        rows.setMaximumWidth(MODEL_NAME_WIDTH)
        rows.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        bold = QFont(rows.font())
        bold.setWeight(QFont.Weight.DemiBold)  # the stylesheet's header weight: eliding measures with this font
        rows.setFont(bold)
        rows.setObjectName("modelNames")
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setDefaultSectionSize(92)
        header.setSectionHidden(self.model.column_of("agent"), True)  # shown in the row header instead
        self.columns_fit = ColumnFitter(self.table)  # as many columns as the width holds, most telling first

    def _side(self) -> QWidget:
        side = QWidget()
        layout = QVBoxLayout(side)
        layout.setContentsMargins(10, 10, 6, 10)
        heading = QLabel("Runs")
        heading.setObjectName("sectionTitle")
        layout.addWidget(heading)
        layout.addWidget(self.runs, 1)
        layout.addWidget(QLabel("Domain"))
        layout.addWidget(self.domain)
        note = QLabel("Medians over repeats; hover a cell for its min–max. No composite score.")
        note.setWordWrap(True)
        note.setObjectName("hint")
        layout.addWidget(note)
        return side

    def _main(self) -> QWidget:
        charts = QWidget()
        column = QVBoxLayout(charts)
        column.setContentsMargins(6, 6, 12, 6)
        column.setSpacing(12)
        for panel in self.panels:
            panel.saved.connect(lambda path: self.message.emit(f"Saved {path}"))
            column.addWidget(panel)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(charts)
        right = QSplitter(Qt.Orientation.Vertical)
        right.setObjectName("leaderboardTableCharts")  # its sizes are kept between sessions (main_window)
        right.addWidget(self._table_box())
        right.addWidget(scroll)
        right.setSizes([300, 600])  # the table keeps three rows and its order line on a 720 px screen
        return right

    def _table_box(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(6, 10, 12, 4)
        self.reading.setObjectName("hint")
        self.reading.hide()
        layout.addWidget(self.reading)
        layout.addWidget(self.empty)
        layout.addWidget(self.order)
        layout.addWidget(self.table)
        return box

    def _show_order(self) -> None:
        """Say how the table is sorted: core's default order (its own words), or the column clicked."""
        if self.model.sorted_by is not None:
            header, descending = self.model.sorted_by
            self.order.setText(
                f"Sorted by {header}, {'highest' if descending else 'lowest'} first (ties in the "
                "default order). Refresh or pick runs again for the default order."
            )
        else:
            order = self.report.get("order") if isinstance(self.report, dict) else None
            text = order.get("text", "") if isinstance(order, dict) else str(order or "")
            self.order.setText(text + tie_text(self.model.rows))

    def _actions(self) -> None:
        self.refresh_action = QAction("Refresh Runs", self)
        self.refresh_action.setShortcut(QKeySequence.StandardKey.Refresh)
        self.refresh_action.triggered.connect(self.refresh)
        self.export_action = QAction("Export HTML Report…", self)
        self.export_action.triggered.connect(self._ask_export)

    def menus(self) -> dict[str, list[QAction | None]]:
        """The Leaderboard menu of the main window."""
        return {"&File": [self.export_action], "&Leaderboard": [self.refresh_action]}

    def toolbar_actions(self) -> list[QAction | None]:
        """Buttons for the main toolbar."""
        return [self.refresh_action, self.export_action]

    # --- data -------------------------------------------------------------------------------

    @property
    def loading(self) -> bool:
        """True while chosen runs are being read, or their report computed."""
        return self._reader is not None or self._reporting is not None

    def _on_runs_written(self) -> None:
        # runs change often while one is going: `refresh` reads again only the chosen runs that changed
        # (a running one at most every LIVE_REREAD_S), and only when shown; each read and report cost
        # the GUI thread up to a second on a 2,000-conversation run
        self._stale = True
        if self.isVisible() and self.store is not None:
            self.refresh()

    def _on_verdicts_written(self, run_id: str) -> None:
        self.results.pop(run_id, None)
        self._generation += 1
        self._stale = True
        if self.isVisible() and self.store is not None:
            self.refresh()

    def refresh(self) -> None:
        """Read the list of runs again (newest first) and keep the selection where it can."""
        if self.store is None:
            return
        self._stale = False
        chosen = set(self.selected_runs())
        runs = sorted(self.store.list_runs(), key=lambda r: r.created_at, reverse=True)
        self._signatures = {r.id: (r.status, tuple(sorted(r.counts.items()))) for r in runs}
        self._configs = {r.id: r.config for r in runs}  # agents' display names: given ones, numbered variants
        kept = {k: v for k, v in self.results.items() if k in chosen and self._still_current(k)}
        if len(kept) != len(self.results):
            self._generation += 1  # an answer being read now for a dropped run is stale
        self.results = kept  # the rest is read again
        self.runs.blockSignals(True)
        self.runs.clear()
        for run in runs:
            item = QListWidgetItem(run_label(run))
            item.setData(Qt.ItemDataRole.UserRole, run.id)
            item.setToolTip(f"{run.id}: {run.domain}, agents {', '.join(run.config.get('agents', []))}")
            self.runs.addItem(item)
            item.setSelected(run.id in chosen)
        if runs and not self.runs.selectedItems():
            self.runs.item(0).setSelected(True)
        self.runs.blockSignals(False)
        self._on_runs_changed()

    def selected_runs(self) -> list[str]:
        """Ids of the chosen runs."""
        return [item.data(Qt.ItemDataRole.UserRole) for item in self.runs.selectedItems()]

    def select_runs(self, run_ids: list[str]) -> None:
        """Choose exactly these runs."""
        for i in range(self.runs.count()):
            item = self.runs.item(i)
            item.setSelected(item.data(Qt.ItemDataRole.UserRole) in run_ids)

    def _still_current(self, run_id: str) -> bool:
        """Whether the results read of a run still stand: it has not changed since, or it is running and was read
        less than LIVE_REREAD_S ago."""
        now, read = self._signatures.get(run_id), self._read_as.get(run_id)
        if now is not None and now == read:
            return True
        running = now is not None and now[0] == RunStatus.RUNNING
        return running and time.monotonic() - self._read_at.get(run_id, 0.0) < LIVE_REREAD_S

    def _on_runs_changed(self) -> None:
        missing = [run_id for run_id in self.selected_runs() if run_id not in self.results]
        if missing and self._reader is None and self.store is not None:
            for run_id in missing:
                self._read_as[run_id] = self._signatures.get(run_id)
                self._read_at[run_id] = time.monotonic()
            self._reader = MetricsThread(self.store, missing, self._generation)
            self._reader.loaded.connect(self._on_loaded)
            self._reader.failed.connect(self._on_read_failed)
            self._reader.start_reading()
        waiting = len(missing)
        self.reading.setText(f"Reading the metrics of {waiting} run{'s' if waiting != 1 else ''}…")
        self.reading.setVisible(bool(waiting))
        self._fill_domains()
        self._update_view()

    def _on_loaded(self, generation: int, results: dict[str, list[Any]]) -> None:
        self._reader = None
        if generation == self._generation:
            self.results.update(results)
        self._on_runs_changed()  # shows them, or reads what was chosen (or written) meanwhile

    def _on_read_failed(self, generation: int, error: str) -> None:
        self._reader = None
        self.reading.hide()
        self._report_error("Could not read the runs' metrics", error)

    def can_close(self) -> bool:
        """A read in progress is waited for (reads only; it ends on its own)."""
        for thread in (self._reader, self._reporting):
            if thread is not None:
                thread.wait(30_000)
        return True

    def _fill_domains(self) -> None:
        current = self.domain.currentText()
        domains = sorted({r.domain for run_id in self.selected_runs() for r in self.results.get(run_id, [])})
        self.domain.blockSignals(True)
        self.domain.clear()
        self.domain.addItems([ALL_DOMAINS, *domains])
        self.domain.setCurrentText(current if current in domains else ALL_DOMAINS)
        self.domain.blockSignals(False)

    def _update_view(self) -> None:
        domain = None if self.domain.currentText() in ("", ALL_DOMAINS) else self.domain.currentText()
        # the results of a run change only by being read (a new key) or dropped (a new generation)
        view_key = (tuple(self.selected_runs()), tuple(r in self.results for r in self.selected_runs()), domain, self._generation)
        if view_key == self._shown and (self.report or self._reporting is not None):
            return  # the same runs, read the same time: the report would be the same (it takes a while)
        self._shown = view_key
        results = [r for run_id in self.selected_runs() for r in self.results.get(run_id, [])]
        self._report_ticket += 1
        if len(results) < REPORT_IN_THREAD_FROM:
            self._show_report(leaderboard_report(results, domain), bool(results))
            return
        self._reporting = ReportThread(results, domain, self._report_ticket)  # a big one: off the GUI thread
        self._reporting.done.connect(self._on_report)
        self.reading.setText(f"Computing the metrics of {len(results):,} conversations…")
        self.reading.show()
        self.export_action.setEnabled(False)  # until the fresh report is in
        self._reporting.start_computing()

    def _on_report(self, ticket: int, report: dict[str, Any]) -> None:
        if ticket != self._report_ticket:
            return  # runs picked (or read) again meanwhile: a newer report is on its way
        self._reporting = None
        self.reading.setVisible(self._reader is not None)
        self._show_report(report, bool(report.get("models")))

    def _show_report(self, report: dict[str, Any], has_results: bool) -> None:
        self.report = report
        self.report["run"] = self.selected_runs()
        shown = named_report(
            self.report,
            names_for_runs(
                [self._configs.get(r, {}) for r in self.selected_runs()], [row["agent"] for row in self.report["models"]]
            ),
        )
        self.model.set_rows(shown["models"])
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self._show_order()
        self._show_empty(not has_results)
        for panel, chart in zip(self.panels, report_charts(shown), strict=True):  # legends and axes by name
            panel.set_chart(chart)

    def _show_empty(self, empty: bool) -> None:
        if self.runs.count() == 0:
            self.empty.setText(EMPTY_TEXT)
        else:
            self.empty.setText("Pick one or more runs on the left." if empty and not self.loading else "")
        self.empty.setVisible(empty and bool(self.empty.text()))
        self.export_action.setEnabled(not empty and not self.loading)
        self.table.setVisible(not empty)
        for panel in self.panels:
            panel.setVisible(not empty)

    # --- export -----------------------------------------------------------------------------

    def export_html(self, path: str | Path) -> Path:
        """Write the chosen runs' report as one self-contained HTML file."""
        from sage_desk.core.export.html_report import render_html

        target = Path(path)
        target.write_text(render_html(self.report), encoding="utf-8")
        self.message.emit(f"Wrote {target}")
        return target

    def _ask_export(self) -> None:
        path, _ = file_dialogs.save_file_name(self, "Export HTML report", export_target("report.html"), "HTML (*.html)")
        remember_export(path)
        if path:
            self.export_html(path)
