"""Canvas items: one `NodeItem` per graph node, one `EdgeItem` per edge.

Node kinds are told apart by shape and colour (start: pill, decision: diamond, action: rounded
rectangle, end: double border). Items only draw; every change to the graph goes through the
editor's undo commands, and the items follow the document's signals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsObject, QGraphicsPathItem, QStyleOptionGraphicsItem, QWidget

from sage_desk.core.sop.document import EdgeKey, edge_key
from sage_desk.core.sop.model import Edge, Node, NodeKind


@dataclass(frozen=True)
class KindStyle:
    """How one node kind looks on the canvas."""

    title: str
    fill: str
    border: str
    size: tuple[float, float]


KIND_STYLES: dict[NodeKind, KindStyle] = {
    NodeKind.START: KindStyle("Start", "#dcfce7", "#16a34a", (150, 40)),
    NodeKind.DECISION: KindStyle("Decision", "#fef3c7", "#d97706", (176, 78)),
    NodeKind.ACTION: KindStyle("Action", "#dbeafe", "#2563eb", (168, 56)),
    NodeKind.END: KindStyle("End", "#f1f5f9", "#475569", (150, 46)),
}

SELECTED = QColor("#7c3aed")
HIGHLIGHT = QColor("#db2777")
PROBLEM = QColor("#dc2626")
TEXT = QColor("#0f172a")
SUBTEXT = QColor("#475569")
PORT_RADIUS = 6.0
HIGHLIGHT_MARGIN = 12.0  # how far a highlighted edge may be drawn beyond its line
LOD_TEXT = 0.15  # below this zoom, nodes draw as plain shapes (a title would need more room than a row has)
LOD_FULL_TEXT = 0.7  # below this, the 8.5 pt label would be under 8 px on screen: a short title is drawn instead
LOD_EDGE_LABELS = 0.6  # below this, edge labels show only on a hovered, selected or highlighted edge
TITLE_PX = 9.5  # the short title's height on screen, whatever the zoom (readable on a laptop at Fit)
TITLE_WIDTH, TITLE_MAX_PX = 190.0, 42.0  # the short title may use its layout cell (200 wide), two lines at most


def shape_path(kind: NodeKind, rect: QRectF) -> QPainterPath:
    """The outline of a node of `kind` filling `rect`."""
    path = QPainterPath()
    if kind == NodeKind.START:
        path.addRoundedRect(rect, rect.height() / 2, rect.height() / 2)
    elif kind == NodeKind.DECISION:
        c = rect.center()
        path.addPolygon(
            QPolygonF(
                [
                    QPointF(c.x(), rect.top()),
                    QPointF(rect.right(), c.y()),
                    QPointF(c.x(), rect.bottom()),
                    QPointF(rect.left(), c.y()),
                ]
            )
        )
        path.closeSubpath()
    elif kind == NodeKind.END:
        path.addRoundedRect(rect, 8, 8)
    else:
        path.addRoundedRect(rect, 12, 12)
    return path


def paint_kind(painter: QPainter, kind: NodeKind, rect: QRectF, border: QColor | None = None, width: float = 1.6) -> None:
    """Draw the shape of a node kind (used by the canvas and the palette icons)."""
    style = KIND_STYLES[kind]
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(style.fill))
    painter.setPen(QPen(border or QColor(style.border), width))
    painter.drawPath(shape_path(kind, rect))
    if kind == NodeKind.END:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        inner = rect.adjusted(4, 4, -4, -4)
        painter.drawPath(shape_path(kind, inner))


def wrap_text(text: str, metrics: QFontMetricsF, width: float, max_lines: int) -> list[str]:
    """`text` broken at spaces into lines no wider than `width`; only the last line is cut, with "…"."""
    lines: list[str] = []
    words = text.split()
    while words and len(lines) < max_lines:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(f"{line} {words[0]}") <= width:
            line = f"{line} {words.pop(0)}"
        lines.append(line)
    if words:
        lines[-1] = f"{lines[-1]} {' '.join(words)}"
    return [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in lines]


def node_subtitle(node: Node) -> str:
    """The second line of a node on the canvas: what it does."""
    if node.kind == NodeKind.DECISION:
        return f"? {node.field}" if node.field else "? (no field)"
    if node.kind == NodeKind.ACTION:
        if node.tool:
            return f"{node.tool}()"
        return f"say: {node.say}" if node.say else "(no tool or say)"
    if node.kind == NodeKind.END:
        return f"→ {node.outcome}" if node.outcome else "(no outcome)"
    return ""


class NodeItem(QGraphicsObject):
    """A graph node on the canvas: shape by kind, id and label, a port to draw edges, a problem badge."""

    def __init__(self, node: Node):
        super().__init__()
        self.node = node
        self.edges: list[EdgeItem] = []
        self.problems: list[str] = []
        self.highlighted = False
        self.dimmed = False
        self._hover = False
        self.setFlags(
            QGraphicsItem.GraphicsItemFlag.ItemIsMovable
            | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
            | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges
        )
        self.setAcceptHoverEvents(True)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(1)
        self.set_node(node)

    @property
    def node_id(self) -> str:
        """The id of the node this item shows."""
        return self.node.id

    def set_node(self, node: Node) -> None:
        """Show a new version of the node (after an edit or a move)."""
        kind_changed = node.kind != self.node.kind
        if kind_changed:
            self.prepareGeometryChange()
        self.node = node
        self.setPos(QPointF(*node.pos))
        self.setToolTip(self._tooltip())
        self.update()

    def set_problems(self, messages: list[str]) -> None:
        """Show (or clear) the problem badge with these messages."""
        if messages != self.problems:
            self.problems = messages
            self.setToolTip(self._tooltip())
            self.update()

    def set_highlight(self, highlighted: bool, dimmed: bool) -> None:
        """Mark the node as on (or off) the highlighted path."""
        if (highlighted, dimmed) != (self.highlighted, self.dimmed):
            self.highlighted, self.dimmed = highlighted, dimmed
            self.update()

    def _tooltip(self) -> str:
        text = f"{self.node.id} ({self.node.kind.value})"
        if self.problems:
            text += "\n" + "\n".join(f"⚠ {m}" for m in self.problems)
        return text

    # --- geometry ---------------------------------------------------------------------------

    def body_rect(self) -> QRectF:
        """The node's shape rectangle, centred on its position."""
        w, h = KIND_STYLES[self.node.kind].size
        return QRectF(-w / 2, -h / 2, w, h)

    def port_pos(self) -> QPointF:
        """Where the port (the handle edges are drawn from) sits, in item coordinates."""
        return QPointF(0, self.body_rect().bottom())

    def port_hit(self, scene_pos: QPointF) -> bool:
        """Whether `scene_pos` is on the port."""
        delta = self.mapFromScene(scene_pos) - self.port_pos()
        return math.hypot(delta.x(), delta.y()) <= PORT_RADIUS + 4

    def boundingRect(self) -> QRectF:  # Qt API
        body = self.body_rect().adjusted(-12, -14, 14, PORT_RADIUS + 6)
        title_h = 2 * TITLE_MAX_PX * 1.3  # the short title's room when zoomed out (two lines at their largest)
        return body.united(QRectF(-TITLE_WIDTH / 2 - 4, -title_h / 2, TITLE_WIDTH + 8, title_h))

    def shape(self) -> QPainterPath:
        path = shape_path(self.node.kind, self.body_rect())
        path.addEllipse(self.port_pos(), PORT_RADIUS + 4, PORT_RADIUS + 4)
        # winding, not the default odd-even: where the port overlaps the body (its upper half) counts
        # as inside, instead of a hole that let the press fall through to an edge or a node move
        path.setFillRule(Qt.FillRule.WindingFill)
        return path

    # --- painting ---------------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        rect = self.body_rect()
        painter.setOpacity(0.25 if self.dimmed else 1.0)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if self.highlighted:  # a glow that grows as the view zooms out (within the item's margin)
            painter.setPen(
                QPen(QColor(HIGHLIGHT.red(), HIGHLIGHT.green(), HIGHLIGHT.blue(), 110), min(24.0, 9.0 / max(lod, 0.01)))
            )
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(shape_path(self.node.kind, rect))
        if lod < LOD_TEXT:
            # far out, text is unreadable anyway: a plain shape keeps big graphs smooth
            colour = PROBLEM if self.problems else HIGHLIGHT if self.highlighted else QColor(KIND_STYLES[self.node.kind].border)
            painter.fillPath(shape_path(self.node.kind, rect), colour)
            return
        border = None
        width = 1.6
        if self.isSelected():
            border, width = SELECTED, 3.0
        elif self.highlighted:
            border, width = HIGHLIGHT, 3.0
        paint_kind(painter, self.node.kind, rect, border, width)
        if lod < LOD_FULL_TEXT:  # level of detail: the label alone, at a size read on screen
            self._paint_short_title(painter, rect, lod)
            if self.problems:
                self._paint_badge(painter, rect)
            return
        self._paint_text(painter, rect)
        if self._hover or self.isSelected():
            painter.setPen(QPen(QColor(KIND_STYLES[self.node.kind].border), 1.5))
            painter.setBrush(QColor("#ffffff"))
            painter.drawEllipse(self.port_pos(), PORT_RADIUS, PORT_RADIUS)
        if self.problems:
            self._paint_badge(painter, rect)

    def _paint_text(self, painter: QPainter, rect: QRectF) -> None:
        inset = (
            rect.width() * 0.12 if self.node.kind == NodeKind.DECISION else 8
        )  # may touch the diamond's sides: better than cut
        text_rect = rect.adjusted(inset, 3, -inset, -3)
        sub = node_subtitle(self.node)
        font = QFont(painter.font())
        font.setPointSizeF(8.5)
        font.setBold(True)
        metrics = QFontMetricsF(font)
        lines = wrap_text(self.node.label or self.node.id, metrics, text_rect.width(), 2 if sub else 3)
        sub_font = QFont(font)
        sub_font.setBold(False)
        sub_font.setPointSizeF(7.5)
        sub_metrics = QFontMetricsF(sub_font)
        line_h, sub_h = metrics.height(), sub_metrics.height() if sub else 0.0
        top = text_rect.center().y() - (line_h * len(lines) + sub_h) / 2
        painter.setFont(font)
        painter.setPen(TEXT)
        for number, line in enumerate(lines):
            painter.drawText(
                QRectF(text_rect.left(), top + number * line_h, text_rect.width(), line_h), Qt.AlignmentFlag.AlignCenter, line
            )
        if sub:
            painter.setFont(sub_font)
            painter.setPen(SUBTEXT)
            sub = sub_metrics.elidedText(sub, Qt.TextElideMode.ElideRight, text_rect.width())
            painter.drawText(
                QRectF(text_rect.left(), top + len(lines) * line_h, text_rect.width(), sub_h), Qt.AlignmentFlag.AlignCenter, sub
            )

    def _paint_short_title(self, painter: QPainter, rect: QRectF, lod: float) -> None:
        """The label in at most two lines about TITLE_PX high on screen, on a backing in the kind's colours;
        it may be wider than the node, up to TITLE_WIDTH (the layout's cell), so a few words show, not letters."""
        font = QFont(painter.font())
        font.setBold(True)
        font.setPixelSize(max(1, round(min(TITLE_PX / max(lod, 0.01), TITLE_MAX_PX))))
        metrics = QFontMetricsF(font)
        width = max(rect.width() - 8, TITLE_WIDTH)
        lines = wrap_text(self.node.label or self.node.id, metrics, width, 2)
        line_h = metrics.height()
        block_w = max(metrics.horizontalAdvance(line) for line in lines) + 6
        block = QRectF(-block_w / 2, rect.center().y() - line_h * len(lines) / 2, block_w, line_h * len(lines))
        style = KIND_STYLES[self.node.kind]  # the backing in the kind's colours: kinds still tell apart
        border = SELECTED if self.isSelected() else HIGHLIGHT if self.highlighted else QColor(style.border)
        painter.setPen(QPen(border, max(1.0, 1.5 / max(lod, 0.01))))
        painter.setBrush(QColor(style.fill))
        painter.drawRoundedRect(block.adjusted(-2, -1, 2, 1), 4, 4)
        painter.setFont(font)
        painter.setPen(TEXT)
        for number, line in enumerate(lines):
            painter.drawText(
                QRectF(block.left(), block.top() + number * line_h, block.width(), line_h), Qt.AlignmentFlag.AlignCenter, line
            )

    def _paint_badge(self, painter: QPainter, rect: QRectF) -> None:
        centre = QPointF(rect.right() - (rect.width() * 0.22 if self.node.kind == NodeKind.DECISION else 2), rect.top() + 2)
        painter.setPen(QPen(QColor("#ffffff"), 1.5))
        painter.setBrush(PROBLEM)
        painter.drawEllipse(centre, 9, 9)
        font = QFont(painter.font())
        font.setBold(True)
        font.setPointSizeF(8)
        painter.setFont(font)
        painter.drawText(QRectF(centre.x() - 9, centre.y() - 9, 18, 18), Qt.AlignmentFlag.AlignCenter, "!")

    # --- interaction ------------------------------------------------------------------------

    def hoverEnterEvent(self, event) -> None:  # Qt API
        self._hover = True
        self.update()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:  # Qt API
        self._hover = False
        self.update()
        super().hoverLeaveEvent(event)

    def itemChange(self, change, value):  # Qt API
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            for edge in self.edges:
                edge.adjust()
        return super().itemChange(change, value)


class EdgeItem(QGraphicsPathItem):
    """A directed edge with an arrow head and, for decision edges, its `when` label."""

    def __init__(self, edge: Edge, source: NodeItem, target: NodeItem):
        super().__init__()
        self.edge = edge
        self.source = source
        self.target = target
        self.highlighted = False
        self.dimmed = False
        self._label_rect = QRectF()
        self._arrow = QPolygonF()
        self._hover = False
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(0)
        source.edges.append(self)
        target.edges.append(self)
        self.adjust_siblings()

    def adjust_siblings(self) -> None:
        """Re-route this edge and every parallel one (their labels stack)."""
        for edge in list(self.source.edges):
            if edge.source is self.source and edge.target is self.target:
                edge.adjust()

    @property
    def key(self) -> EdgeKey:
        """The document's identity of the edge."""
        return edge_key(self.edge)

    def label(self) -> str:
        """The text shown on the edge: its condition value(s)."""
        return " | ".join(self.edge.values)

    def set_edge(self, edge: Edge, source: NodeItem, target: NodeItem) -> None:
        """Show a new version of the edge (a changed condition or a renamed end)."""
        self.edge = edge
        if source is not self.source or target is not self.target:
            self.detach()
            self.source, self.target = source, target
            source.edges.append(self)
            target.edges.append(self)
        self.adjust()

    def detach(self) -> None:
        """Forget the end nodes (before the item is removed)."""
        for item in (self.source, self.target):
            if self in item.edges:
                item.edges.remove(self)
        for edge in list(self.source.edges):
            if edge.target is self.target:
                edge.adjust()

    def set_highlight(self, highlighted: bool, dimmed: bool) -> None:
        """Mark the edge as on (or off) the highlighted path."""
        if (highlighted, dimmed) != (self.highlighted, self.dimmed):
            self.prepareGeometryChange()  # a highlighted edge is drawn wider
            self.highlighted, self.dimmed = highlighted, dimmed
            self.update()

    def itemChange(self, change, value):  # Qt API
        if change == QGraphicsItem.GraphicsItemChange.ItemSelectedChange:
            self.prepareGeometryChange()  # so is a selected one
        return super().itemChange(change, value)

    def adjust(self) -> None:
        """Re-route the edge between its nodes' current positions."""
        start = self.source.pos() + self.source.port_pos()
        end_centre = self.target.pos()
        end = _clip_to(self.target, QLineF(start, end_centre))
        path = QPainterPath(start)
        path.lineTo(end)
        self._arrow = _arrow_head(QLineF(start, end))
        self._label_rect = self._compute_label_rect(QLineF(start, end).center(), self._sibling_offset())
        self.prepareGeometryChange()
        self.setPath(path)

    def _sibling_offset(self) -> float:
        """Parallel edges (same ends, other values) stack their labels instead of hiding each other."""
        siblings = [e for e in self.source.edges if e.target is self.target and e.source is self.source]
        if len(siblings) < 2:
            return 0.0
        return siblings.index(self) - (len(siblings) - 1) / 2

    def _compute_label_rect(self, centre: QPointF, offset: float = 0.0) -> QRectF:
        text = self.label()
        if not text:
            return QRectF()
        metrics = QFontMetricsF(_label_font())
        w, h = metrics.horizontalAdvance(text) + 12, metrics.height() + 4
        return QRectF(centre.x() - w / 2, centre.y() - h / 2 + offset * (h + 2), w, h)

    def boundingRect(self) -> QRectF:  # Qt API
        margin = HIGHLIGHT_MARGIN if (self.highlighted or self.isSelected()) else 4
        return (
            super()
            .boundingRect()
            .united(self._arrow.boundingRect())
            .united(self._label_rect)
            .adjusted(-margin, -margin, margin, margin)
        )

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(10)
        path = stroker.createStroke(self.path())
        if not self._label_rect.isNull():
            path.addRect(self._label_rect)
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        marked = self.isSelected() or self.highlighted or self._hover
        # zoomed out, plain edges fade behind the titles; a marked one stays whole
        painter.setOpacity(0.2 if self.dimmed else 1.0 if marked or lod >= LOD_FULL_TEXT else 0.55)
        colour = SELECTED if self.isSelected() else HIGHLIGHT if self.highlighted else QColor("#64748b")
        width = 1.5
        if self.isSelected() or self.highlighted:
            # about four screen pixels however far out (within the item's margin): the path stands out at Fit
            width = max(
                3.0, min(2 * HIGHLIGHT_MARGIN, 4.0 / max(option.levelOfDetailFromTransform(painter.worldTransform()), 0.01))
            )
        painter.setPen(QPen(colour, width))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self.path())
        painter.setBrush(colour)
        painter.drawPolygon(self._arrow)
        if not self._label_rect.isNull() and (lod >= LOD_EDGE_LABELS or marked):  # labels on hover or zoomed in
            painter.setPen(QPen(colour, 1))
            painter.setBrush(QBrush(QColor("#ffffff")))
            painter.drawRoundedRect(self._label_rect, 6, 6)
            painter.setFont(_label_font())
            painter.setPen(TEXT)
            painter.drawText(self._label_rect, Qt.AlignmentFlag.AlignCenter, self.label())

    def hoverEnterEvent(self, event) -> None:  # Qt API
        self._hover = True  # its label shows, whatever the zoom
        self.update()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:  # Qt API
        self._hover = False
        self.update()
        super().hoverLeaveEvent(event)


_LABEL_FONT: list[QFont] = []


def _label_font() -> QFont:
    # built once from the app font: QFont() with no arguments corrupts None's refcount in
    # PySide6 6.12 on Python 3.11 (the interpreter aborts after a few thousand paints)
    if not _LABEL_FONT:
        font = QFont(QApplication.font())
        font.setPointSizeF(7.5)
        _LABEL_FONT.append(font)
    return _LABEL_FONT[0]


def _clip_to(item: NodeItem, line: QLineF) -> QPointF:
    """The point where `line` (ending at the item's centre) enters the item's shape."""
    path = shape_path(item.node.kind, item.body_rect()).translated(item.pos())
    lo, hi = 0.0, 1.0
    # bisection along the line: cheap, exact enough and works for every shape
    for _ in range(12):
        mid = (lo + hi) / 2
        if path.contains(line.pointAt(mid)):
            hi = mid
        else:
            lo = mid
    return line.pointAt(hi)


def _arrow_head(line: QLineF, size: float = 9.0) -> QPolygonF:
    if line.length() < 1:
        return QPolygonF()
    angle = math.atan2(-line.dy(), line.dx())
    tip = line.p2()
    left = tip - QPointF(math.sin(angle + math.pi / 3) * size, math.cos(angle + math.pi / 3) * size)
    right = tip - QPointF(math.sin(angle + math.pi - math.pi / 3) * size, math.cos(angle + math.pi - math.pi / 3) * size)
    return QPolygonF([tip, left, right])
