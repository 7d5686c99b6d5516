"""Reading a big shipped graph: the view it opens at, wrapped labels, the minimap, a highlighted path."""

from __future__ import annotations

import pytest
from gui_helpers import dispose
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtTest import QTest

from sage_desk.core.locations import sops_dir
from sage_desk.core.sop.model import NodeKind
from sage_desk.gui.common.graph.items import KIND_STYLES, wrap_text
from sage_desk.gui.sop_editor import SopEditor
from sage_desk.gui.sop_editor.view import READABLE_ZOOM


@pytest.fixture
def northline(qtbot):
    """The editor at a laptop's size with Northline's graph (about 45 nodes) open."""
    widget = SopEditor()
    qtbot.addWidget(widget)
    widget.resize(1220, 640)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget.load(sops_dir() / "northline" / "sop.yaml")
    yield widget
    dispose(widget)


def visible_rect(editor):
    return editor.view.mapToScene(editor.view.viewport().rect()).boundingRect()


def test_labels_wrap_instead_of_being_cut():
    font = QFont()
    font.setPointSizeF(8.5)
    font.setBold(True)
    width = KIND_STYLES[NodeKind.DECISION].size[0] * 0.76
    lines = wrap_text("Needs a human right away?", QFontMetricsF(font), width, 2)
    assert len(lines) == 2 and " ".join(lines) == "Needs a human right away?"
    assert wrap_text("one two three four five six seven eight nine ten", QFontMetricsF(font), 60, 2)[-1].endswith("…")


def test_a_big_graph_opens_readable_with_a_minimap(qtbot, northline):
    editor = northline
    qtbot.waitUntil(lambda: editor.view.minimap.isVisible())
    assert editor.view.zoom() >= READABLE_ZOOM
    start = next(n for n in editor.doc.graph.nodes if n.kind == NodeKind.START)
    assert visible_rect(editor).contains(editor.scene.nodes[start.id].sceneBoundingRect())
    # a click on the minimap's far corner moves the canvas there
    minimap = editor.view.minimap
    corner = minimap.mapFromScene(minimap.graph_rect().bottomRight()) - QPoint(4, 4)
    before = visible_rect(editor).center()
    QTest.mouseClick(minimap.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, corner)
    assert visible_rect(editor).center().y() > before.y() + 100


def test_a_chosen_path_stands_out_and_comes_into_view(qtbot, northline):
    editor = northline
    editor.view.fit()
    editor.bottom_tabs.setCurrentWidget(editor.paths)
    rows = editor.paths.model.rows
    longest = max(range(len(rows)), key=lambda i: len(rows[i].nodes))
    editor.paths.view.selectRow(longest)
    path = rows[longest].nodes
    assert all(editor.scene.nodes[n].highlighted for n in path)
    assert sum(item.dimmed for item in editor.scene.nodes.values()) == len(editor.scene.nodes) - len(set(path))
    assert editor.view.zoom() >= READABLE_ZOOM  # readable, not the whole graph at Fit
    assert visible_rect(editor).intersects(editor.scene.nodes[path[2]].sceneBoundingRect())
