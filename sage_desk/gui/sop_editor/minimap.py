"""The minimap: the whole graph small in a corner of the canvas, with the part on show outlined.

A big graph is read at a zoom where its labels are legible, which shows only part of it; the
minimap says where that part is, and a click or drag on it moves the canvas there.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGraphicsView

SIZE = (176, 132)
MARGIN = 10
DOCKED_HEIGHT = 130
OUTLINE = QColor("#7c3aed")


class Minimap(QGraphicsView):
    """A small, non-interactive view of `main`'s scene that pans `main` when clicked or dragged."""

    def __init__(self, main: QGraphicsView):
        super().__init__(main.scene(), main)
        self.setObjectName("minimap")
        self.main = main
        self.setFixedSize(*SIZE)
        self.docked = False
        self.setInteractive(False)
        self.setFrameShape(QFrame.Shape.Box)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setRenderHints(QPainter.RenderHint.Antialiasing)
        self.setStyleSheet("QGraphicsView#minimap { border: 1px solid #cbd5e1; background: #ffffff; }")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("The whole graph: click or drag to move the canvas there")
        self._refit_timer = QTimer(self, singleShot=True, interval=150)
        self._refit_timer.timeout.connect(self.refit)
        # a bound method, not a lambda: Qt drops the connection when the minimap goes before the scene
        main.scene().changed.connect(self._on_scene_changed)
        main.horizontalScrollBar().valueChanged.connect(self._on_scrolled)
        main.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    def _on_scrolled(self, _value: int) -> None:
        self.place()

    def _on_scene_changed(self, _rects) -> None:
        self._refit_timer.start()

    def graph_rect(self) -> QRectF:
        """The box around every node and edge."""
        return self.scene().itemsBoundingRect()

    def refit(self) -> None:
        """Show the whole graph; hide the minimap when the canvas already shows all of it."""
        rect = self.graph_rect()
        if rect.isEmpty():
            self.hide()
            return
        self.setSceneRect(rect)
        self.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)
        self.place()

    def dock(self) -> None:
        """Live in a panel's layout beside the canvas (the editor's palette column) instead of floating over
        its corner, where it covered nodes (half the graph with the Source panel open); always shown there."""
        self.docked = True
        self.setMinimumSize(96, DOCKED_HEIGHT)
        self.setMaximumSize(16_777_215, DOCKED_HEIGHT)

    def resizeEvent(self, event) -> None:  # Qt API
        super().resizeEvent(event)
        if self.docked:
            self._refit_timer.start()

    def place(self) -> None:
        """In the canvas's bottom-right corner, shown only while part of the graph is out of view (docked: in
        its panel, shown whenever there is a graph)."""
        if self.main.scene() is None:
            return
        if self.docked:
            self.setVisible(not self.graph_rect().isEmpty())
            self.viewport().update()
            return
        viewport = self.main.viewport()
        self.move(
            viewport.x() + viewport.width() - self.width() - MARGIN, viewport.y() + viewport.height() - self.height() - MARGIN
        )
        visible = self.main.mapToScene(viewport.rect()).boundingRect()
        rect = self.graph_rect()
        self.setVisible(not rect.isEmpty() and not visible.contains(rect))
        self.viewport().update()

    def drawForeground(self, painter: QPainter, _rect: QRectF | QRect) -> None:  # Qt API
        visible = self.main.mapToScene(self.main.viewport().rect()).boundingRect()
        pen = QPen(OUTLINE, 2)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(QColor(124, 58, 237, 28))
        painter.drawRect(visible)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # Qt API
        self.main.centerOn(self.mapToScene(event.position().toPoint()))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # Qt API
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.main.centerOn(self.mapToScene(event.position().toPoint()))
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # Qt API
        event.accept()

    def wheelEvent(self, event) -> None:  # Qt API
        event.ignore()
