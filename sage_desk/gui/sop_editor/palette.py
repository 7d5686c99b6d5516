"""The palette: the four node kinds, dragged onto the canvas (or double-clicked to add at the centre)."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem

from sage_desk.core.sop.model import NodeKind
from sage_desk.gui.common.graph.items import KIND_STYLES, paint_kind
from sage_desk.gui.common.graph.scene import NODE_KIND_MIME

HINTS = {
    NodeKind.START: "Where the conversation begins (one per graph)",
    NodeKind.DECISION: "Branches on one field: a user slot or a system variable",
    NodeKind.ACTION: "A tool call the agent must make, or something it must say",
    NodeKind.END: "How the ticket ends: resolved, refused, escalated ...",
}


def kind_icon(kind: NodeKind, size: int = 40) -> QIcon:
    """An icon drawn with the same shape and colours as the canvas."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    w, h = KIND_STYLES[kind].size
    scale = (size - 4) / max(w, h)
    rect = QRectF(0, 0, w * scale, max(h * scale, size * 0.42))
    rect.moveCenter(QRectF(0, 0, size, size).center())
    paint_kind(painter, kind, rect)
    painter.end()
    return QIcon(pixmap)


def node_kind_mime(kind: NodeKind) -> QMimeData:
    """What a palette drag carries."""
    data = QMimeData()
    data.setData(NODE_KIND_MIME, kind.value.encode())
    data.setText(kind.value)
    return data


class Palette(QListWidget):
    """A list of node kinds to drag onto the canvas."""

    add_requested = Signal(str)  # node kind: add at the centre of the view (double-click, Enter)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("palette")
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setIconSize(QSize(40, 40))
        self.setSpacing(2)
        for kind in NodeKind:
            item = QListWidgetItem(kind_icon(kind), KIND_STYLES[kind].title)
            item.setData(Qt.ItemDataRole.UserRole, kind.value)
            item.setToolTip(f"{HINTS[kind]}\nDrag onto the canvas, or double-click to add.")
            self.addItem(item)
        self.itemActivated.connect(lambda item: self.add_requested.emit(item.data(Qt.ItemDataRole.UserRole)))

    def mimeTypes(self) -> list[str]:  # Qt API
        return [NODE_KIND_MIME]

    def mimeData(self, items) -> QMimeData:  # Qt API
        return node_kind_mime(NodeKind(items[0].data(Qt.ItemDataRole.UserRole)))

    def sizeHint(self) -> QSize:
        return QSize(150, 220)
