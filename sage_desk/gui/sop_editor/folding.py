"""Folding a decision's branches in the SOP Editor: a big graph read a part at a time (issue 35).

A folded decision stays on the canvas with a "▸ N folded" badge; the nodes reachable from the start
only through it are hidden with their edges. A node another route still reaches stays in view, so
folding never hides a step the rest of the graph uses. Folding is a view: the graph, its file and
undo are untouched, and an edit that changes the graph keeps the folds that still name a decision.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QGraphicsSimpleTextItem

from sage_desk.core.sop.model import Graph, NodeKind
from sage_desk.gui.common.graph.scene import GraphScene

BADGE_COLOUR = "#6d28d9"


def reachable(graph: Graph, stop_at: set[str]) -> set[str]:
    """Node ids reachable from the start, not going on past the nodes of `stop_at` (which are reached)."""
    start = graph.start()
    if start is None:
        return set()
    seen, todo = {start.id}, [start.id]
    while todo:
        node = todo.pop()
        if node in stop_at:
            continue
        for edge in graph.out_edges(node):
            if edge.target not in seen:
                seen.add(edge.target)
                todo.append(edge.target)
    return seen


def folded_away(graph: Graph, folded: set[str]) -> set[str]:
    """The nodes hidden by folding `folded`: reached from the start, but only through a folded decision."""
    return reachable(graph, set()) - reachable(graph, folded) if folded else set()


class Folding(QObject):
    """The folds of one editor's canvas: which decisions are folded, and the items they hide."""

    def __init__(self, scene: GraphScene) -> None:
        super().__init__(scene)
        self.scene = scene
        self.folded: set[str] = set()
        self.hidden: set[str] = set()
        self._badges: dict[str, QGraphicsSimpleTextItem] = {}
        scene.doc.changed.connect(self.apply)
        scene.doc.reset.connect(self._on_reset)

    def can_fold(self, node_id: str) -> bool:
        """Only a decision with somewhere to go folds."""
        node = self.scene.doc.graph.node(node_id) if node_id in self.scene.nodes else None
        return node is not None and node.kind == NodeKind.DECISION and bool(self.scene.doc.graph.out_edges(node_id))

    def fold(self, node_ids: list[str]) -> int:
        """Fold these decisions (others are skipped); returns how many nodes that hides in all."""
        self.folded |= {n for n in node_ids if self.can_fold(n)}
        self.apply()
        return len(self.hidden)

    def unfold(self, node_ids: list[str]) -> None:
        """Unfold these decisions."""
        self.folded -= set(node_ids)
        self.apply()

    def unfold_all(self) -> None:
        """Show the whole graph again."""
        self.folded.clear()
        self.apply()

    def _on_reset(self) -> None:
        self._badges.clear()  # the scene dropped every item, badges included
        self.apply()

    def apply(self) -> None:
        """Hide what the folds hide, show the rest; badge each folded decision with its count."""
        graph = self.scene.doc.graph
        self.folded = {n for n in self.folded if self.can_fold(n)}  # a deleted or re-kinded node unfolds
        self.hidden = folded_away(graph, self.folded)
        for node_id, item in self.scene.nodes.items():
            item.setVisible(node_id not in self.hidden)
            if node_id in self.hidden:
                item.setSelected(False)
        for (source, target, *_), edge in self.scene.edges.items():
            edge.setVisible(source not in self.hidden and target not in self.hidden)
        for node_id in list(self._badges):
            if node_id not in self.folded or node_id not in self.scene.nodes:
                badge = self._badges.pop(node_id)
                if shiboken6.isValid(badge) and badge.scene() is not None:  # gone already with a deleted node
                    badge.scene().removeItem(badge)
        for node_id in self.folded:
            self._badge(node_id, len(folded_away(graph, {node_id}) & self.hidden))

    def _badge(self, node_id: str, count: int) -> None:
        item = self.scene.nodes[node_id]
        badge = self._badges.get(node_id)
        if badge is None or not shiboken6.isValid(badge) or badge.parentItem() is not item:
            badge = QGraphicsSimpleTextItem(item)
            font = QFont()
            font.setBold(True)
            badge.setFont(font)
            badge.setBrush(QBrush(QColor(BADGE_COLOUR)))
            self._badges[node_id] = badge
        badge.setText(f"▸ {count} folded")
        rect = item.body_rect()
        badge.setPos(rect.right() - badge.boundingRect().width(), rect.bottom() + 2)  # under the node, never a neighbour
        badge.setToolTip("Folded branch: View > Unfold Branch (Ctrl+]) or Unfold All shows it")
