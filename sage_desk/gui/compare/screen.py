"""The Compare Runs screen: a run before and a run after, their metric deltas with paired intervals,
what differs between their stamps, and the flipped cases, each opening both runs' conversations
side by side (Review's compare dialog). The comparison is `core.metrics.compare.compare_runs`,
the same as `sage-desk compare`, read on a thread."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt, QThread, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.agents.display import legend, names_for_runs
from sage_desk.core.errors import SageError
from sage_desk.core.metrics.compare import compare_runs
from sage_desk.gui.common.workspace import StoreScreen, Workspace
from sage_desk.gui.compare.models import DeltaModel, FlipModel

if TYPE_CHECKING:
    from sage_desk.core.store import Store

ROW_HEIGHT = 26
EMPTY_TEXT = "Compare needs two runs: start them in Runs or with `sage-desk run`"
PICK_TEXT = (
    "Pick the run from before a change and the run after it, then Compare: each metric's difference with "
    "its 95% interval, and the cases that flipped (double-click one to read both conversations)"
)
_RUNNING: set[CompareThread] = set()


class CompareThread(QThread):
    """Compares two runs off the GUI thread; emits `compared(generation, data)` or `failed(generation, message)`."""

    compared = Signal(int, object)
    failed = Signal(int, str)

    def __init__(self, store: Store, run_a: str, run_b: str, generation: int) -> None:
        super().__init__()  # no parent: it must outlive a screen closed mid-comparison
        self.store, self.run_a, self.run_b, self.generation = store, run_a, run_b, generation
        self.finished.connect(self._forget)

    def start_comparing(self) -> None:
        """Start, kept alive until finished whatever happens to the screen."""
        _RUNNING.add(self)
        self.start()

    def run(self) -> None:  # the thread's body: reads only, never touches a widget
        try:
            data = compare_runs(self.store, self.run_a, self.run_b)
        except Exception as exc:  # handed to the GUI, which reports it
            self.failed.emit(self.generation, f"{type(exc).__name__}: {exc}")
        else:
            self.compared.emit(self.generation, data)

    def _forget(self) -> None:
        _RUNNING.discard(self)
        self.deleteLater()


def before_of(runs: list[Any], after: str) -> str:
    """The run to compare `after` with by default: the newest older one of its domain (two domains share no
    metric worth a difference: the default paired an ecommerce run with a telecom one), else the newest other."""
    later = next((i for i, r in enumerate(runs) if r.id == after), 0)
    domain = runs[later].domain
    older = runs[later + 1 :]
    same = next((r.id for r in older if r.domain == domain), None)
    return same or next((r.id for r in runs if r.id != after), after)


class CompareRunsScreen(StoreScreen, QWidget):
    """Two run pickers and Compare on top; what differs, the metric deltas and the flipped cases below."""

    message = Signal(str)

    def __init__(
        self, store: Any = None, db_url: str | None = None, notifier: Any = None, parent=None, workspace: Workspace | None = None
    ):
        super().__init__(parent)
        self.setObjectName("compareRuns")
        self.workspace = workspace or Workspace(db_url=db_url, store=store, parent=self)
        self.workspace.runs_changed.connect(self._on_runs_written)
        self.store = store
        self.notifier = notifier
        self._stale = False
        self._generation = 0
        self._thread: CompareThread | None = None
        self.data: dict[str, Any] | None = None
        self.compare_dialog: Any = None
        self.before, self.after, self.pair = QComboBox(), QComboBox(), QComboBox()
        self.go = QPushButton("Compare")
        self.summary = QLabel(EMPTY_TEXT)
        self.deltas, self.flips = DeltaModel(self), FlipModel(self)
        self.delta_view, self.flip_view = QTableView(), QTableView()
        self._build()
        if store is not None:
            self.refresh()

    @property
    def comparing(self) -> bool:
        """True while a comparison is being computed."""
        return self._thread is not None

    def _build(self) -> None:
        for combo in (self.before, self.after, self.pair):  # long run labels must not widen the window
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(18)
        self.before.setToolTip("The run before the change")
        self.after.setToolTip("The run after the change")
        self.pair.setToolTip("Which agent of one run is compared with which of the other")
        self.go.clicked.connect(self.compare)
        self.pair.currentIndexChanged.connect(self._show_pair)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QHBoxLayout()
        for label, widget in (("Before", self.before), ("After", self.after)):
            top.addWidget(QLabel(label))
            top.addWidget(widget, 1)
        top.addWidget(self.go)
        top.addWidget(QLabel("Agents"))
        top.addWidget(self.pair, 1)
        for view, model in ((self.delta_view, self.deltas), (self.flip_view, self.flips)):
            view.setModel(model)
            view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
            view.setAlternatingRowColors(True)
            view.setWordWrap(False)
            view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
            view.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
            view.verticalHeader().hide()
            view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
            view.horizontalHeader().setDefaultSectionSize(130)
            view.horizontalHeader().setStretchLastSection(True)
        self.delta_view.horizontalHeader().resizeSection(0, 220)
        self.flip_view.doubleClicked.connect(self._open_flip)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.delta_view)
        split.addWidget(self.flip_view)
        split.setSizes([420, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)

    # --- runs -------------------------------------------------------------------------------

    def toolbar_actions(self) -> list[QAction | None]:
        """Refresh and Compare on the main window's toolbar: every screen has one, so the navigation never jumps
        (without it the toolbar hid here and everything below moved up 40 px)."""
        if not hasattr(self, "_toolbar"):
            refresh = QAction("Refresh Runs", self)
            refresh.setShortcut(QKeySequence.StandardKey.Refresh)
            refresh.triggered.connect(self.refresh)
            compare = QAction("Compare", self)
            compare.setToolTip("Compare the run before with the run after")
            compare.triggered.connect(self.compare)
            self._toolbar: list[QAction | None] = [refresh, None, compare]
        return self._toolbar

    def refresh(self) -> None:
        """Read the list of runs again; before = the second latest, after = the latest, unless picked."""
        self._stale = False
        if self.store is None:
            return
        picked = (self.before.currentData(), self.after.currentData())
        runs = self.store.list_runs()
        for combo in (self.before, self.after):
            combo.blockSignals(True)
            combo.clear()
            for run in runs:
                names = names_for_runs([run.config])  # display names: two variants of one baseline told apart
                agents = ", ".join(names.get(a, a) for a in run.config.get("agents", [])) or "imported"
                combo.addItem(f"{run.id} · {run.domain} · {agents}", run.id)
                combo.setItemData(combo.count() - 1, "\n".join(legend(names)) or None, Qt.ItemDataRole.ToolTipRole)
            combo.blockSignals(False)
        self.go.setEnabled(len(runs) >= 2)
        if len(runs) < 2:
            self.summary.setText(EMPTY_TEXT)
            return
        after = picked[1] or runs[0].id
        self.select_runs(picked[0] or before_of(runs, after), after)
        if self.data is None and not self.comparing:
            self.summary.setText(PICK_TEXT)

    def select_runs(self, before: str, after: str) -> None:
        """Pick the two runs (by id) without comparing yet."""
        for combo, run_id in ((self.before, before), (self.after, after)):
            index = combo.findData(run_id)
            if index >= 0:
                combo.setCurrentIndex(index)

    def _on_runs_written(self) -> None:
        self._stale = True
        if self.isVisible() and self.store is not None:
            self.refresh()

    # --- comparing --------------------------------------------------------------------------

    def compare(self) -> None:
        """Compare the picked runs on a thread; the tables fill when it is done."""
        run_a, run_b = self.before.currentData(), self.after.currentData()
        if self.store is None or not run_a or not run_b:
            return
        self._generation += 1
        self.summary.setText(f"Comparing {run_a} with {run_b} …")
        self.go.setEnabled(False)
        thread = CompareThread(self.store, run_a, run_b, self._generation)
        thread.compared.connect(self._on_compared)
        thread.failed.connect(self._on_failed)
        self._thread = thread
        thread.start_comparing()

    def _on_compared(self, generation: int, data: dict[str, Any]) -> None:
        if generation != self._generation:
            return  # a newer comparison was asked for
        self._thread = None
        self.go.setEnabled(True)
        self.data = data
        self.pair.blockSignals(True)
        self.pair.clear()
        names = self._pair_names()
        for pair in data["pairs"]:
            a, b = names[0].get(pair["agent_a"], pair["agent_a"]), names[1].get(pair["agent_b"], pair["agent_b"])
            self.pair.addItem(f"{a} -> {b}")
            self.pair.setItemData(self.pair.count() - 1, f"{pair['agent_a']} -> {pair['agent_b']}", Qt.ItemDataRole.ToolTipRole)
        self.pair.blockSignals(False)
        self._show_pair(0)

    def _pair_names(self) -> tuple[dict[str, str], dict[str, str]]:
        """Each compared run's agents' display names (before, after)."""
        out = []
        for combo in (self.before, self.after):
            try:
                out.append(names_for_runs([self.store.get_run(combo.currentData()).config]) if self.store else {})
            except SageError:
                out.append({})
        return out[0], out[1]

    def _on_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        self._thread = None
        self.go.setEnabled(True)
        self.summary.setText(f"Could not compare: {message}")
        self._report_error("Could not compare the runs", message)

    def _show_pair(self, index: int) -> None:
        data = self.data
        if data is None or not 0 <= index < len(data["pairs"]):
            return
        pair = data["pairs"][index]
        self.deltas.set_rows([m for m in pair["metrics"] if not (m["a"] is None and m["b"] is None)])
        self.flips.set_rows(pair["flips"])
        self.summary.setText(summary_text(data, pair))
        self.message.emit(f"{len(pair['regressions'])} regression(s), {len(pair['flips'])} flipped case(s)")

    def _open_flip(self, index: QModelIndex) -> Any:
        if not index.isValid() or self.data is None:
            return None
        return self.open_flip(index.row())

    def open_flip(self, row: int) -> Any:
        """Open both runs' conversations of a flipped case side by side (Review's compare dialog)."""
        from sage_desk.gui.review.compare import CompareDialog
        from sage_desk.gui.review.detail import DetailLoader

        flip = self.flips.rows[row]
        assert self.data is not None
        options = [(cid, f"before {self.data['a']['run']} · repeat {n}") for n, cid in enumerate(flip["a_conversations"], 1)]
        options += [(cid, f"after {self.data['b']['run']} · repeat {n}") for n, cid in enumerate(flip["b_conversations"], 1)]
        dialog = CompareDialog(
            flip["case_id"], options, flip["a_conversations"][0], flip["b_conversations"][0], DetailLoader(self.store).load, self
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.compare_dialog = dialog
        return dialog


def summary_text(data: dict[str, Any], pair: dict[str, Any]) -> str:
    """What differs, the verdict of the gate and the noise, in a few lines of rich text."""
    differs = escape("; ".join(data["stamp_differences"]) or "same inputs (the stamps match)")
    gate = (
        f"<b style='color:#c62828'>Regressions: {escape(', '.join(pair['regressions']))}</b>"
        if pair["regressions"]
        else "<b style='color:#2e7d32'>No regression</b> beyond the intervals and thresholds"
    )
    rates = ", ".join(
        f"{side} {pair[key]:.0%}" for side, key in (("before", "flip_rate_a"), ("after", "flip_rate_b")) if pair[key] is not None
    )
    noise = f" · cases flipping across repeats: {rates}" if rates else ""
    return (
        f"<b>{data['a']['run']}</b> (before) vs <b>{data['b']['run']}</b> (after), {pair['cases']} cases in both, "
        f"paired {data['confidence']:.0%} intervals over cases<br>What differs: {differs}<br>{gate} · "
        f"{len(pair['flips'])} flipped case(s){noise}. Double-click a flipped case to read both conversations."
    )
