"""The Slots panel: an imported conversation's user slots, who set each, and a combo box to set one.

An imported conversation has no scripted case: its slots (CoreDemand, FaultType ...) come from
the log's metadata, the agent's own tags or a reviewer, and verdicts that depend on a slot nobody
set stay *unscored: needs FIELD*. Choosing a value calls core's `set_slot` on a background
thread; the rules re-run at once and the screen re-reads the verdicts (`slot_set`). The panel
is hidden for simulated conversations, whose slots are their case's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from sage_desk.core.cases.placing import UNPLACED
from sage_desk.core.rules.placed import AGENT_TAG
from sage_desk.gui.common.async_thread import AsyncThread, Outcome
from sage_desk.gui.review.override_panel import default_author
from sage_desk.gui.review.verdict_model import needs_of

if TYPE_CHECKING:
    from sage_desk.core.review.session import Store

NEEDED = "#b45309"
MUTED = "#64748b"
MIN_COMBO_WIDTH = 84
CELL_SPACING = 8
STYLE = (
    "QLabel#slotSource { color: #64748b; font-size: 8pt; } QLabel#slotName, QComboBox { font-size: 8pt; } "
    "QComboBox { padding: 1px 4px; }"
)
"""Small type: five slots fit in one row beside a 1280-px window's conversation list."""


def source_text(source: str | None) -> str:
    """Who set a slot, as a reviewer reads it: `agent's tag`, `log metadata`, `ines (reviewer)` ..."""
    if not source:
        return "—"
    if source == AGENT_TAG:
        return "agent's tag"
    if source == "metadata":
        return "log metadata"
    kind, _, who = source.partition(":")
    if kind == "reviewer":
        return f"{who or 'someone'} (reviewer)"
    if kind == "extract":
        return f"extracted ({who.rsplit('/', 1)[-1]})" if who else "extracted"
    return source


def imported_about(detail: Any) -> str:
    """The line under an imported conversation's title: where it sits on the graph, its bucket, how it ended."""
    r, case = detail.record, detail.case
    about = []
    if case is not None and case.expected.path == UNPLACED:
        about.append("fits several paths of the graph: its slots decide")
    elif case is not None:
        about.append(f"placed on one path · expected: {case.expected.outcome or '?'}")
    if r.bucket:
        about.append(r.bucket.replace("_", " "))
    about.append(f"ended: {(r.termination or r.status.value).replace('_', ' ')}")
    about.append(f"{r.turns} turn{'s' if r.turns != 1 else ''}")
    if getattr(r, "tau_reward", None) is not None:
        about.append(f"tau reward {r.tau_reward:g} ({'passed' if r.tau_reward >= 1 else 'failed'} by tau)")
    if getattr(r, "rules_state", None):
        about.append(f"rules not settled: {r.rules_state.replace('+', ' and ')}")
    return " · ".join(about)


class SlotThread(AsyncThread):
    """Sets one slot through core (`set_slot`): the case is placed again and its rules re-run."""

    def __init__(self, store: Store, conversation_id: str, field_name: str, value: str, author: str, parent: Any = None):
        super().__init__(parent)
        self.store, self.conversation_id = store, conversation_id
        self.field_name, self.value, self.author = field_name, value, author
        self.setObjectName(f"set-slot-{field_name}")

    async def work(self) -> Any:
        from sage_desk.core.imports.importer import set_slot

        return set_slot(self.store, self.conversation_id, self.field_name, self.value, self.author)


class SlotsPanel(QWidget):
    """Every user slot of the graph as a small cell: its name, a combo box with its values, and who set it.

    The cells sit side by side under the conversation's title and wrap to more rows when the
    detail is narrow, so the transcript and the verdicts keep their height.
    """

    slot_set = Signal(str, str)  # conversation id, what changed ("FaultType = wear_and_tear: rules re-run ...")
    failed = Signal(str, object)  # title, error

    def __init__(self, author: Callable[[], str], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("slotsPanel")
        self.setStyleSheet(STYLE)
        self.author = author
        self.store: Any = None
        self.conversation_id: str | None = None
        self._worker: SlotThread | None = None
        app = QCoreApplication.instance()
        if app is not None:  # a slot being set is one short write: let it land rather than kill its thread
            app.aboutToQuit.connect(self.wait)
        self.names: dict[str, QLabel] = {}
        self.combos: dict[str, QComboBox] = {}
        self.sources: dict[str, QLabel] = {}
        self.cells: dict[str, QWidget] = {}
        self._rows: list[list[str]] = []
        self.note = QLabel("")
        self.note.setObjectName("slotsNote")
        self.note.setWordWrap(True)
        self.flow = QVBoxLayout()
        self.flow.setContentsMargins(0, 0, 0, 0)
        self.flow.setSpacing(4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 0, 10, 6)
        layout.setSpacing(2)
        layout.addWidget(self.note)
        layout.addLayout(self.flow)
        self.hide()

    # --- showing ----------------------------------------------------------------------------

    def show_detail(self, detail: Any, store: Store | None) -> None:
        """Show an imported conversation's slots (the panel hides for anything else)."""
        self.store = store
        data = None
        if store is not None and detail is not None and detail.record.source_id is not None and detail.bundle is not None:
            data = store.imported_cases(detail.record.run_id).get(detail.id)
        if data is None:
            self.conversation_id = None
            self.hide()
            return
        self.conversation_id = detail.id
        fields = detail.bundle.user_fields()
        truth = (data.get("case") or {}).get("truth") or {}
        needed = Counter(n for v in detail.verdicts for n in needs_of(v) if n in fields)
        self._fill(fields, data, needed)
        waiting = sum(1 for v in detail.verdicts if v.unscored and needs_of(v))
        known = sum(1 for f in fields if truth.get(f) in fields[f])
        about = (
            f"{waiting} verdict{'s' if waiting != 1 else ''} wait on a slot: set the "
            f"<span style='color:{NEEDED}'><b>amber</b></span> ones"
            if waiting
            else "every verdict is scored"
        )
        self.note.setText(
            f"<b>Slots</b> <span style='color:{MUTED}'>· {known} of {len(fields)} set · {about} · "
            "choosing a value re-runs the rules</span>"
        )
        self.set_busy(self.is_setting())
        self.show()

    def _fill(self, fields: dict[str, list[str]], data: dict[str, Any], needed: Counter[str]) -> None:
        """Each slot's value, who set it (and the message an extractor cited), and whether verdicts wait on it."""
        truth = (data.get("case") or {}).get("truth") or {}
        sources: dict[str, str] = data.get("slot_sources") or {}
        citations: dict[str, Any] = data.get("citations") or {}
        history: list[dict[str, Any]] = data.get("history") or []
        if {f: [c.itemData(i) for i in range(c.count())] for f, c in self.combos.items()} != fields:
            self._rebuild(fields)
        for name, values in fields.items():
            combo, source = self.combos[name], self.sources[name]
            combo.blockSignals(True)
            value = truth.get(name)
            combo.setCurrentIndex(values.index(value) if value in values else -1)
            combo.blockSignals(False)
            cited = citations.get(name) if str(sources.get(name, "")).startswith("extract:") else None
            who = f"extracted from msg {cited}" if cited else source_text(sources.get(name))  # the model is in the tooltip
            source.setText(source.fontMetrics().elidedText(who, Qt.TextElideMode.ElideRight, combo.sizeHint().width()))
            tip = self._history_tip(sources.get(name), [h for h in history if h.get("field") == name])
            source.setToolTip(tip + (f"\nread in message {cited}" if cited else ""))
            wanted = needed.get(name, 0) if value is None else 0
            self.names[name].setText(f"<span style='color:{NEEDED}'><b>{name}</b></span>" if wanted else f"<b>{name}</b>")
            self.names[name].setToolTip(f"{wanted} unscored verdict(s) need {name}" if wanted else f"{name}: {', '.join(values)}")

    def _rebuild(self, fields: dict[str, list[str]]) -> None:
        for cell in self.cells.values():
            cell.setParent(None)
            cell.deleteLater()
        self.names, self.combos, self.sources, self.cells = {}, {}, {}, {}
        for name, values in fields.items():
            self.cells[name] = self._cell(name, values)
        self._rows = []
        self._place()

    def _cell(self, name: str, values: list[str]) -> QWidget:
        """One slot: its name over its combo box over who set it, as wide as its longest value."""
        combo = QComboBox()
        combo.setObjectName(f"slot-{name}")
        combo.setPlaceholderText("not set")
        for value in values:
            combo.addItem(value, value)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        combo.setMinimumWidth(MIN_COMBO_WIDTH)
        combo.activated.connect(lambda index, n=name: self._on_chosen(n, index))
        # a slot is set by choosing from the list, never by the arrow keys meant for the conversation
        # list (the keyboard stays there) or by a wheel turned while scrolling past
        combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        combo.installEventFilter(self)
        label, source = QLabel(name), QLabel("")
        label.setObjectName("slotName")
        source.setObjectName("slotSource")
        cell = QWidget()
        column = QVBoxLayout(cell)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        for widget in (label, combo, source):
            column.addWidget(widget)
        self.names[name], self.combos[name], self.sources[name] = label, combo, source
        return cell

    def _place(self) -> None:
        """Put the cells in rows, as many to a row as the width holds (all in one when it does)."""
        width = max(self.width() - 20, 1)
        rows: list[list[str]] = [[]]
        used = 0
        for name, cell in self.cells.items():
            need = cell.sizeHint().width() + (CELL_SPACING if rows[-1] else 0)
            if rows[-1] and used + need > width:
                rows.append([])
                used, need = 0, cell.sizeHint().width()
            rows[-1].append(name)
            used += need
        if rows == self._rows:
            return
        self._rows = rows
        while self.flow.count():
            self.flow.takeAt(0)  # the row layouts; the cells are re-added below
        for names in rows:
            line = QHBoxLayout()
            line.setSpacing(CELL_SPACING)
            for name in names:
                line.addWidget(self.cells[name], 0, Qt.AlignmentFlag.AlignTop)
            line.addStretch(1)
            self.flow.addLayout(line)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt API
        super().resizeEvent(event)
        self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt API
        if event.type() == QEvent.Type.Wheel and watched in self.combos.values():
            event.ignore()  # the wheel scrolls what is under the panel instead
            return True
        return super().eventFilter(watched, event)

    @staticmethod
    def _history_tip(source: str | None, changes: list[dict[str, Any]]) -> str:
        lines = [f"set by {source}" if source else "nobody set it yet"]
        lines += [f"{h.get('at', '')}: {h.get('author', '?')} set {h.get('value')}" for h in changes[-5:]]
        return "\n".join(lines)

    # --- setting ----------------------------------------------------------------------------

    def value_of(self, field_name: str) -> str | None:
        """The value the panel shows for a slot (None: not set)."""
        return self.combos[field_name].currentData() if field_name in self.combos else None

    def set_value(self, field_name: str, value: str) -> bool:
        """Set a slot as choosing it in its combo box does; False when it cannot start."""
        combo = self.combos.get(field_name)
        index = combo.findData(value) if combo is not None else -1
        if combo is None or index < 0:
            return False
        combo.setCurrentIndex(index)
        return self._on_chosen(field_name, index)

    def _on_chosen(self, field_name: str, index: int) -> bool:
        value = self.combos[field_name].itemData(index)
        if self.conversation_id is None or self.store is None or value is None or self.is_setting():
            return False
        author = self.author().strip() or default_author() or "reviewer"
        # no Qt parent: Python owns the thread and frees it once waited for. A parented thread given deleteLater
        # crashed PySide 6.11 now and then (its wrapper freed before the deferred delete released it: a segfault)
        self._worker = SlotThread(self.store, self.conversation_id, field_name, value, author)
        self._worker.ended.connect(
            lambda outcome, c=self.conversation_id, f=field_name, v=value: self._on_ended(outcome, c, f, v)
        )
        self.set_busy(True)
        self.note.setText(f"Setting {field_name} = {value} and re-running the rules…")
        self._worker.start()
        return True

    def is_setting(self) -> bool:
        """Whether a slot is being set."""
        return self._worker is not None and self._worker.isRunning()

    def set_busy(self, busy: bool) -> None:
        """Lock the combo boxes while a slot is being set."""
        for combo in self.combos.values():
            combo.setEnabled(not busy)

    def _on_ended(self, outcome: Outcome, conversation_id: str, field_name: str, value: str) -> None:
        if self._worker is not None:
            self._worker.wait()
            self._worker = None
        self.set_busy(False)
        if outcome.error is not None:
            self.note.setText(f"{field_name} was not set: {outcome.error}")
            self.failed.emit(f"Could not set {field_name}", outcome.error)
            return
        verdicts = outcome.result or []
        unscored = sum(1 for v in verdicts if v.unscored)
        failed = sum(1 for v in verdicts if v.passed is False)
        self.slot_set.emit(conversation_id, f"{field_name} = {value}: rules re-run, {failed} failed, {unscored} still unscored")

    def wait(self) -> None:
        """Let a slot being set finish (before the panel goes)."""
        if self._worker is not None:
            self._worker.wait()
