"""The inspector: edit the selected node's attributes or the selected edge's condition.

It never changes the document: each finished edit (Enter, leaving a field, picking from a list)
is reported as a signal, and the editor turns it into an undo command. It shows the document's
values again after every change, so an undo shows up here too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.sop.document import EdgeKey, SopDocument
from sage_desk.core.sop.model import OUTCOMES, FieldSource, FieldSpec, Node, NodeKind
from sage_desk.gui.common.graph.items import KIND_STYLES

STEP_TOOL, STEP_SAY = "Tool call", "Say something"


class CommitTextEdit(QPlainTextEdit):
    """A multi-line text box that reports its text when it loses focus."""

    committed = Signal(str)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # Qt API
        super().focusOutEvent(event)
        self.committed.emit(self.toPlainText())


def _combo(editable: bool, items: Sequence[str] = ()) -> QComboBox:
    combo = QComboBox()
    combo.setEditable(editable)
    combo.addItems(list(items))
    if editable:
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    return combo


def _editor(combo: QComboBox) -> QLineEdit:
    """The line edit of an editable combo box (only a non-editable one has none)."""
    editor = combo.lineEdit()
    assert editor is not None, "the combo box is not editable"
    return editor


def _set_combo(combo: QComboBox, items: list[str], value: str) -> None:
    """Show `items` and `value`, touching the list only when it changed: refilled on every edit, a combo
    closed the popup a click was opening (after another field's edit), so it took two clicks to open."""
    combo.blockSignals(True)
    if [combo.itemText(i) for i in range(combo.count())] != items:
        combo.clear()
        combo.addItems(items)
    if combo.currentText() != value:
        combo.setEditText(value) if combo.isEditable() else combo.setCurrentText(value)
    combo.blockSignals(False)


def format_args(args: dict[str, Any]) -> str:
    """Argument constraints as `name: value` lines."""
    return "\n".join(f"{k}: {v if isinstance(v, str) else json.dumps(v)}" for k, v in args.items())


def parse_args(text: str) -> dict[str, Any]:
    """`name: value` lines back to a dict (JSON values stay typed, the rest are strings)."""
    args: dict[str, Any] = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if not sep or not name.strip():
            continue
        value = value.strip()
        try:
            args[name.strip()] = json.loads(value) if value[:1] in '0123456789-[{"tfn' and value else value
        except ValueError:
            args[name.strip()] = value
    return args


def split_when(text: str) -> str | list[str] | None:
    """`a, b` to ['a', 'b'], `a` to 'a', blank to None."""
    values = [v.strip() for v in text.replace("|", ",").split(",") if v.strip()]
    return None if not values else values[0] if len(values) == 1 else values


class NodeForm(QWidget):
    """The form for one node."""

    edited = Signal(str, object)  # node id, {attr: value}
    field_edited = Signal(str, object)  # field name, FieldSpec

    def __init__(self, doc: SopDocument, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.node: Node | None = None
        self.tools: list[str] = []
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.form = QFormLayout()
        outer.addLayout(self.form)
        outer.addStretch(1)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.kind = QLabel()
        self.kind.setObjectName("kindLabel")
        self.id_edit = QLineEdit()
        self.label_edit = QLineEdit()
        self.field_combo = _combo(True)
        self.source_combo = _combo(False, [s.value for s in FieldSource])
        self.values_edit = QLineEdit()
        self.values_edit.setPlaceholderText("value, value, ...")
        self.step_combo = _combo(False, [STEP_TOOL, STEP_SAY])
        self.tool_combo = _combo(True)
        self.args_edit = CommitTextEdit()
        self.args_edit.setPlaceholderText("order_id: =order.order_id\nreason: damaged")
        self.say_edit = CommitTextEdit()
        self.say_edit.setPlaceholderText("What the agent must say, e.g. Ask for a photo of the damage")
        self.outcome_combo = _combo(True, list(OUTCOMES))
        self.note_edit = CommitTextEdit()
        for box in (self.args_edit, self.say_edit, self.note_edit):
            box.setTabChangesFocus(True)
            box.setFixedHeight(64)
        rows = [
            ("Kind", self.kind),
            ("Id", self.id_edit),
            ("Label", self.label_edit),
            ("Field", self.field_combo),
            ("Source", self.source_combo),
            ("Values", self.values_edit),
            ("Step", self.step_combo),
            ("Tool", self.tool_combo),
            ("Arguments", self.args_edit),
            ("Say", self.say_edit),
            ("Outcome", self.outcome_combo),
            ("Note", self.note_edit),
        ]
        for label, widget in rows:
            self.form.addRow(label, widget)
        self._connect()

    def _connect(self) -> None:
        self.id_edit.editingFinished.connect(lambda: self._commit(id=self.id_edit.text().strip()))
        self.label_edit.editingFinished.connect(lambda: self._commit(label=self.label_edit.text()))
        _editor(self.field_combo).editingFinished.connect(
            lambda: self._commit(field=self.field_combo.currentText().strip() or None)
        )
        self.field_combo.activated.connect(lambda _i: self._commit(field=self.field_combo.currentText().strip() or None))
        self.source_combo.activated.connect(lambda _i: self._commit_field())
        self.values_edit.editingFinished.connect(self._commit_field)
        self.step_combo.activated.connect(lambda _i: self._show_step())
        _editor(self.tool_combo).editingFinished.connect(self._commit_tool)
        self.tool_combo.activated.connect(lambda _i: self._commit_tool())
        self.args_edit.committed.connect(lambda text: self._commit(args=parse_args(text)))
        self.say_edit.committed.connect(lambda text: self._commit(say=text.strip() or None, tool=None, args={}))
        _editor(self.outcome_combo).editingFinished.connect(
            lambda: self._commit(outcome=self.outcome_combo.currentText().strip() or None)
        )
        self.outcome_combo.activated.connect(lambda _i: self._commit(outcome=self.outcome_combo.currentText().strip() or None))
        self.note_edit.committed.connect(lambda text: self._commit(note=text))

    def show_node(self, node: Node, tools: list[str]) -> None:
        """Fill the form from `node`."""
        self.node, self.tools = node, tools
        style = KIND_STYLES[node.kind]
        self.kind.setText(style.title)
        self.kind.setStyleSheet(f"background:{style.fill}; border:1px solid {style.border}; border-radius:6px; padding:2px 8px;")
        self.id_edit.setText(node.id)
        self.label_edit.setText(node.label)
        _set_combo(self.field_combo, list(self.doc.graph.fields), node.field or "")
        self._show_field_spec(node.field)
        self.step_combo.setCurrentText(STEP_SAY if node.say and not node.tool else STEP_TOOL)
        _set_combo(self.tool_combo, tools, node.tool or "")
        self.args_edit.setPlainText(format_args(node.args))
        self.say_edit.setPlainText(node.say or "")
        _set_combo(self.outcome_combo, list(OUTCOMES), node.outcome or "")
        self.note_edit.setPlainText(node.note)
        self._show_rows()

    def _show_field_spec(self, name: str | None) -> None:
        spec = self.doc.graph.fields.get(name or "")
        self.source_combo.setCurrentText(spec.source.value if spec else FieldSource.USER.value)
        self.values_edit.setText(", ".join(spec.values) if spec else "")

    def _show_rows(self) -> None:
        kind = self.node.kind if self.node else None
        say = self.step_combo.currentText() == STEP_SAY
        visible = {
            self.field_combo: kind == NodeKind.DECISION,
            self.source_combo: kind == NodeKind.DECISION,
            self.values_edit: kind == NodeKind.DECISION,
            self.step_combo: kind == NodeKind.ACTION,
            self.tool_combo: kind == NodeKind.ACTION and not say,
            self.args_edit: kind == NodeKind.ACTION and not say,
            self.say_edit: kind == NodeKind.ACTION and say,
            self.outcome_combo: kind == NodeKind.END,
        }
        for widget, shown in visible.items():
            self.form.setRowVisible(widget, shown)

    def _show_step(self) -> None:
        self._show_rows()
        if self.step_combo.currentText() == STEP_SAY:
            self.say_edit.setFocus()
        else:
            self.tool_combo.setFocus()

    def _commit(self, **attrs: Any) -> None:
        if self.node is None:
            return
        changed = {k: v for k, v in attrs.items() if getattr(self.node, k) != v}
        if changed:
            self.edited.emit(self.node.id, changed)

    def _commit_tool(self) -> None:
        tool = self.tool_combo.currentText().strip() or None
        self._commit(tool=tool, say=None) if tool else self._commit(tool=None)

    def _commit_field(self) -> None:
        name = self.field_combo.currentText().strip()
        if not name:
            return
        values = [v.strip() for v in self.values_edit.text().split(",") if v.strip()]
        spec = FieldSpec(
            source=FieldSource(self.source_combo.currentText()),
            values=list(dict.fromkeys(values)),
            description=(self.doc.graph.fields[name].description if name in self.doc.graph.fields else ""),
        )
        if self.doc.graph.fields.get(name) != spec:
            self.field_edited.emit(name, spec)


class EdgeForm(QWidget):
    """The form for one edge: its ends and its condition value(s)."""

    edited = Signal(object, object)  # (source, target), when

    def __init__(self, doc: SopDocument, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.key: EdgeKey | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addStretch(1)
        self.ends = QLabel()
        self.field = QLabel()
        self.when_combo = _combo(True)
        _editor(self.when_combo).setPlaceholderText("value (several: a, b)")
        hint = QLabel("Edges leaving a decision carry the value(s) of its field that select them.")
        hint.setWordWrap(True)
        hint.setObjectName("hint")
        form.addRow("Edge", self.ends)
        form.addRow("Field", self.field)
        form.addRow("When", self.when_combo)
        form.addRow(hint)
        _editor(self.when_combo).editingFinished.connect(self._commit)
        self.when_combo.activated.connect(lambda _i: self._commit())

    def show_edge(self, key: EdgeKey) -> None:
        """Fill the form from the edge `key`."""
        self.key = key
        edge = self.doc.edge(key)
        source = self.doc.graph.node(key[0])
        field = source.field if source and source.kind == NodeKind.DECISION else None
        spec = self.doc.graph.fields.get(field or "")
        self.ends.setText(f"{key[0]}  →  {key[1]}")
        self.field.setText(field or "(not a decision edge)")
        _set_combo(self.when_combo, spec.values if spec else [], ", ".join(edge.values))
        self.when_combo.setEnabled(field is not None or edge.when is not None)

    def _commit(self) -> None:
        if self.key is None or not self.doc.has_edge(self.key):
            return
        when = split_when(self.when_combo.currentText())
        if when != self.doc.edge(self.key).when:
            self.edited.emit(self.key, when)


class Inspector(QWidget):
    """Shows the form of the one selected node or edge, or a hint."""

    def __init__(self, doc: SopDocument, parent=None):
        super().__init__(parent)
        self.setObjectName("inspector")
        self.doc = doc
        self.tools: list[str] = []
        self.target: str | EdgeKey | None = None
        title = QLabel("Inspector")
        title.setObjectName("panelTitle")
        self.stack = QStackedWidget()
        self.empty = QLabel(
            "Select a node or an edge to edit it.\n\nDrag from a node's bottom handle "
            "(or Shift+drag) to another node to connect them."
        )
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.empty.setObjectName("hint")
        self.node_form = NodeForm(doc)
        self.edge_form = EdgeForm(doc)
        for page in (self.empty, self.node_form, self.edge_form):
            self.stack.addWidget(page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(title)
        layout.addWidget(self.stack, 1)

    def show_target(self, target: str | EdgeKey | None) -> None:
        """Show the node id or edge key `target` (None: the hint)."""
        self.target = target
        self.refresh()

    def refresh(self) -> None:
        """Show the target's current values (after any change to the document)."""
        target = self.target
        if isinstance(target, str) and self.doc.graph.node(target) is not None:
            self.node_form.show_node(self.doc.node(target), self.tools)
            self.stack.setCurrentWidget(self.node_form)
        elif isinstance(target, tuple) and self.doc.has_edge(target):
            self.edge_form.show_edge(target)
            self.stack.setCurrentWidget(self.edge_form)
        else:
            self.target = None
            self.stack.setCurrentWidget(self.empty)
