"""An editable SOP graph: every edit the SOP Editor makes, with Qt-free events (psygnal).

`SopDocument` owns a `Graph` and is the only thing that changes it while an author edits. Each
method checks its input before it changes anything (a refused edit raises `EditError` and leaves
the graph as it was), applies the change, emits one fine-grained signal per item touched and then
`changed` once. The GUI mirrors the graph by listening to these signals; its undo commands call
these methods and keep what they return (the old values) to undo.

Edges are identified by `(source, target, values)` (`edge_key`): two nodes may be joined by several
edges when each stands for other decision values (as `sop.yaml` files write them), but the document
refuses an exact duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from psygnal import Signal
from pydantic import ValidationError

from sage_desk.core.errors import Problem, SageError
from sage_desk.core.sop.model import Edge, FieldSpec, Graph, Node, NodeKind
from sage_desk.core.sop.paths import Path as SopPath
from sage_desk.core.sop.paths import enumerate_paths
from sage_desk.core.sop.validate import validate_graph

EdgeKey = tuple[str, str, str]
"""(source, target, the edge's decision values joined by `|`)."""


class EditError(SageError):
    """An edit was refused; the message says why, for the author."""


@dataclass
class Fragment:
    """Nodes and edges with their positions in the graph's lists: what a delete removed, or a paste adds."""

    nodes: list[tuple[int, Node]] = field(default_factory=list)
    edges: list[tuple[int, Edge]] = field(default_factory=list)

    def is_empty(self) -> bool:
        """Whether the fragment holds nothing."""
        return not self.nodes and not self.edges


@dataclass(frozen=True)
class DomainNames:
    """What validation needs from a graph's domain: its tool names and expression names."""

    name: str
    tools: tuple[str, ...]
    expr_names: tuple[str, ...]


def edge_key(edge: Edge) -> EdgeKey:
    """The identity of an edge in a document."""
    return (edge.source, edge.target, "|".join(edge.values))


def key_for(source: str, target: str, when: str | list[str] | None) -> EdgeKey:
    """The key an edge from `source` to `target` for `when` has (once blanks are dropped)."""
    return edge_key(Edge(source=source, target=target, when=_clean_when(when)))


class SopDocument:
    """An editable graph that reports every change through psygnal signals."""

    node_added = Signal(object)  # Node
    node_removed = Signal(str)  # node id
    node_changed = Signal(str, object)  # old id, new Node (a rename changes the id)
    edge_added = Signal(object)  # Edge
    edge_removed = Signal(object)  # Edge
    edge_changed = Signal(object, object)  # old Edge, new Edge
    fields_changed = Signal(object)  # dict[str, FieldSpec]
    reset = Signal()  # the whole graph was replaced
    changed = Signal()  # after every edit, once

    def __init__(self, graph: Graph | None = None, domain: DomainNames | None = None):
        self._graph = graph if graph is not None else new_graph()
        self.domain = domain

    # --- reading ----------------------------------------------------------------------------

    @property
    def graph(self) -> Graph:
        """The graph being edited (treat it as read-only; edit through the methods)."""
        return self._graph

    def node(self, node_id: str) -> Node:
        """The node with `node_id`; raises EditError when there is none."""
        node = self._graph.node(node_id)
        if node is None:
            raise EditError(f"there is no node {node_id!r}")
        return node

    def edge(self, key: EdgeKey) -> Edge:
        """The edge with `key`; raises EditError when there is none."""
        return self._graph.edges[self._edge_index(key)]

    def has_edge(self, key: EdgeKey) -> bool:
        """Whether the graph has the edge `key`."""
        return any(edge_key(e) == key for e in self._graph.edges)

    def edges_between(self, source: str, target: str) -> list[Edge]:
        """Every edge from `source` to `target`, in file order."""
        return [e for e in self._graph.edges if e.source == source and e.target == target]

    def unique_id(self, base: str) -> str:
        """`base`, or `base_2`, `base_3` ... whichever no node uses yet."""
        taken = {n.id for n in self._graph.nodes}
        base = "_".join(base.split()) or "node"
        if base not in taken:
            return base
        n = 2
        while f"{base}_{n}" in taken:
            n += 1
        return f"{base}_{n}"

    def problems(self) -> list[Problem]:
        """Every validation problem of the graph as it is now (with the domain's names when known)."""
        tools = self.domain.tools if self.domain else None
        names = self.domain.expr_names if self.domain else None
        return validate_graph(self._graph, tools=tools, expr_names=names, file=self._graph.name or "<graph>")

    def paths(self) -> list[SopPath]:
        """Every start-to-end path (raises SageError when there are too many)."""
        return enumerate_paths(self._graph)

    def suggest_when(self, source: str) -> str | None:
        """For a new edge out of a decision: the first value of its field no edge covers yet."""
        node = self._graph.node(source)
        if node is None or node.kind != NodeKind.DECISION or not node.field:
            return None
        spec = self._graph.fields.get(node.field)
        if spec is None:
            return None
        covered = {v for e in self._graph.out_edges(source) for v in e.values}
        return next((v for v in spec.values if v not in covered), None)

    def check_edge(self, source: str, target: str, when: str | list[str] | None = None) -> str | None:
        """Why an edge from `source` to `target` (for `when`) may not be added, or None when it may."""
        by_id = {n.id: n for n in self._graph.nodes}
        for end in (source, target):
            if end not in by_id:
                return f"there is no node {end!r}"
        if source == target:
            return "a node cannot lead to itself"
        if by_id[target].kind == NodeKind.START:
            return "nothing may lead back to the start"
        if by_id[source].kind == NodeKind.END:
            return f"{source!r} is an end node: nothing may follow it"
        if self.has_edge(key_for(source, target, when)):
            return f"{source!r} already leads to {target!r} for the same condition"
        return None

    # --- whole graph ------------------------------------------------------------------------

    def set_graph(self, graph: Graph, domain: DomainNames | None = None) -> None:
        """Replace the whole graph (open, new); not an undoable edit."""
        self._graph = graph
        self.domain = domain
        self.reset.emit()
        self.changed.emit()

    def set_fields(self, fields: dict[str, FieldSpec]) -> dict[str, FieldSpec]:
        """Replace the graph's field declarations; returns the old ones."""
        old = dict(self._graph.fields)
        self._graph.fields = dict(fields)
        self.fields_changed.emit(dict(self._graph.fields))
        self.changed.emit()
        return old

    # --- nodes ------------------------------------------------------------------------------

    def add_node(self, node: Node, index: int | None = None) -> Node:
        """Add `node` (at `index` in the file order, else last); refuses an id already in use."""
        self.insert(Fragment(nodes=[(len(self._graph.nodes) if index is None else index, node)]))
        return node

    def remove_node(self, node_id: str) -> Fragment:
        """Remove a node and every edge touching it; returns what was removed (for undo)."""
        self.node(node_id)
        return self.remove([node_id], [])

    def move_nodes(self, positions: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
        """Move nodes to new editor positions in one edit; returns their old positions."""
        for node_id in positions:
            self.node(node_id)
        old: dict[str, tuple[float, float]] = {}
        for node_id, pos in positions.items():
            index = self._node_index(node_id)
            node = self._graph.nodes[index]
            old[node_id] = node.pos
            new = node.model_copy(update={"pos": (round(float(pos[0]), 1), round(float(pos[1]), 1))})
            self._graph.nodes[index] = new
            self.node_changed.emit(node_id, new)
        self.changed.emit()
        return old

    def update_node(self, node_id: str, **attrs: Any) -> dict[str, Any]:
        """Change attributes of a node (renaming `id` rewrites its edges); returns the old values."""
        index = self._node_index(node_id)
        node = self._graph.nodes[index]
        new_id = attrs.get("id", node_id)
        if new_id != node_id and self._graph.node(new_id) is not None:
            raise EditError(f"another node already has the id {new_id!r}")
        try:
            new = Node.model_validate({**node.model_dump(), **attrs})
        except ValidationError as exc:
            raise EditError(_first_message(exc)) from None
        old = {key: getattr(node, key) for key in attrs}
        self._graph.nodes[index] = new
        self.node_changed.emit(node_id, new)
        if new_id != node_id:
            self._rename_in_edges(node_id, new_id)
        self.changed.emit()
        return old

    def _rename_in_edges(self, old_id: str, new_id: str) -> None:
        for i, edge in enumerate(self._graph.edges):
            if old_id not in (edge.source, edge.target):
                continue
            source = new_id if edge.source == old_id else edge.source
            target = new_id if edge.target == old_id else edge.target
            new = Edge(source=source, target=target, when=edge.when)
            self._graph.edges[i] = new
            self.edge_changed.emit(edge, new)

    # --- edges ------------------------------------------------------------------------------

    def add_edge(self, source: str, target: str, when: str | list[str] | None = None, index: int | None = None) -> Edge:
        """Add an edge; refuses (EditError) an unknown node, an edge into the start, out of an end, or a duplicate."""
        edge = Edge(source=source, target=target, when=_clean_when(when))
        self.insert(Fragment(edges=[(len(self._graph.edges) if index is None else index, edge)]))
        return edge

    def remove_edge(self, key: EdgeKey) -> Fragment:
        """Remove one edge; returns what was removed (for undo)."""
        self._edge_index(key)
        return self.remove([], [key])

    def update_edge(self, key: EdgeKey, when: str | list[str] | None) -> str | list[str] | None:
        """Set the condition value(s) of an edge; returns the old `when` (its key changes with it)."""
        index = self._edge_index(key)
        edge = self._graph.edges[index]
        new = Edge(source=edge.source, target=edge.target, when=_clean_when(when))
        if edge_key(new) != key and self.has_edge(edge_key(new)):
            raise EditError(f"{edge.source!r} already leads to {edge.target!r} for the same condition")
        self._graph.edges[index] = new
        self.edge_changed.emit(edge, new)
        self.changed.emit()
        return edge.when

    # --- several items at once (delete, paste, undo) ----------------------------------------

    def remove(self, node_ids: list[str], edge_keys: list[EdgeKey]) -> Fragment:
        """Remove nodes (with every edge touching them) and edges in one edit; returns what was removed."""
        gone = set(node_ids)
        keys = set(edge_keys)
        fragment = Fragment(
            nodes=[(i, n) for i, n in enumerate(self._graph.nodes) if n.id in gone],
            edges=[
                (i, e) for i, e in enumerate(self._graph.edges) if e.source in gone or e.target in gone or edge_key(e) in keys
            ],
        )
        if fragment.is_empty():
            return fragment
        for i, edge in reversed(fragment.edges):
            del self._graph.edges[i]
            self.edge_removed.emit(edge)
        for i, node in reversed(fragment.nodes):
            del self._graph.nodes[i]
            self.node_removed.emit(node.id)
        self.changed.emit()
        return fragment

    def insert(self, fragment: Fragment) -> None:
        """Add the nodes and edges of a fragment at their positions; refuses the lot if any would be bad."""
        self._check_insert(fragment)
        for i, node in sorted(fragment.nodes, key=lambda item: item[0]):
            self._graph.nodes.insert(i, node)
            self.node_added.emit(node)
        for i, edge in sorted(fragment.edges, key=lambda item: item[0]):
            self._graph.edges.insert(i, edge)
            self.edge_added.emit(edge)
        if not fragment.is_empty():
            self.changed.emit()

    def _check_insert(self, fragment: Fragment) -> None:
        ids = [n.id for n in self._graph.nodes]
        for _, node in fragment.nodes:
            if node.id in ids:
                raise EditError(f"another node already has the id {node.id!r}")
            ids.append(node.id)
        # check the edges against the graph as it will be once the nodes are in
        trial = SopDocument(
            self._graph.model_copy(
                update={"nodes": [*self._graph.nodes, *(n for _, n in fragment.nodes)], "edges": list(self._graph.edges)}
            )
        )
        for _, edge in fragment.edges:
            reason = trial.check_edge(edge.source, edge.target, edge.when)
            if reason:
                raise EditError(f"edge {edge.source!r} -> {edge.target!r}: {reason}")
            trial._graph.edges.append(edge)

    def copy(self, node_ids: list[str]) -> Fragment:
        """The given nodes and the edges between them (what Copy puts on the clipboard)."""
        chosen = set(node_ids)
        return Fragment(
            nodes=[(i, n.model_copy()) for i, n in enumerate(self._graph.nodes) if n.id in chosen],
            edges=[(i, e.model_copy()) for i, e in enumerate(self._graph.edges) if e.source in chosen and e.target in chosen],
        )

    def prepare_paste(self, fragment: Fragment, offset: tuple[float, float]) -> Fragment:
        """A copy of `fragment` with fresh ids, moved by `offset`, placed after everything in the graph."""
        renames: dict[str, str] = {}
        nodes: list[tuple[int, Node]] = []
        taken = SopDocument(self._graph.model_copy(update={"nodes": list(self._graph.nodes)}))
        for _, node in fragment.nodes:
            new_id = taken.unique_id(node.id)
            renames[node.id] = new_id
            pos = (node.pos[0] + offset[0], node.pos[1] + offset[1])
            new = node.model_copy(update={"id": new_id, "pos": pos})
            taken._graph.nodes.append(new)
            nodes.append((len(self._graph.nodes) + len(nodes), new))
        edges = [
            (len(self._graph.edges) + k, Edge(source=renames[e.source], target=renames[e.target], when=e.when))
            for k, (_, e) in enumerate(fragment.edges)
            if e.source in renames and e.target in renames
        ]
        return Fragment(nodes=nodes, edges=edges)

    # --- helpers ----------------------------------------------------------------------------

    def _node_index(self, node_id: str) -> int:
        for i, node in enumerate(self._graph.nodes):
            if node.id == node_id:
                return i
        raise EditError(f"there is no node {node_id!r}")

    def _edge_index(self, key: EdgeKey) -> int:
        for i, edge in enumerate(self._graph.edges):
            if edge_key(edge) == key:
                return i
        raise EditError(f"there is no edge {key[0]!r} -> {key[1]!r}" + (f" for {key[2]!r}" if key[2] else ""))


def new_graph(name: str = "untitled") -> Graph:
    """An empty graph to start drawing on."""
    return Graph(name=name)


def _clean_when(when: str | list[str] | None) -> str | list[str] | None:
    """One value as a string, several as a list, none as None (blank values dropped)."""
    values = [when] if isinstance(when, str) else list(when or [])
    values = [v.strip() for v in values if v and v.strip()]
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _first_message(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}" if where else err["msg"]
