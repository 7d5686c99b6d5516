"""Undo commands of the SOP Editor: each one calls `SopDocument` and keeps what it returned to undo.

A command never changes the graph by itself and never checks a rule the document checks. The
editor applies a command once before pushing it (`push_command`): when the document refuses the
edit (EditError) nothing has changed and nothing reaches the undo stack.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoCommand, QUndoStack

from sage_desk.core.sop.document import EdgeKey, Fragment, SopDocument, edge_key, key_for
from sage_desk.core.sop.model import FieldSpec, Node


class DocCommand(QUndoCommand):
    """Base of the editor's commands: `apply` and `revert` call the document."""

    def __init__(self, text: str):
        super().__init__(text)
        self._applied = False

    def apply(self) -> None:
        """Make the change (may raise EditError before anything changes)."""
        raise NotImplementedError

    def revert(self) -> None:
        """Undo the change."""
        raise NotImplementedError

    def redo(self) -> None:
        if self._applied:  # applied by push_command just before the stack called redo
            self._applied = False
            return
        self.apply()

    def undo(self) -> None:
        self.revert()


def push_command(stack: QUndoStack, command: DocCommand) -> None:
    """Apply `command` and put it on `stack`; a refused edit raises EditError and stays off the stack."""
    command.apply()
    command._applied = True
    stack.push(command)


class AddNodeCommand(DocCommand):
    """Add one node (a drop from the palette)."""

    def __init__(self, doc: SopDocument, node: Node):
        super().__init__(f"Add {node.kind.value} {node.id!r}")
        self.doc, self.node = doc, node

    def apply(self) -> None:
        self.doc.add_node(self.node)

    def revert(self) -> None:
        self.doc.remove_node(self.node.id)


class InsertCommand(DocCommand):
    """Add a fragment of nodes and edges (a paste)."""

    def __init__(self, doc: SopDocument, fragment: Fragment, text: str = "Paste"):
        super().__init__(text)
        self.doc, self.fragment = doc, fragment

    def apply(self) -> None:
        self.doc.insert(self.fragment)

    def revert(self) -> None:
        self.doc.remove([n.id for _, n in self.fragment.nodes], [edge_key(e) for _, e in self.fragment.edges])


class RemoveCommand(DocCommand):
    """Remove nodes (with their edges) and edges in one step (Delete, Cut)."""

    def __init__(self, doc: SopDocument, node_ids: list[str], edge_keys: list[EdgeKey], text: str = "Delete"):
        super().__init__(text)
        self.doc, self.node_ids, self.edge_keys = doc, node_ids, edge_keys
        self.removed = Fragment()

    def apply(self) -> None:
        self.removed = self.doc.remove(self.node_ids, self.edge_keys)

    def revert(self) -> None:
        self.doc.insert(self.removed)


class MoveNodesCommand(DocCommand):
    """Move any number of nodes in one step (a drag, or an auto-layout)."""

    def __init__(
        self, doc: SopDocument, old: dict[str, tuple[float, float]], new: dict[str, tuple[float, float]], text: str = "Move"
    ):
        super().__init__(text if len(new) != 1 else f"{text} {next(iter(new))!r}")
        self.doc, self.old, self.new = doc, old, new

    def apply(self) -> None:
        self.doc.move_nodes(self.new)

    def revert(self) -> None:
        self.doc.move_nodes(self.old)


class UpdateNodeCommand(DocCommand):
    """Change attributes of one node (from the inspector); a rename follows the node."""

    def __init__(self, doc: SopDocument, node_id: str, attrs: dict[str, Any]):
        super().__init__(f"Edit {node_id!r}: {', '.join(attrs)}")
        self.doc, self.node_id, self.attrs = doc, node_id, attrs
        self.old: dict[str, Any] = {}

    def apply(self) -> None:
        self.old = self.doc.update_node(self.node_id, **self.attrs)

    def revert(self) -> None:
        self.doc.update_node(self.attrs.get("id", self.node_id), **self.old)


class AddEdgeCommand(DocCommand):
    """Connect two nodes."""

    def __init__(self, doc: SopDocument, source: str, target: str, when: str | list[str] | None = None):
        super().__init__(f"Connect {source!r} to {target!r}")
        self.doc, self.source, self.target, self.when = doc, source, target, when
        self.key: EdgeKey = (source, target, "")

    def apply(self) -> None:
        self.key = edge_key(self.doc.add_edge(self.source, self.target, self.when))

    def revert(self) -> None:
        self.doc.remove_edge(self.key)


class UpdateEdgeCommand(DocCommand):
    """Change the condition value(s) of an edge."""

    def __init__(self, doc: SopDocument, key: EdgeKey, when: str | list[str] | None):
        super().__init__(f"Edit condition {key[0]!r} -> {key[1]!r}")
        self.doc, self.key, self.when = doc, key, when
        self.new_key = key
        self.old: str | list[str] | None = None

    def apply(self) -> None:
        self.old = self.doc.update_edge(self.key, self.when)
        self.new_key = key_for(self.key[0], self.key[1], self.when)

    def revert(self) -> None:
        self.doc.update_edge(self.new_key, self.old)


class SetFieldsCommand(DocCommand):
    """Replace the graph's field declarations (a decision's field source or values)."""

    def __init__(self, doc: SopDocument, fields: dict[str, FieldSpec], text: str = "Edit fields"):
        super().__init__(text)
        self.doc, self.fields = doc, fields
        self.old: dict[str, FieldSpec] = {}

    def apply(self) -> None:
        self.old = self.doc.set_fields(self.fields)

    def revert(self) -> None:
        self.doc.set_fields(self.old)
