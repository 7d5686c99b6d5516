"""Folding a decision's branch in the SOP Editor (issue 35): Northline's order-status stage folded hides the five
replies only it leads to (say_not_shipped, say_tracking, say_delivered, reship_lost, say_closed) and nothing the
rest of the graph reaches (resolved, handover); folding is a view: no undo step, the saved file unchanged."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from sage_desk.core.locations import sops_dir
from sage_desk.core.sop.io import dumps_graph
from tests.gui.gui_helpers import dispose

WISMO_REPLIES = {"say_not_shipped", "say_tracking", "say_delivered", "reship_lost", "say_closed"}


@pytest.fixture
def northline(qtbot):
    from sage_desk.gui.sop_editor import SopEditor

    widget = SopEditor()
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget.load(sops_dir() / "northline" / "sop.yaml")
    yield widget
    dispose(widget)


def hidden(editor) -> set[str]:
    return {node_id for node_id, item in editor.scene.nodes.items() if not item.isVisible()}


def test_ctrl_bracket_folds_a_decision_and_hides_only_what_it_alone_leads_to(qtbot, northline):
    editor = northline
    before, steps = dumps_graph(editor.doc.graph), editor.undo_stack.count()
    editor.scene.select_only(["wismo_stage"])
    editor.view.setFocus()
    qtbot.keyClick(editor.view, Qt.Key.Key_BracketLeft, Qt.KeyboardModifier.ControlModifier)
    assert hidden(editor) == WISMO_REPLIES
    assert editor.scene.nodes["wismo_stage"].isVisible() and editor.scene.nodes["resolved"].isVisible()
    badge = editor.folding._badges["wismo_stage"]
    assert badge.isVisible() and badge.text() == "▸ 5 folded"
    for (source, target, _), edge in editor.scene.edges.items():  # an edge shows only between two shown nodes
        assert edge.isVisible() == (source not in WISMO_REPLIES and target not in WISMO_REPLIES), (source, target)
    assert editor.undo_stack.count() == steps and dumps_graph(editor.doc.graph) == before  # a view, not an edit

    qtbot.keyClick(editor.view, Qt.Key.Key_BracketRight, Qt.KeyboardModifier.ControlModifier)
    assert hidden(editor) == set() and "wismo_stage" not in editor.folding._badges


def test_folds_nest_unfold_all_and_only_decisions_fold(qtbot, northline):
    editor = northline
    editor.folding.fold(["lookup"])  # an action node: nothing to fold
    assert hidden(editor) == set()
    editor.folding.fold(["wismo_stage"])
    editor.folding.fold(["demand"])  # the outer decision: every branch after it, the wismo replies among them
    outer = hidden(editor)
    assert WISMO_REPLIES < outer and "wismo_stage" in outer
    # before it, or reached another way (handover, from the escalation check), stays; 'resolved' goes: every route
    # to it passes the demand decision
    assert {"start", "check_escalation", "handover", "lookup", "demand"}.isdisjoint(outer) and "resolved" in outer
    assert editor.folding._badges["demand"].text() == f"▸ {len(outer)} folded"
    editor.folding.unfold(["demand"])
    assert hidden(editor) == WISMO_REPLIES  # the inner fold stays
    view_menu = editor.menus()["&View"]
    unfold_all = next(a for a in view_menu if a is not None and a.text() == "Unfold All")
    unfold_all.trigger()
    assert hidden(editor) == set() and not editor.folding._badges


def test_deleting_a_folded_decision_unfolds_its_branch(qtbot, northline):
    editor = northline
    editor.folding.fold(["wismo_stage"])
    editor.scene.select_only(["wismo_stage"])
    editor.delete_selection()
    assert "wismo_stage" not in editor.scene.nodes and editor.folding.folded == set()
    assert hidden(editor) == set()  # its replies, now reached by nothing, are not hidden by a fold that is gone
    editor.undo_stack.undo()
    assert "wismo_stage" in editor.scene.nodes and hidden(editor) == set()
