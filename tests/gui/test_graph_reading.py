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


def test_at_fit_on_a_laptop_every_node_shows_its_title(qtbot, northline):
    """Issue 35: Northline at Fit on a 1280x720 laptop was coloured blocks with no labels. At Fit each node
    now draws a short title about TITLE_PX high on screen: dark text pixels inside every node's box."""
    from PySide6.QtGui import QColor

    from sage_desk.gui.common.graph.items import LOD_TEXT, TEXT

    northline.resize(1220, 620)  # what the editor gets in a 1280x720 window
    northline.view.fit()
    qtbot.wait(20)
    assert northline.view.zoom() > LOD_TEXT
    image = northline.view.viewport().grab().toImage()
    dark = QColor(TEXT)
    for node_id, item in northline.scene.nodes.items():
        box = northline.view.mapFromScene(item.mapToScene(item.body_rect()).boundingRect()).boundingRect()
        box = box.intersected(image.rect())
        inked = sum(
            1
            for x in range(box.left(), box.right())
            for y in range(box.top(), box.bottom())
            if QColor(image.pixel(x, y)).lightness() < dark.lightness() + 40
        )
        assert inked >= 6, node_id  # some letters, not a plain block


def test_the_minimap_sits_beside_the_canvas_never_over_it(qtbot, northline):
    minimap, viewport = northline.view.minimap, northline.view.viewport()
    assert minimap.isVisible() and minimap.parent() is not northline.view
    on_screen = minimap.rect().translated(minimap.mapToGlobal(QPoint(0, 0)))
    canvas = viewport.rect().translated(viewport.mapToGlobal(QPoint(0, 0)))
    assert not on_screen.intersects(canvas)


def test_undo_and_redo_keep_their_names_so_the_toolbar_never_shifts(qtbot, northline):
    undo, redo = northline.actions_by_name["undo"], northline.actions_by_name["redo"]
    assert (undo.text(), undo.isEnabled()) == ("Undo", False)
    northline.scene.select_only(["lookup"])
    northline.delete_selection()
    assert undo.text() == "Undo" and undo.isEnabled() and undo.toolTip().startswith("Undo ") and len(undo.toolTip()) > 5
    undo.trigger()
    assert redo.text() == "Redo" and redo.toolTip().startswith("Redo ") and len(redo.toolTip()) > 5
