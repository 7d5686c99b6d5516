"""The SOP Editor: draw procedures as graphs, with live validation and the path list."""

from sage_desk.gui.sop_editor.editor import SopEditor

__all__ = ["SopEditor"]
