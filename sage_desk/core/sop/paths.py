"""Path enumeration: every start-to-end path with the field assignments that select it.

A path is the ground truth of a case (SAGE's comprehensive path coverage): its action nodes are the
expected actions and its end node the expected outcome. Paths are simple (no node twice) and
consistent (a field decided twice along one path takes the same value both times).

A path's id is the sequence of decision values it takes, joined by `/` (`damaged/yes/delivered`);
an edge that stands for several values contributes them joined by `+`. The id therefore survives
edits that do not change the decisions, and a reader can tell the path from its id.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sage_desk.core.errors import SageError
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.sop.model import Graph, Node, NodeKind

MAX_PATHS = 100_000


@dataclass
class Path:
    """One start-to-end path."""

    id: str
    nodes: list[str]
    assignments: dict[str, str | list[str]] = field(default_factory=dict)
    actions: list[JsonObject] = field(default_factory=list)
    outcome: str | None = None

    @property
    def end(self) -> str:
        return self.nodes[-1]

    def allows(self, field_name: str, value: str) -> bool:
        """Whether this path is selected when `field_name` takes `value` (unassigned fields allow any)."""
        chosen = self.assignments.get(field_name)
        if chosen is None:
            return True
        return value in chosen if isinstance(chosen, list) else value == chosen

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "nodes": self.nodes,
            "actions": self.actions,
            "assignments": self.assignments,
            "outcome": self.outcome,
        }


def _action(node: Node) -> JsonObject:
    if node.tool:
        return {"node": node.id, "tool": node.tool, "args": dict(node.args)}
    return {"node": node.id, "say": node.say}


def enumerate_paths(graph: Graph, limit: int = MAX_PATHS) -> list[Path]:
    """All simple, consistent start-to-end paths, in depth-first order of the file's edges."""
    start = graph.start()
    if start is None:
        return []
    by_id = {n.id: n for n in graph.nodes}
    out: dict[str, list] = {}
    for edge in graph.edges:
        out.setdefault(edge.source, []).append(edge)
    paths: list[Path] = []
    # Iterative DFS: (node id, nodes so far, assignments, id tokens)
    stack: list[tuple[str, list[str], JsonObject, list[str]]] = [(start.id, [start.id], {}, [])]
    while stack:
        node_id, nodes, assigned, tokens = stack.pop()
        node = by_id[node_id]
        if node.kind == NodeKind.END:
            paths.append(_make_path(by_id, nodes, assigned, tokens))
            if len(paths) > limit:
                raise SageError(f"the graph has more than {limit:,} paths; split it into smaller procedures")
            continue
        children = []
        for edge in out.get(node_id, []):
            if edge.target not in by_id or edge.target in nodes:
                continue
            step_assigned, step_tokens = assigned, tokens
            if node.kind == NodeKind.DECISION and node.field:
                values = edge.values
                if not values:
                    continue
                prior = assigned.get(node.field)
                if prior is not None:
                    prior_set = set(prior) if isinstance(prior, list) else {prior}
                    values = [v for v in values if v in prior_set]
                    if not values:
                        continue  # inconsistent with an earlier decision on the same field
                chosen: str | list[str] = values[0] if len(values) == 1 else values
                step_assigned = {**assigned, node.field: chosen}
                step_tokens = tokens + ["+".join(values)]
            children.append((edge.target, nodes + [edge.target], step_assigned, step_tokens))
        stack.extend(reversed(children))
    return _unique_ids(paths)


def _make_path(by_id: dict[str, Node], nodes: list[str], assigned: dict, tokens: list[str]) -> Path:
    actions = [_action(by_id[n]) for n in nodes if by_id[n].kind == NodeKind.ACTION]
    return Path(
        id="/".join(tokens) or "main", nodes=nodes, assignments=assigned, actions=actions, outcome=by_id[nodes[-1]].outcome
    )


def _unique_ids(paths: list[Path]) -> list[Path]:
    seen: dict[str, int] = {}
    for path in paths:
        n = seen.get(path.id, 0) + 1
        seen[path.id] = n
        if n > 1:
            path.id = f"{path.id}~{n}"
    return paths
