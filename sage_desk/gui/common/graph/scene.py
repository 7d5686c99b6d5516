"""The canvas scene: mirrors a `SopDocument` and turns mouse gestures into edit requests.

The scene never changes the document itself. A drop from the palette, a drag from a node's port
(or a Shift+drag from a node) to another node, and the end of a move are reported as signals; the
editor turns them into undo commands, which call the document, whose signals update the items.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsScene, QGraphicsSceneDragDropEvent, QGraphicsSceneMouseEvent

from sage_desk.core.sop.document import EdgeKey, SopDocument, edge_key
from sage_desk.core.sop.model import Edge, Node, NodeKind
from sage_desk.gui.common.graph.items import EdgeItem, NodeItem

NODE_KIND_MIME = "application/x-sage-desk-node-kind"
"""Mime type of a palette drag: the node kind's name as UTF-8."""


class GraphScene(QGraphicsScene):
    """The items of one document, kept in step with its signals."""

    node_dropped = Signal(str, QPointF)  # node kind, scene position
    edge_requested = Signal(str, str)  # source id, target id
    nodes_moved = Signal(object, object)  # {id: old pos}, {id: new pos}

    def __init__(self, doc: SopDocument, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.nodes: dict[str, NodeItem] = {}
        self.edges: dict[EdgeKey, EdgeItem] = {}
        self._press_positions: dict[str, QPointF] = {}
        self._connect_from: NodeItem | None = None
        self._rubber_line: QGraphicsLineItem | None = None
        self.setBackgroundBrush(QColor("#f8fafc"))
        doc.node_added.connect(self._on_node_added)
        doc.node_removed.connect(self._on_node_removed)
        doc.node_changed.connect(self._on_node_changed)
        doc.edge_added.connect(self._on_edge_added)
        doc.edge_removed.connect(self._on_edge_removed)
        doc.edge_changed.connect(self._on_edge_changed)
        doc.reset.connect(self._on_reset)
        doc.changed.connect(self._grow_scene_rect)
        self._on_reset()

    def disconnect_document(self) -> None:
        """Stop following the document (before the scene goes away)."""
        for signal, slot in (
            (self.doc.node_added, self._on_node_added),
            (self.doc.node_removed, self._on_node_removed),
            (self.doc.node_changed, self._on_node_changed),
            (self.doc.edge_added, self._on_edge_added),
            (self.doc.edge_removed, self._on_edge_removed),
            (self.doc.edge_changed, self._on_edge_changed),
            (self.doc.reset, self._on_reset),
            (self.doc.changed, self._grow_scene_rect),
        ):
            signal.disconnect(slot)

    # --- following the document -------------------------------------------------------------

    def _on_reset(self) -> None:
        self.clear()
        self.nodes.clear()
        self.edges.clear()
        self._rubber_line = None
        for node in self.doc.graph.nodes:
            self._on_node_added(node)
        for edge in self.doc.graph.edges:
            self._on_edge_added(edge)
        self.setSceneRect(QRectF())
        self._grow_scene_rect()

    def _on_node_added(self, node: Node) -> None:
        item = NodeItem(node)
        self.nodes[node.id] = item
        self.addItem(item)

    def _on_node_removed(self, node_id: str) -> None:
        item = self.nodes.pop(node_id)
        self.removeItem(item)

    def _on_node_changed(self, old_id: str, node: Node) -> None:
        item = self.nodes.pop(old_id)
        self.nodes[node.id] = item
        item.set_node(node)

    def _on_edge_added(self, edge: Edge) -> None:
        source, target = self.nodes.get(edge.source), self.nodes.get(edge.target)
        if source is None or target is None:
            return  # an edge to an unknown node (a broken file): validation lists it
        item = EdgeItem(edge, source, target)
        self.edges[edge_key(edge)] = item
        self.addItem(item)

    def _on_edge_removed(self, edge: Edge) -> None:
        item = self.edges.pop(edge_key(edge), None)
        if item is not None:
            item.detach()
            self.removeItem(item)

    def _on_edge_changed(self, old: Edge, new: Edge) -> None:
        item = self.edges.pop(edge_key(old), None)
        if item is None:
            return
        self.edges[edge_key(new)] = item
        item.set_edge(new, self.nodes[new.source], self.nodes[new.target])

    def _grow_scene_rect(self) -> None:
        # generous margins so the author can pan past the drawing and drop new nodes around it
        rect = self.itemsBoundingRect() if self.nodes else QRectF(-400, -300, 800, 600)
        self.setSceneRect(rect.adjusted(-1200, -900, 1200, 900).united(self.sceneRect()))

    # --- what the editor asks ---------------------------------------------------------------

    def selected_node_ids(self) -> list[str]:
        """Ids of the selected nodes, in file order."""
        chosen = {i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)}
        return [n.id for n in self.doc.graph.nodes if n.id in chosen]

    def selected_edge_keys(self) -> list[EdgeKey]:
        """Keys of the selected edges."""
        return [i.key for i in self.selectedItems() if isinstance(i, EdgeItem)]

    def select_only(self, node_ids: Sequence[str], edge_keys: Sequence[EdgeKey] = ()) -> None:
        """Select exactly these nodes and edges."""
        self.clearSelection()
        for node_id in node_ids:
            if node_id in self.nodes:
                self.nodes[node_id].setSelected(True)
        for key in edge_keys:
            if key in self.edges:
                self.edges[key].setSelected(True)

    def set_problems(self, by_node: dict[str, list[str]]) -> None:
        """Show a problem badge on each node with messages, clear it on the others."""
        for node_id, item in self.nodes.items():
            item.set_problems(by_node.get(node_id, []))

    def highlight_path(self, node_ids: list[str] | None) -> None:
        """Highlight the nodes and edges of one path and dim the rest (None clears)."""
        on = set(node_ids or [])
        steps = set(zip(node_ids or [], (node_ids or [])[1:], strict=False))  # (source, target) pairs
        active = node_ids is not None
        for node_id, item in self.nodes.items():
            item.set_highlight(node_id in on, active and node_id not in on)
        for key, edge in self.edges.items():
            edge.set_highlight(key[:2] in steps, active and key[:2] not in steps)

    # --- gestures ---------------------------------------------------------------------------

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # Qt API
        item = self._node_at(event.scenePos())
        if event.button() == Qt.MouseButton.LeftButton and item is not None and self._starts_edge(item, event):
            self._begin_connect(item, event.scenePos())
            event.accept()
            return
        super().mousePressEvent(event)
        self._press_positions = {i.node_id: i.pos() for i in self.selectedItems() if isinstance(i, NodeItem)}

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # Qt API
        if self._connect_from is not None and self._rubber_line is not None:
            line = self._rubber_line.line()
            self._rubber_line.setLine(QLineF(line.p1(), event.scenePos()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # Qt API
        if self._connect_from is not None:
            self._finish_connect(event.scenePos())
            event.accept()
            return
        super().mouseReleaseEvent(event)
        self._report_move()

    def _starts_edge(self, item: NodeItem, event: QGraphicsSceneMouseEvent) -> bool:
        if item.node.kind == NodeKind.END:
            return False
        return item.port_hit(event.scenePos()) or bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)

    def _begin_connect(self, item: NodeItem, pos: QPointF) -> None:
        self._connect_from = item
        start = item.pos() + item.port_pos()
        self._rubber_line = QGraphicsLineItem(QLineF(start, pos))
        self._rubber_line.setPen(QPen(QColor("#7c3aed"), 2, Qt.PenStyle.DashLine))
        self._rubber_line.setZValue(5)
        self.addItem(self._rubber_line)

    def _finish_connect(self, pos: QPointF) -> None:
        source = self._connect_from
        self._connect_from = None
        if self._rubber_line is not None:
            self.removeItem(self._rubber_line)
            self._rubber_line = None
        target = self._node_at(pos)
        if source is not None and target is not None and target is not source:
            self.edge_requested.emit(source.node_id, target.node_id)

    def _report_move(self) -> None:
        pressed, self._press_positions = self._press_positions, {}
        old, new = {}, {}
        for node_id, start in pressed.items():
            item = self.nodes.get(node_id)
            if item is not None and item.pos() != start:
                old[node_id] = (start.x(), start.y())
                new[node_id] = (item.pos().x(), item.pos().y())
        if new:
            self.nodes_moved.emit(old, new)

    def _node_at(self, pos: QPointF) -> NodeItem | None:
        for item in self.items(pos):
            if isinstance(item, NodeItem):
                return item
        return None

    # --- drops from the palette -------------------------------------------------------------

    def dragEnterEvent(self, event: QGraphicsSceneDragDropEvent) -> None:  # Qt API
        event.setAccepted(event.mimeData().hasFormat(NODE_KIND_MIME))

    def dragMoveEvent(self, event: QGraphicsSceneDragDropEvent) -> None:  # Qt API
        event.setAccepted(event.mimeData().hasFormat(NODE_KIND_MIME))

    def dropEvent(self, event: QGraphicsSceneDragDropEvent) -> None:  # Qt API
        data = event.mimeData()
        if not data.hasFormat(NODE_KIND_MIME):
            event.ignore()
            return
        kind = bytes(data.data(NODE_KIND_MIME).data()).decode()
        event.acceptProposedAction()
        self.node_dropped.emit(kind, event.scenePos())
