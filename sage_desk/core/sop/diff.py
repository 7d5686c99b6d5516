"""How two graphs differ: nodes, edges and decision conditions (`sage-desk diff-sop`).

Nodes are matched by id first. The rest are matched by content, so that a drafted graph with ids
of its own can be compared with the hand-made one: a pair must be of the same kind, and scores
1 for the same key (decision field, tool, end outcome; the start), plus the similarity of its
texts (label and say, 0-1), plus the share of its neighbours already matched to each other (0-1).
Pairs are taken greedily, best score first (neighbours are re-counted after each pair, so a
match helps its neighbours match), while the score is at least `MIN_SCORE`.

Edges are compared through that matching, per pair of nodes: the set of decision values that
lead from one to the other. One edge `when: [a, b]` and two edges `when: a`, `when: b` are the
same condition. Editor positions, notes and cited source sentences are not compared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.sop.model import Graph, Node, NodeKind

MIN_SCORE = 0.6
COMPARED = ("kind", "label", "field", "tool", "args", "say", "outcome")
EdgeRef = tuple[str, str, tuple[str, ...]]


@dataclass
class NodeChange:
    """A node found in both graphs whose attributes differ (or whose id does)."""

    old_id: str
    new_id: str
    changes: dict[str, tuple[Json, Json]]
    by: str  # "id" or "content": how the two were matched


@dataclass
class ConditionChange:
    """Both graphs lead from `source` to `target` (new ids), for other decision values."""

    source: str
    target: str
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass
class GraphDiff:
    """Every difference between graph `a` (old) and graph `b` (new)."""

    matches: dict[str, str]
    nodes_removed: list[Node] = field(default_factory=list)
    nodes_added: list[Node] = field(default_factory=list)
    nodes_changed: list[NodeChange] = field(default_factory=list)
    edges_removed: list[EdgeRef] = field(default_factory=list)
    edges_added: list[EdgeRef] = field(default_factory=list)
    conditions_changed: list[ConditionChange] = field(default_factory=list)
    fields_removed: list[str] = field(default_factory=list)
    fields_added: list[str] = field(default_factory=list)
    fields_changed: dict[str, dict[str, tuple[Json, Json]]] = field(default_factory=dict)

    def is_equal(self) -> bool:
        """Whether the two graphs are the same (positions, notes and cites aside)."""
        return not (
            self.nodes_removed
            or self.nodes_added
            or self.nodes_changed
            or self.edges_removed
            or self.edges_added
            or self.conditions_changed
            or self.fields_removed
            or self.fields_added
            or self.fields_changed
        )

    def count(self) -> int:
        """How many differences there are."""
        return sum(
            len(x)
            for x in (
                self.nodes_removed,
                self.nodes_added,
                self.nodes_changed,
                self.edges_removed,
                self.edges_added,
                self.conditions_changed,
                self.fields_removed,
                self.fields_added,
                self.fields_changed,
            )
        )

    def to_json(self) -> JsonObject:
        """The diff as plain JSON data."""

        def edge(e: EdgeRef) -> JsonObject:
            return {"from": e[0], "to": e[1], "when": list(e[2])}

        return {
            "equal": self.is_equal(),
            "matches": self.matches,
            "nodes": {
                "removed": [n.model_dump(mode="json", exclude_defaults=True, exclude={"pos"}) for n in self.nodes_removed],
                "added": [n.model_dump(mode="json", exclude_defaults=True, exclude={"pos"}) for n in self.nodes_added],
                "changed": [
                    {
                        "old_id": c.old_id,
                        "new_id": c.new_id,
                        "matched_by": c.by,
                        "changes": {k: {"old": _plain(o), "new": _plain(n)} for k, (o, n) in c.changes.items()},
                    }
                    for c in self.nodes_changed
                ],
            },
            "edges": {
                "removed": [edge(e) for e in self.edges_removed],
                "added": [edge(e) for e in self.edges_added],
                "conditions_changed": [
                    {"from": c.source, "to": c.target, "old": list(c.old), "new": list(c.new)} for c in self.conditions_changed
                ],
            },
            "fields": {
                "removed": self.fields_removed,
                "added": self.fields_added,
                "changed": {
                    n: {k: {"old": _plain(o), "new": _plain(v)} for k, (o, v) in c.items()}
                    for n, c in self.fields_changed.items()
                },
            },
        }

    def to_text(self) -> str:
        """The diff for a person: one line per difference, `-` removed, `+` added, `~` changed."""
        lines: list[str] = []
        lines += [f"- node {_describe(n)}" for n in self.nodes_removed]
        lines += [f"+ node {_describe(n)}" for n in self.nodes_added]
        for change in self.nodes_changed:
            name = change.new_id if change.old_id == change.new_id else f"{change.old_id} -> {change.new_id}"
            how = " (matched by content)" if change.by == "content" else ""
            parts = [f"{k}: {_show(o)} -> {_show(n)}" for k, (o, n) in change.changes.items()] or ["renamed"]
            lines.append(f"~ node {name}{how}: " + "; ".join(parts))
        lines += [f"- edge {_edge(e)}" for e in self.edges_removed]
        lines += [f"+ edge {_edge(e)}" for e in self.edges_added]
        lines += [f"~ edge {c.source} -> {c.target}: when {_values(c.old)} -> {_values(c.new)}" for c in self.conditions_changed]
        lines += [f"- field {n}" for n in self.fields_removed]
        lines += [f"+ field {n}" for n in self.fields_added]
        for name, changes in self.fields_changed.items():
            lines.append(f"~ field {name}: " + "; ".join(f"{k}: {_show(o)} -> {_show(n)}" for k, (o, n) in changes.items()))
        lines.append("the graphs are the same" if self.is_equal() else f"{self.count()} difference(s)")
        return "\n".join(lines)


def _plain(value: Json) -> Json:
    return value.value if isinstance(value, NodeKind) else value


def _show(value: Json) -> str:
    value = _plain(value)
    if value in (None, "", {}):
        return "(none)"
    return repr(value) if isinstance(value, str) else str(value)


def _values(values: tuple[str, ...]) -> str:
    return " | ".join(values) if values else "(always)"


def _edge(e: EdgeRef) -> str:
    return f"{e[0]} -> {e[1]}" + (f" when {_values(e[2])}" if e[2] else "")


def _describe(node: Node) -> str:
    detail = node.field or node.tool or node.outcome or (f"say {node.say!r}" if node.say else "")
    return f"{node.id} ({node.kind.value}{': ' + detail if detail else ''})" + (f" {node.label!r}" if node.label else "")


# --- matching ---------------------------------------------------------------------------------

_WORDS = re.compile(r"[a-z0-9]+")


def _text(node: Node) -> str:
    return " ".join(_WORDS.findall(f"{node.label} {node.say or ''}".lower()))


def _key_score(x: Node, y: Node) -> float:
    if x.kind == NodeKind.START:
        return 1.0
    pairs = {NodeKind.DECISION: (x.field, y.field), NodeKind.ACTION: (x.tool, y.tool), NodeKind.END: (x.outcome, y.outcome)}
    a, b = pairs[x.kind]
    return 1.0 if a and a == b else 0.0


class _Matcher:
    """Greedy content matching over the nodes id matching left (see the module docstring)."""

    def __init__(self, a: Graph, b: Graph, matches: dict[str, str]):
        self.a, self.b = a, b
        self.matches = matches
        self.a_in, self.a_out = _adjacency(a)
        self.b_in, self.b_out = _adjacency(b)
        self._text_cache: dict[tuple[str, str], float] = {}

    def text_score(self, x: Node, y: Node) -> float:
        key = (x.id, y.id)
        if key not in self._text_cache:
            tx, ty = _text(x), _text(y)
            self._text_cache[key] = SequenceMatcher(None, tx, ty, autojunk=False).ratio() if tx and ty else 0.0
        return self._text_cache[key]

    def neighbour_score(self, x: Node, y: Node) -> float:
        agree = sum(1 for p in self.a_in[x.id] if self.matches.get(p) in self.b_in[y.id])
        agree += sum(1 for s in self.a_out[x.id] if self.matches.get(s) in self.b_out[y.id])
        degree = max(len(self.a_in[x.id]) + len(self.a_out[x.id]), len(self.b_in[y.id]) + len(self.b_out[y.id]), 1)
        return agree / degree

    def run(self) -> dict[str, str]:
        taken = set(self.matches.values())
        left = [n for n in self.a.nodes if n.id not in self.matches]
        right = [n for n in self.b.nodes if n.id not in taken]
        while left and right:
            best, pair = MIN_SCORE, None
            for x in left:
                for y in right:
                    if x.kind != y.kind:
                        continue
                    score = _key_score(x, y) + self.text_score(x, y) + self.neighbour_score(x, y)
                    if score > best + 1e-9:
                        best, pair = score, (x, y)
            if pair is None:
                break
            self.matches[pair[0].id] = pair[1].id
            left.remove(pair[0])
            right.remove(pair[1])
        return self.matches


def _adjacency(graph: Graph) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    incoming: dict[str, set[str]] = {n.id: set() for n in graph.nodes}
    outgoing: dict[str, set[str]] = {n.id: set() for n in graph.nodes}
    for edge in graph.edges:
        if edge.source in outgoing and edge.target in incoming:
            outgoing[edge.source].add(edge.target)
            incoming[edge.target].add(edge.source)
    return incoming, outgoing


def match_nodes(a: Graph, b: Graph) -> tuple[dict[str, str], dict[str, str]]:
    """Node ids of `a` -> node ids of `b` for the nodes both have, and how each pair was matched."""
    b_ids = {n.id for n in b.nodes}
    by_id = {n.id: n.id for n in a.nodes if n.id in b_ids}
    matches = _Matcher(a, b, dict(by_id)).run()
    return matches, {x: ("id" if x in by_id else "content") for x in matches}


# --- the diff ---------------------------------------------------------------------------------


def diff_graphs(a: Graph, b: Graph) -> GraphDiff:
    """Every difference between `a` (old) and `b` (new), after matching their nodes."""
    matches, how = match_nodes(a, b)
    diff = GraphDiff(matches=matches)
    matched_b = set(matches.values())
    diff.nodes_removed = [n for n in a.nodes if n.id not in matches]
    diff.nodes_added = [n for n in b.nodes if n.id not in matched_b]
    b_nodes = {n.id: n for n in b.nodes}
    for node in a.nodes:
        if node.id in matches:
            other = b_nodes[matches[node.id]]
            changes = {k: (getattr(node, k), getattr(other, k)) for k in COMPARED if getattr(node, k) != getattr(other, k)}
            if changes or node.id != other.id:
                diff.nodes_changed.append(NodeChange(node.id, other.id, changes, how[node.id]))
    _diff_edges(a, b, matches, diff)
    _diff_fields(a, b, diff)
    return diff


def edge_conditions(graph: Graph, rename: dict[str, str] | None = None) -> dict[tuple[str, str], set[str]]:
    """(source, target) -> the decision values leading there (empty for a plain step), ids renamed."""
    rename = rename if rename is not None else {n.id: n.id for n in graph.nodes}
    out: dict[tuple[str, str], set[str]] = {}
    for edge in graph.edges:
        if edge.source in rename and edge.target in rename:
            out.setdefault((rename[edge.source], rename[edge.target]), set()).update(edge.values)
    return out


def _diff_edges(a: Graph, b: Graph, matches: dict[str, str], diff: GraphDiff) -> None:
    back = {v: k for k, v in matches.items()}
    old = edge_conditions(a, matches)
    new = edge_conditions(b)
    for edge in a.edges:
        if edge.source not in matches or edge.target not in matches:
            diff.edges_removed.append((edge.source, edge.target, tuple(edge.values)))
    for (s, t), values in old.items():
        if (s, t) not in new:
            diff.edges_removed.append((back[s], back[t], tuple(sorted(values))))
        elif new[(s, t)] != values:
            diff.conditions_changed.append(ConditionChange(s, t, tuple(sorted(values)), tuple(sorted(new[(s, t)]))))
    for edge in b.edges:
        if edge.source not in back or edge.target not in back:
            diff.edges_added.append((edge.source, edge.target, tuple(edge.values)))
    for (s, t), values in new.items():
        if (s, t) not in old and s in back and t in back:
            diff.edges_added.append((s, t, tuple(sorted(values))))


def _diff_fields(a: Graph, b: Graph, diff: GraphDiff) -> None:
    diff.fields_removed = [n for n in a.fields if n not in b.fields]
    diff.fields_added = [n for n in b.fields if n not in a.fields]
    for name, spec in a.fields.items():
        other = b.fields.get(name)
        if other is None:
            continue
        changes: dict[str, tuple[Json, Json]] = {}
        if spec.source != other.source:
            changes["source"] = (spec.source.value, other.source.value)
        if set(spec.values) != set(other.values):
            changes["values"] = (spec.values, other.values)
        if changes:
            diff.fields_changed[name] = changes


@dataclass(frozen=True)
class Agreement:
    """How close a drafted graph is to a reference one, after matching (node and edge precision/recall)."""

    nodes_matched: int
    draft_nodes: int
    reference_nodes: int
    edges_matched: int
    draft_edges: int
    reference_edges: int

    @staticmethod
    def _ratio(part: int, whole: int) -> float:
        return part / whole if whole else 0.0

    @property
    def node_precision(self) -> float:
        return self._ratio(self.nodes_matched, self.draft_nodes)

    @property
    def node_recall(self) -> float:
        return self._ratio(self.nodes_matched, self.reference_nodes)

    @property
    def edge_precision(self) -> float:
        return self._ratio(self.edges_matched, self.draft_edges)

    @property
    def edge_recall(self) -> float:
        return self._ratio(self.edges_matched, self.reference_edges)


def _edge_units(conditions: dict[tuple[str, str], set[str]]) -> set[tuple[str, str, str | None]]:
    """One unit per decision value (or per plain step), so a missing branch value counts once."""
    units: set[tuple[str, str, str | None]] = set()
    for (s, t), values in conditions.items():
        units |= {(s, t, v) for v in values} if values else {(s, t, None)}
    return units


def agreement(draft: Graph, reference: Graph) -> Agreement:
    """Node and edge agreement of `draft` with `reference`; a node pair counts when its kinds agree."""
    matches, _ = match_nodes(draft, reference)
    ref_nodes = {n.id: n for n in reference.nodes}
    good = {d: r for d, r in matches.items() if (n := draft.node(d)) is not None and n.kind == ref_nodes[r].kind}
    mapped = _edge_units(edge_conditions(draft, good))
    drafted = _edge_units(edge_conditions(draft))
    expected = _edge_units(edge_conditions(reference))
    return Agreement(len(good), len(draft.nodes), len(reference.nodes), len(mapped & expected), len(drafted), len(expected))
