"""The canvas view: zoom (wheel, keys), pan (middle button, Space+drag, scroll bars), fit, rubber band."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QGraphicsView

from sage_desk.gui.common.graph.scene import GraphScene
from sage_desk.gui.sop_editor.minimap import Minimap

MIN_ZOOM, MAX_ZOOM = 0.1, 4.0
READABLE_ZOOM = 0.75
"""Labels read comfortably from here up: a graph opens no smaller, and a chosen path is shown no smaller."""


class GraphView(QGraphicsView):
    """Shows a `GraphScene`; left-drag on empty canvas draws a selection rubber band."""

    def __init__(self, scene: GraphScene, parent=None):
        super().__init__(scene, parent)
        self.graph_scene = scene  # scene() is typed as a plain QGraphicsScene; this one has the nodes
        self.setObjectName("canvas")
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState)
        self.setAcceptDrops(True)
        self._pan_from: QPoint | None = None
        self._space_down = False
        self.minimap = Minimap(self)

    def zoom(self) -> float:
        """The current scale (1.0 is 100%)."""
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        """Zoom in (factor > 1) or out, within sensible limits."""
        factor = max(MIN_ZOOM / self.zoom(), min(MAX_ZOOM / self.zoom(), factor))
        self.scale(factor, factor)
        self.minimap.place()

    def fit(self) -> None:
        """Show the whole graph (or the empty middle of the canvas)."""
        scene = self.graph_scene
        rect = scene.itemsBoundingRect() if scene.nodes else QRectF(-300, -200, 600, 400)
        self.fitInView(rect.adjusted(-40, -40, 40, 40), Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > 1.25:
            self.resetTransform()
            self.scale(1.25, 1.25)
            self.centerOn(rect.center())
        self.minimap.place()

    def open_view(self) -> None:
        """How a graph first shows: whole when that is readable, else from its start at a readable zoom (the minimap has the rest)."""
        self.fit()
        if self.zoom() >= READABLE_ZOOM or not self.graph_scene.nodes:
            return
        rect = self.graph_scene.itemsBoundingRect()
        self.resetTransform()
        self.scale(READABLE_ZOOM, READABLE_ZOOM)
        top = rect.top() + self.viewport().height() / (2 * READABLE_ZOOM) - 20
        self.centerOn(rect.center().x(), top)
        self.minimap.refit()

    def show_nodes(self, node_ids: list[str]) -> None:
        """Bring these nodes (a path) into view: all of them if that is readable, else from the first at a readable zoom."""
        items = [self.graph_scene.nodes[n] for n in node_ids if n in self.graph_scene.nodes]
        if not items:
            return
        rect = items[0].sceneBoundingRect()
        for item in items[1:]:
            rect = rect.united(item.sceneBoundingRect())
        self.fitInView(rect.adjusted(-60, -60, 60, 60), Qt.AspectRatioMode.KeepAspectRatio)
        zoom = self.zoom()
        if not READABLE_ZOOM <= zoom <= 1.25:
            zoom = min(max(zoom, READABLE_ZOOM), 1.25)
            self.resetTransform()
            self.scale(zoom, zoom)
            if self.zoom() == READABLE_ZOOM:  # the path is taller than the canvas: show where it splits off first
                first = items[min(2, len(items) - 1)].sceneBoundingRect().center()
                self.centerOn(
                    rect.center().x() if rect.width() * zoom < self.viewport().width() else first.x(),
                    first.y() + self.viewport().height() / (2 * zoom) - 120,
                )
            else:
                self.centerOn(rect.center())
        self.minimap.place()

    def resizeEvent(self, event) -> None:  # Qt API
        super().resizeEvent(event)
        self.minimap.place()

    def center_on_node(self, node_id: str) -> None:
        """Scroll so the node is visible."""
        item = self.graph_scene.nodes.get(node_id)
        if item is not None:
            self.ensureVisible(item, 80, 80)

    def wheelEvent(self, event: QWheelEvent) -> None:  # Qt API
        if event.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier):
            super().wheelEvent(event)  # scroll sideways/vertically like any list
            return
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(1.15**steps)
        event.accept()

    # --- panning ----------------------------------------------------------------------------

    def keyPressEvent(self, event) -> None:  # Qt API
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_down = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:  # Qt API
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_down = False
            self.viewport().unsetCursor()
        super().keyReleaseEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # Qt API
        if event.button() == Qt.MouseButton.MiddleButton or (self._space_down and event.button() == Qt.MouseButton.LeftButton):
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # Qt API
        if self._pan_from is not None:
            point = event.position().toPoint()
            self.pan_by(point.x() - self._pan_from.x(), point.y() - self._pan_from.y())
            self._pan_from = point
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # Qt API
        if self._pan_from is not None:
            self._pan_from = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def pan_by(self, dx: int, dy: int) -> None:
        """Move the drawing by (dx, dy) pixels, as a hand drag does."""
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - dx)
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() - dy)
