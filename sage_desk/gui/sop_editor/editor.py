"""The SOP Editor screen: palette, canvas, inspector, problems and paths around one `SopDocument`.

Every edit is an undo command that calls the document (commands.py); validation and path
enumeration run in core a moment after the last edit, so typing and dragging stay smooth.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from PySide6.QtCore import QByteArray, QMimeData, QPointF, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.domain.declaration import domain_names_for
from sage_desk.core.errors import DomainError, SageError
from sage_desk.core.sop.document import (
    DomainNames,
    EdgeKey,
    EditError,
    Fragment,
    SopDocument,
    key_for,
    new_graph,
)
from sage_desk.core.sop.io import dump_graph, load_graph_located
from sage_desk.core.sop.layout import MAX_ROW, apply_layout, widest_row
from sage_desk.core.sop.model import Edge, FieldSpec, Node, NodeKind
from sage_desk.gui.common import file_dialogs
from sage_desk.gui.common.errors import ErrorNotifier
from sage_desk.gui.common.graph.items import EdgeItem, NodeItem
from sage_desk.gui.common.graph.scene import GraphScene
from sage_desk.gui.common.screen import ScreenDefaults
from sage_desk.gui.sop_editor.actions import build_actions, menus_of, toolbar_of
from sage_desk.gui.sop_editor.commands import (
    AddEdgeCommand,
    AddNodeCommand,
    DocCommand,
    InsertCommand,
    MoveNodesCommand,
    RemoveCommand,
    SetFieldsCommand,
    UpdateEdgeCommand,
    UpdateNodeCommand,
    push_command,
)
from sage_desk.gui.sop_editor.folding import Folding
from sage_desk.gui.sop_editor.inspector import Inspector
from sage_desk.gui.sop_editor.palette import Palette
from sage_desk.gui.sop_editor.panels import PathsPanel, ProblemsPanel
from sage_desk.gui.sop_editor.view import GraphView

CLIPBOARD_MIME = "application/x-sage-desk-sop-fragment"
VALIDATE_DELAY_MS = 150
GRID = 10.0


class SopEditor(ScreenDefaults, QWidget):
    """Draw, check and save one SOP graph."""

    title_changed = Signal(str)
    message = Signal(str)  # a short note for the status bar
    file_changed = Signal(str)  # the path of the open file ('' for a new graph)

    def __init__(self, notifier: ErrorNotifier | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("sopEditor")
        self.notifier = notifier or ErrorNotifier(self)
        self.doc = SopDocument()
        self.path: Path | None = None
        self.undo_stack = QUndoStack(self)
        self.scene = GraphScene(self.doc, self)
        self.folding = Folding(self.scene)  # folded decisions' branches hidden (a view only: folding.py)
        self.view = GraphView(self.scene)
        self.node_palette = Palette()
        self.inspector = Inspector(self.doc)
        self.problems = ProblemsPanel()
        self.paths = PathsPanel()
        self._paste_count = 0
        self._validate_timer = QTimer(self, singleShot=True, interval=VALIDATE_DELAY_MS)
        self._build_layout()
        self.actions_by_name = self._build_actions()
        self._connect()
        self._validate_now()

    # --- building ---------------------------------------------------------------------------

    def _build_layout(self) -> None:
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.setObjectName("bottomTabs")
        self.bottom_tabs.addTab(self.problems, "Problems")
        self.bottom_tabs.addTab(self.paths, "Paths")
        left = QWidget()
        left.setObjectName("paletteBox")
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(8, 8, 8, 8)
        title = QLabel("Palette")
        title.setObjectName("panelTitle")
        hint = QLabel("Drag a kind onto the canvas.")
        hint.setObjectName("hint")
        hint.setWordWrap(True)
        left_layout.addWidget(title)
        left_layout.addWidget(self.node_palette, 1)
        left_layout.addWidget(hint)
        self.view.minimap.dock()  # beside the canvas, never over its nodes
        left_layout.addWidget(self.view.minimap)
        # the inspector's form is taller than a laptop's screen leaves it: it scrolls instead of
        # setting the window's minimum height
        inspector = QScrollArea()
        inspector.setObjectName("inspectorScroll")
        inspector.setWidget(self.inspector)
        inspector.setWidgetResizable(True)
        inspector.setFrameShape(QFrame.Shape.NoFrame)
        inspector.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.top_split = QSplitter(Qt.Orientation.Horizontal)
        for widget in (left, self.view, inspector):
            self.top_split.addWidget(widget)
        self.top_split.setStretchFactor(1, 1)
        self.top_split.setSizes([160, 800, 300])
        self.main_split = QSplitter(Qt.Orientation.Vertical)
        self.main_split.addWidget(self.top_split)
        self.main_split.addWidget(self.bottom_tabs)
        self.main_split.setStretchFactor(0, 1)
        self.main_split.setSizes([640, 170])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.main_split)

    def _on_undo_text(self, step: str) -> None:
        self._name_step(self._step_actions["Undo"], "Undo", step)

    def _on_redo_text(self, step: str) -> None:
        self._name_step(self._step_actions["Redo"], "Redo", step)

    @staticmethod
    def _name_step(action: QAction, word: str, step: str) -> None:
        action.setText(word)
        action.setToolTip(f"{word} {step}" if step else f"Nothing to {word.lower()}")
        action.setStatusTip(action.toolTip())

    def _build_actions(self) -> dict[str, QAction]:
        undo = self.undo_stack.createUndoAction(self, "Undo")
        undo.setShortcuts([QKeySequence("Ctrl+Z")])
        redo = self.undo_stack.createRedoAction(self, "Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.addActions([undo, redo])
        # a constant name, the step in the tooltip: "Undo Move 3 nodes" widened the button and shifted the toolbar
        self._step_actions = {"Undo": undo, "Redo": redo}
        # bound methods, not lambdas: the connections go with the editor, before its actions are deleted
        self.undo_stack.undoTextChanged.connect(self._on_undo_text)
        self.undo_stack.redoTextChanged.connect(self._on_redo_text)
        self._name_step(undo, "Undo", "")
        self._name_step(redo, "Redo", "")
        return build_actions(self, undo, redo)  # the rest, with the menus and toolbar: actions.py

    def fold_selected(self) -> None:
        """Fold the selected decisions' branches (Ctrl+[)."""
        chosen = [n for n in self.scene.selected_node_ids() if self.folding.can_fold(n)]
        if not chosen:
            self.message.emit("Select a decision to fold its branch")
            return
        hidden = self.folding.fold(chosen)
        self.message.emit(f"Folded {', '.join(chosen)}: {hidden} node(s) hidden; Ctrl+] or View > Unfold All shows them")

    def unfold_selected(self) -> None:
        """Unfold the selected decisions (Ctrl+])."""
        self.folding.unfold(self.scene.selected_node_ids())

    def unfold_all(self) -> None:
        """Show every folded branch again."""
        self.folding.unfold_all()

    def menus(self) -> dict[str, list[QAction | None]]:
        """Menu name -> actions (None: a separator), for the main window's menu bar."""
        return menus_of(self.actions_by_name)

    def toolbar_actions(self) -> list[QAction | None]:
        """The actions worth a toolbar button."""
        return toolbar_of(self.actions_by_name)

    def _connect(self) -> None:
        self.scene.node_dropped.connect(self._on_node_dropped)
        self.scene.edge_requested.connect(self._on_edge_requested)
        self.scene.nodes_moved.connect(self._on_nodes_moved)
        self.scene.selectionChanged.connect(self._on_selection_changed)
        self.node_palette.add_requested.connect(
            lambda kind: self._on_node_dropped(kind, self.view.mapToScene(self.view.viewport().rect().center()))
        )
        self.inspector.node_form.edited.connect(self._on_node_edited)
        self.inspector.node_form.field_edited.connect(self._on_field_edited)
        self.inspector.edge_form.edited.connect(self._on_edge_edited)
        self.problems.node_chosen.connect(self.select_node)
        self.paths.path_chosen.connect(self._show_path)
        # a bound method, not a lambda: Qt drops it when the editor goes, before the stack emits its last signal
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self.doc.changed.connect(self._schedule_validation)
        self.doc.changed.connect(self.inspector.refresh)
        self._validate_timer.timeout.connect(self._validate_now)

    # --- state ------------------------------------------------------------------------------

    def is_modified(self) -> bool:
        """Whether there are edits not saved yet."""
        return not self.undo_stack.isClean()

    def title(self) -> str:
        """What the window title shows for this graph: its file (or name) and `*` when modified."""
        if self.path is None:
            name = f"{self.doc.graph.name} (not saved)"
        else:
            name = f"{self.path.parent.name}/{self.path.name}" if self.path.parent.name else self.path.name
        return name + ("*" if self.is_modified() else "")

    def window_title(self) -> str:
        """What the main window's title says about this screen: the open graph."""
        return self.title()

    def save_state(self, settings: QSettings) -> None:
        """Remember the panel layout and the open file."""
        settings.setValue("sop_editor/top_split", self.top_split.saveState())
        settings.setValue("sop_editor/main_split", self.main_split.saveState())
        settings.setValue("sop_editor/last_file", str(self.path) if self.path else "")

    def restore_state(self, settings: QSettings) -> None:
        """Restore the panel layout saved by `save_state`."""
        for key, splitter in (("sop_editor/top_split", self.top_split), ("sop_editor/main_split", self.main_split)):
            state = settings.value(key)
            if isinstance(state, QByteArray):
                splitter.restoreState(state)

    def can_close(self) -> bool:
        """Ask about unsaved edits; False when the author cancels."""
        return self.maybe_save()

    # --- validation -------------------------------------------------------------------------

    def _on_clean_changed(self, _clean: bool) -> None:
        self.title_changed.emit(self.title())

    def _schedule_validation(self) -> None:
        self._validate_timer.start()

    def _validate_now(self) -> None:
        problems = self.doc.problems()
        by_node: dict[str, list[str]] = {}
        for problem in problems:
            if problem.node:
                by_node.setdefault(problem.node, []).append(problem.message)
        self.scene.set_problems(by_node)
        self.problems.set_problems(problems)
        try:
            paths, error = self.doc.paths(), None
        except SageError as exc:
            paths, error = [], str(exc)
        self.paths.set_paths(paths, error)
        self.bottom_tabs.setTabText(0, f"Problems ({len(problems)})")
        self.bottom_tabs.setTabText(1, f"Paths ({len(paths)})")

    def validation_pending(self) -> bool:
        """Whether a validation run is scheduled (tests wait for it to finish)."""
        return self._validate_timer.isActive()

    # --- edits ------------------------------------------------------------------------------

    def push(self, command: DocCommand) -> bool:
        """Apply an edit and put it on the undo stack; a refused edit is explained in the status bar."""
        try:
            push_command(self.undo_stack, command)
        except EditError as exc:
            self.message.emit(f"Not possible: {exc}")
            return False
        return True

    def _on_node_dropped(self, kind: str, pos: QPointF) -> None:
        node_kind = NodeKind(kind)
        node = Node(
            id=self.doc.unique_id(node_kind.value),
            kind=node_kind,
            pos=(round(pos.x() / GRID) * GRID, round(pos.y() / GRID) * GRID),
        )
        if self.push(AddNodeCommand(self.doc, node)):
            self.select_node(node.id)
            self.message.emit(f"Added {node_kind.value} {node.id!r}: set its details in the inspector.")

    def _on_edge_requested(self, source: str, target: str) -> None:
        when = self.doc.suggest_when(source)
        reason = self.doc.check_edge(source, target, when)
        if reason:
            self.message.emit(f"Cannot connect {source!r} to {target!r}: {reason}.")
            return
        if self.push(AddEdgeCommand(self.doc, source, target, when)):
            self.scene.select_only([], [key_for(source, target, when)])

    def _on_nodes_moved(self, old: dict, new: dict) -> None:
        self.push(MoveNodesCommand(self.doc, old, new))

    def _on_node_edited(self, node_id: str, attrs: dict) -> None:
        if not self.push(UpdateNodeCommand(self.doc, node_id, attrs)):
            self.inspector.refresh()  # show the document's value again after a refused edit
        elif "id" in attrs:
            self.select_node(attrs["id"])

    def _on_field_edited(self, name: str, spec: FieldSpec) -> None:
        fields = {**self.doc.graph.fields, name: spec}
        self.push(SetFieldsCommand(self.doc, fields, f"Edit field {name!r}"))

    def _on_edge_edited(self, key: EdgeKey, when) -> None:
        command = UpdateEdgeCommand(self.doc, key, when)
        if self.push(command):
            self.scene.select_only([], [command.new_key])
        else:
            self.inspector.refresh()

    def delete_selection(self) -> None:
        """Delete the selected nodes (with their edges) and edges, as one undo step."""
        nodes, edges = self.scene.selected_node_ids(), self.scene.selected_edge_keys()
        if nodes or edges:
            self.push(RemoveCommand(self.doc, nodes, edges))

    def select_all(self) -> None:
        """Select every node and edge."""
        self.scene.select_only(list(self.scene.nodes), list(self.scene.edges))

    def auto_layout(self) -> None:
        """Arrange every node top-down (one undo step), then fit the view."""
        laid = apply_layout(self.doc.graph)
        old = {n.id: n.pos for n in self.doc.graph.nodes}
        new = {n.id: n.pos for n in laid.nodes if n.pos != old.get(n.id)}
        if new:
            self.push(MoveNodesCommand(self.doc, {k: old[k] for k in new}, new, "Auto-layout"))
        self.view.fit()

    def _show_path(self, node_ids: list[str] | None) -> None:
        self.scene.highlight_path(node_ids)
        if node_ids:
            self.view.show_nodes(node_ids)

    # --- clipboard --------------------------------------------------------------------------

    def copy(self) -> None:
        """Put the selected nodes (and the edges between them) on the clipboard."""
        ids = self.scene.selected_node_ids()
        if not ids:
            return
        fragment = self.doc.copy(ids)
        payload = json.dumps(
            {
                "nodes": [n.model_dump(mode="json") for _, n in fragment.nodes],
                "edges": [e.model_dump(mode="json", by_alias=True) for _, e in fragment.edges],
            }
        )
        data = QMimeData()
        data.setData(CLIPBOARD_MIME, payload.encode())
        data.setText(payload)
        QGuiApplication.clipboard().setMimeData(data)
        self._paste_count = 0
        self.message.emit(f"Copied {len(ids)} node(s).")

    def cut(self) -> None:
        """Copy, then delete the selection."""
        self.copy()
        nodes = self.scene.selected_node_ids()
        if nodes:
            self.push(RemoveCommand(self.doc, nodes, self.scene.selected_edge_keys(), "Cut"))

    def paste(self) -> None:
        """Paste copied nodes next to the originals, with fresh ids, and select them."""
        data = QGuiApplication.clipboard().mimeData()
        if data is None or not data.hasFormat(CLIPBOARD_MIME):
            return
        raw = json.loads(bytes(data.data(CLIPBOARD_MIME).data()).decode())
        fragment = Fragment(
            nodes=[(0, Node.model_validate(n)) for n in raw["nodes"]], edges=[(0, Edge.model_validate(e)) for e in raw["edges"]]
        )
        self._paste_count += 1
        pasted = self.doc.prepare_paste(fragment, (40.0 * self._paste_count, 40.0 * self._paste_count))
        if self.push(InsertCommand(self.doc, pasted)):
            self.scene.select_only([n.id for _, n in pasted.nodes])

    # --- selection --------------------------------------------------------------------------

    def select_node(self, node_id: str) -> None:
        """Select one node and scroll to it."""
        self.scene.select_only([node_id])
        self.view.center_on_node(node_id)

    def _on_selection_changed(self) -> None:
        selected = self.scene.selectedItems()
        nodes = [i for i in selected if isinstance(i, NodeItem)]
        edges = [i for i in selected if isinstance(i, EdgeItem)]
        if len(nodes) == 1 and not edges:
            self.inspector.show_target(nodes[0].node_id)
        elif len(edges) == 1 and not nodes:
            self.inspector.show_target(edges[0].key)
        else:
            self.inspector.show_target(None)

    # --- files ------------------------------------------------------------------------------

    def load(self, graph_path: str | Path) -> bool:
        """Open a graph file (no question asked); False, with the problems reported, when it cannot be read."""
        path = Path(graph_path)
        try:
            graph, _located = load_graph_located(path)
        except SageError as exc:
            self.notifier.report(f"Could not open {path.name}", exc)
            return False
        self._set_document(graph, path, self._domain_names(path))
        wide = widest_row(graph)
        if wide > MAX_ROW + 2:
            self.message.emit(
                f"Opened {path}. Its layout has a row {wide} nodes wide: View > Auto-Layout (Ctrl+L) "
                f"wraps rows at {MAX_ROW} (one undo step)"
            )
        else:
            self.message.emit(f"Opened {path}")
        return True

    def _domain_names(self, path: Path) -> DomainNames | None:
        try:
            return domain_names_for(path)
        except DomainError as exc:
            self.notifier.report("The domain of this graph has problems; tools are not checked", exc)
            return None

    def _set_document(self, graph, path: Path | None, domain: DomainNames | None) -> None:
        self.path = path
        self.inspector.show_target(None)
        self.doc.set_graph(graph, domain)
        self.inspector.tools = sorted(domain.tools) if domain else []
        self.undo_stack.clear()
        self.undo_stack.setClean()  # clear() keeps a draft's "never saved" mark (resetClean) otherwise
        self._validate_timer.stop()
        self._validate_now()
        QTimer.singleShot(0, self.view.open_view)
        self.view.open_view()
        self.title_changed.emit(self.title())
        self.file_changed.emit(str(path) if path else "")

    def new_file(self) -> None:
        """Start an empty graph (after asking about unsaved edits)."""
        if self.maybe_save():
            self._set_document(new_graph(), None, None)

    def open_dialog(self) -> None:
        """Ask for a graph file and open it."""
        if not self.maybe_save():
            return
        start = str(self.path.parent) if self.path else ""
        name, _ = file_dialogs.open_file_name(self, "Open SOP graph", start, "SOP graphs (*.yaml *.yml);;All files (*)")
        if name:
            self.load(name)

    def import_prose(self):
        """File > Import from Prose…: draft a graph from a written SOP (import_dialog.py)."""
        from sage_desk.gui.sop_editor.import_dialog import run_import_dialog

        return run_import_dialog(self)

    def open_draft(self, graph, domain: DomainNames | None) -> bool:
        """Open a drafted graph as a new document that is not saved yet (after asking about unsaved edits)."""
        if not self.maybe_save():
            return False
        self._set_document(graph, None, domain)
        self.undo_stack.resetClean()  # unsaved from the start: closing it asks before the draft is lost
        self.title_changed.emit(self.title())
        return True

    def save(self) -> bool:
        """Save to the open file (or ask where, for a new graph)."""
        if self.path is None:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        """Ask for a file name and save there."""
        start = str(self.path) if self.path else f"{self.doc.graph.name}.yaml"
        name, _ = file_dialogs.save_file_name(self, "Save SOP graph", start, "SOP graphs (*.yaml *.yml)")
        return self.save_to(Path(name)) if name else False

    def save_to(self, path: Path) -> bool:
        """Write the graph to `path` and mark it saved; a graph with problems is saved only when the author says so."""
        problems = [p for p in self.doc.problems() if p.is_error]  # warnings load fine; errors stop runs of it
        if problems and not self.ask_save_with_problems(problems):
            self.message.emit(f"Not saved: {len(problems)} problem(s) to fix first (Problems tab)")
            return False
        try:
            dump_graph(self.doc.graph, path)
        except OSError as exc:
            self.notifier.report(f"Could not save {path.name}", exc)
            return False
        renamed = path != self.path
        self.path = path
        if renamed:
            self.doc.domain = self._domain_names(path)
            self.inspector.tools = sorted(self.doc.domain.tools) if self.doc.domain else []
            self.file_changed.emit(str(path))
        self.undo_stack.setClean()
        self.title_changed.emit(self.title())
        self.message.emit(f"Saved {path}")
        return True

    def maybe_save(self) -> bool:
        """When there are unsaved edits, ask to save them; False when the author cancels."""
        if not self.is_modified():
            return True
        answer = self.ask_save()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def ask_save_with_problems(self, problems: list) -> bool:
        """Ask before a graph with problems is written (runs and Review of this domain read it); tests replace it."""
        count = len(problems)
        listed = "".join(f"<li>{escape(p.node or 'graph')}: {escape(p.message)}</li>" for p in problems[:5])
        more = f"<li>… and {count - 5} more</li>" if count > 5 else ""
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Save with problems?",
            f"<b>Save with {count} problem{'s' if count != 1 else ''}?</b><ul>{listed}{more}</ul>"
            "New runs of this domain refuse a graph with problems, and Review draws stored runs "
            "on the graph they were played with.",
            parent=self,
        )
        save = box.addButton("Save anyway", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is save

    def ask_save(self) -> QMessageBox.StandardButton:
        """The question asked before unsaved edits would be lost (tests replace it)."""
        buttons = QMessageBox.StandardButton
        return QMessageBox.question(
            self,
            "Unsaved changes",
            f"Save the changes to {self.title().rstrip('*')}?",
            buttons.Save | buttons.Discard | buttons.Cancel,
            buttons.Save,
        )
