"""The SOP Editor's actions, and the menus and toolbar the main window builds from them.

The editor keeps the slots (files, edits, clipboard, folding); this module only names them,
gives them their shortcuts and tips, and groups them into File, Edit and View.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QKeySequence

if TYPE_CHECKING:
    from sage_desk.gui.sop_editor.editor import SopEditor


def _action(
    editor: SopEditor, text: str, slot: Callable[..., Any], shortcuts: Sequence[QKeySequence | str] = (), tip: str = ""
) -> QAction:
    action = QAction(text, editor)
    action.setShortcuts([QKeySequence(s) for s in shortcuts])
    action.setStatusTip(tip or text)
    action.triggered.connect(slot)
    editor.addAction(action)
    return action


def build_actions(editor: SopEditor, undo: QAction, redo: QAction) -> dict[str, QAction]:
    """Every editor action by name (undo and redo come from the editor's undo stack)."""
    view = editor.view
    return {
        "new": _action(editor, "New Graph", editor.new_file, ["Ctrl+N"], "Start an empty graph"),
        "open": _action(editor, "Open…", editor.open_dialog, ["Ctrl+O"], "Open a sop.yaml file"),
        "import_prose": _action(
            editor, "Import from Prose…", editor.import_prose, [], "Draft a graph from a written SOP with a model"
        ),
        "save": _action(editor, "Save", editor.save, ["Ctrl+S"], "Save the graph"),
        "save_as": _action(editor, "Save As…", editor.save_as, ["Ctrl+Shift+S"], "Save the graph to another file"),
        "undo": undo,
        "redo": redo,
        "cut": _action(editor, "Cut", editor.cut, ["Ctrl+X"]),
        "copy": _action(editor, "Copy", editor.copy, ["Ctrl+C"], "Copy the selected nodes"),
        "paste": _action(editor, "Paste", editor.paste, ["Ctrl+V"], "Paste nodes"),
        "delete": _action(editor, "Delete", editor.delete_selection, ["Delete", "Backspace"], "Delete the selection"),
        "select_all": _action(editor, "Select All", editor.select_all, ["Ctrl+A"]),
        "fit": _action(editor, "Fit to View", view.fit, ["F"], "Show the whole graph"),
        "zoom_in": _action(editor, "Zoom In", lambda: view.zoom_by(1.25), ["Ctrl+=", "Ctrl++"]),
        "zoom_out": _action(editor, "Zoom Out", lambda: view.zoom_by(0.8), ["Ctrl+-"]),
        "zoom_reset": _action(editor, "Actual Size", lambda: view.resetTransform(), ["Ctrl+0"]),
        "layout": _action(editor, "Auto-Layout", editor.auto_layout, ["Ctrl+L"], "Arrange the graph top-down"),
        "fold": _action(editor, "Fold Branch", editor.fold_selected, ["Ctrl+["], "Hide what only the selected decision leads to"),
        "unfold": _action(
            editor, "Unfold Branch", editor.unfold_selected, ["Ctrl+]"], "Show the selected decision's branch again"
        ),
        "unfold_all": _action(editor, "Unfold All", editor.unfold_all, ["Ctrl+Shift+]"], "Show every folded branch"),
    }


def menus_of(a: dict[str, QAction]) -> dict[str, list[QAction | None]]:
    """Menu name -> actions (None: a separator), for the main window's menu bar."""
    return {
        "&File": [a["new"], a["open"], a["import_prose"], None, a["save"], a["save_as"]],
        "&Edit": [a["undo"], a["redo"], None, a["cut"], a["copy"], a["paste"], a["delete"], None, a["select_all"]],
        "&View": [
            a["fit"],
            a["zoom_in"],
            a["zoom_out"],
            a["zoom_reset"],
            None,
            a["layout"],
            None,
            a["fold"],
            a["unfold"],
            a["unfold_all"],
        ],
    }


def toolbar_of(a: dict[str, QAction]) -> list[QAction | None]:
    """The actions worth a toolbar button."""
    return [a["open"], a["save"], None, a["undo"], a["redo"], None, a["delete"], None, a["fit"], a["layout"]]
