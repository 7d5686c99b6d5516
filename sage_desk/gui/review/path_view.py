"""The agent's route drawn on the SOP graph, beside the expected route, with the first divergence marked.

It reuses the SOP Editor's scene and items read-only: nodes cannot be moved or connected. The
expected route is a broad green band under the graph, the taken route is drawn in pink over it
(the editor's path highlight), nodes on neither are dimmed, and the first node off the expected
route carries a red ring and a label; a tool node the route passes without its tool being called is
not highlighted but ringed in grey dots, "not called". The route itself comes from `core.rules.trace`.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.rules.trace import PathTrace, describe_trace
from sage_desk.core.sop.document import SopDocument
from sage_desk.core.sop.layout import MAX_ROW, apply_layout, widest_row
from sage_desk.core.sop.model import Graph
from sage_desk.gui.common.graph.items import shape_path
from sage_desk.gui.common.graph.scene import GraphScene

EXPECTED = QColor(22, 163, 74, 90)
DIVERGED = QColor("#dc2626")
NOT_CALLED = QColor("#64748b")
LEGEND = (
    "<span style='color:#16a34a'>▬</span> expected route &nbsp;<span style='color:#db2777'>▬</span> taken route "
    "&nbsp;<span style='color:#dc2626'>◯</span> first divergence &nbsp;<span style='color:#64748b'>┈</span> not called"
)
MIN_ZOOM = 0.62
"""Fitting never zooms out further than this: node labels stay readable; drag to pan, wheel to zoom."""


class RouteScene(GraphScene):
    """The editor's scene with every editing gesture switched off."""

    def __init__(self, graph: Graph, parent=None):
        super().__init__(SopDocument(graph), parent)
        self.overlays: list[QGraphicsItem] = []
        self._expected: set[str] = set()
        for item in self.nodes.values():
            item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, False)
            item.setAcceptHoverEvents(False)

    def mousePressEvent(self, event) -> None:  # Qt API
        QGraphicsScene.mousePressEvent(self, event)

    def mouseMoveEvent(self, event) -> None:  # Qt API
        QGraphicsScene.mouseMoveEvent(self, event)

    def mouseReleaseEvent(self, event) -> None:  # Qt API
        QGraphicsScene.mouseReleaseEvent(self, event)

    def dragEnterEvent(self, event) -> None:  # Qt API
        event.ignore()

    def dropEvent(self, event) -> None:  # Qt API
        event.ignore()

    def show_trace(self, trace: PathTrace) -> None:
        """Draw the expected route as a band, the taken route highlighted, the divergence ringed."""
        for overlay in self.overlays:
            self.removeItem(overlay)
        self.overlays = []
        self._expected = set(trace.expected)
        self.highlight_path(trace.taken or None)
        for node_id in trace.expected:
            item = self.nodes.get(node_id)
            if item is not None:
                item.set_highlight(item.highlighted, False)  # on the expected route: never dimmed
                self._overlay(
                    shape_path(item.node.kind, item.body_rect().adjusted(-8, -8, 8, 8)).translated(item.pos()),
                    QPen(Qt.PenStyle.NoPen),
                    QBrush(EXPECTED),
                    -0.5,
                )
        for source, target in zip(trace.expected, trace.expected[1:], strict=False):
            for key, edge in self.edges.items():
                if key[:2] == (source, target):
                    band = QPen(EXPECTED, 12)
                    band.setCapStyle(Qt.PenCapStyle.RoundCap)
                    self._overlay(edge.path(), band, QBrush(), -1)
                    edge.set_highlight(edge.highlighted, False)
        for node_id in trace.not_called:  # the route passes it by: never drawn as gone through
            if node_id in self.nodes:
                self._mark_not_called(node_id)
        if trace.divergence in self.nodes:
            self._mark_divergence(trace.divergence)

    def _overlay(self, path, pen: QPen, brush: QBrush, z: float) -> QGraphicsPathItem:
        item = QGraphicsPathItem(path)
        item.setPen(pen)
        item.setBrush(brush)
        item.setZValue(z)
        self.addItem(item)
        self.overlays.append(item)
        return item

    def _mark_not_called(self, node_id: str) -> None:
        node = self.nodes[node_id]
        node.set_highlight(False, node_id not in self._expected)
        ring = shape_path(node.node.kind, node.body_rect().adjusted(-4, -4, 4, 4)).translated(node.pos())
        self._overlay(ring, QPen(NOT_CALLED, 2, Qt.PenStyle.DotLine), QBrush(), 2)
        self._label(node, "not called", NOT_CALLED, below=True)

    def _label(self, node, text: str, color: QColor, below: bool = False) -> None:
        label = QGraphicsSimpleTextItem(text)
        font = QFont(label.font())
        font.setBold(True)
        font.setPointSizeF(8)
        label.setFont(font)
        label.setBrush(QBrush(color))
        body = node.body_rect()
        offset = QPointF(body.left(), body.bottom() + 4) if below else QPointF(body.right() + 8, -8)
        label.setPos(node.pos() + offset)
        label.setZValue(3)
        self.addItem(label)
        self.overlays.append(label)

    def _mark_divergence(self, node_id: str) -> None:
        node = self.nodes[node_id]
        ring = shape_path(node.node.kind, node.body_rect().adjusted(-5, -5, 5, 5)).translated(node.pos())
        self._overlay(ring, QPen(DIVERGED, 3, Qt.PenStyle.DashLine), QBrush(), 2)
        self._label(node, "first divergence", DIVERGED)

    def route_rect(self, trace: PathTrace) -> QRectF:
        """The box around both routes (the whole graph when neither is known)."""
        rect = QRectF()
        for node_id in {*trace.expected, *trace.taken}:
            item = self.nodes.get(node_id)
            if item is not None:
                rect = rect.united(item.sceneBoundingRect())
        return rect if rect.isValid() else self.itemsBoundingRect()


class PathView(QWidget):
    """The route graph with a legend, a one-line account of the divergence, and fit buttons."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("routeView")
        self.scene: RouteScene | None = None
        self.graph: Graph | None = None
        self.trace: PathTrace | None = None
        self.view = QGraphicsView()
        self.view.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.view.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.view.setBackgroundBrush(QColor("#f8fafc"))
        self.summary = QLabel(LEGEND)
        self.summary.setWordWrap(True)
        self.summary.setObjectName("routeSummary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fit_route = QPushButton("Routes")
        self.fit_route.setToolTip("Zoom to the expected and taken routes")
        self.fit_route.clicked.connect(self.fit_routes)
        self.fit_all = QPushButton("Whole graph")
        self.fit_all.setToolTip("Zoom out to the whole graph")
        self.fit_all.clicked.connect(self.fit_graph)
        title = QLabel("Route on the SOP graph")
        title.setObjectName("paneTitle")
        top = QHBoxLayout()
        top.addWidget(title, 1)
        for button in (self.fit_route, self.fit_all):
            button.setObjectName("valueButton")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            top.addWidget(button)
        self.view.setToolTip("Drag to pan, wheel to zoom. The selected verdict's node is outlined in violet.")
        self.summary.setMinimumWidth(120)  # wrapped rich text would ask for its longest run
        self.setMinimumWidth(220)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 8, 6)
        layout.setSpacing(3)
        self.note = QLabel("")
        self.note.setObjectName("routeNote")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #92400e;")  # amber: worth knowing, not an error
        self.note.setVisible(False)
        self.note.setMinimumWidth(120)
        layout.addLayout(top)
        layout.addWidget(self.note)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)

    def show_route(self, graph: Graph | None, trace: PathTrace | None, problem: str = "", note: str = "") -> None:
        """Draw a conversation's routes on its run's graph (the scene is reused while the graph is);
        `note` says which graph that is when it is not today's sop.yaml."""
        self.trace = trace
        self.note.setText(note)
        self.note.setVisible(bool(note))
        if graph is None or trace is None:
            self._set_scene(None)
            self.summary.setText(problem or "No graph for this conversation.")
            return
        if self.scene is None or graph is not self.graph:
            # a stored layout with a very wide row is laid out anew here (read-only, nothing saved):
            # routes then run down a narrow drawing instead of across a wide one
            crowded = widest_row(graph) > MAX_ROW + 2
            scene = RouteScene(apply_layout(graph) if crowded else graph)
            self._set_scene(scene)
            self.graph = graph
            # room around the drawing, so a route at the graph's edge can still be centred
            self.view.setSceneRect(scene.itemsBoundingRect().adjusted(-800, -500, 800, 500))
        assert self.scene is not None
        self.scene.show_trace(trace)
        labels = {n.id: n.label or n.id for n in graph.nodes}
        self.summary.setText(f"{LEGEND}<br>{describe_trace(trace, labels)}")
        self.fit_routes()

    def select_node(self, node_id: str | None) -> None:
        """Select the node a verdict concerns (None clears) and bring it into view."""
        if self.scene is None:
            return
        self.scene.select_only([node_id] if node_id else [])
        item = self.scene.nodes.get(node_id or "")
        if item is not None and not self.view.mapToScene(self.view.viewport().rect()).boundingRect().contains(
            item.sceneBoundingRect()
        ):
            self.view.centerOn(item)  # the node the verdict is about, in the middle of the route view

    def fit_routes(self) -> None:
        """Zoom to both routes (no further out than MIN_ZOOM, centred on the divergence if any)."""
        if self.scene is None or self.trace is None:
            return
        focus = self.trace.divergence or self.trace.first_problem
        item = self.scene.nodes.get(focus or "")
        self._fit(self.scene.route_rect(self.trace), item.pos() if item is not None else None)

    def fit_graph(self) -> None:
        """Zoom out to the whole graph."""
        if self.scene is not None:
            self._fit(self.scene.itemsBoundingRect(), None, 0.05)

    def _fit(self, rect: QRectF, focus: QPointF | None, least: float = MIN_ZOOM) -> None:
        self.view.fitInView(rect.adjusted(-30, -30, 30, 30), Qt.AspectRatioMode.KeepAspectRatio)
        zoom = self.view.transform().m11()
        if not least <= zoom <= 1.1:
            self.view.resetTransform()
            self.view.scale(min(max(zoom, least), 1.1), min(max(zoom, least), 1.1))
            self.view.centerOn(focus if focus is not None else rect.center())

    def _set_scene(self, scene: RouteScene | None) -> None:
        old = self.scene
        self.scene = scene
        self.graph = None
        self.view.setScene(scene)
        if old is not None:
            old.disconnect_document()
            old.deleteLater()

    def resizeEvent(self, event) -> None:  # Qt API
        super().resizeEvent(event)
        self.fit_routes()
