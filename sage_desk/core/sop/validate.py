"""Graph validation: every problem, located at its YAML line.

Checks: duplicate ids, the start node, dangling edges, per-kind attributes, decision coverage
(every declared value has exactly one edge), unknown tools, bad argument expressions,
unreachable nodes, dead ends, and cycles with no way out.

With `warnings=True` it also reports scoring traps, as warnings (they do not stop a graph from
loading, but the verdicts would not mean what the author thinks): a helpdesk tool drawn as an
action node, and a graph whose every path ends `resolved` or `escalated` (no refusal or
request for information, so no adversarial trap can be synthesized from it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from sage_desk.core import expr
from sage_desk.core.errors import Problem
from sage_desk.core.sop.model import OUTCOMES, Graph, Node, NodeKind
from sage_desk.core.yamlsafe import Located

if TYPE_CHECKING:
    import networkx as nx


class _Report:
    """Collects problems, locating them through `located` when the graph came from a file."""

    def __init__(self, graph: Graph, located: Located | None, file: str):
        self.located = located or Located(file, None, {})
        self.index = {id(n): i for i, n in enumerate(graph.nodes)}
        self.problems: list[Problem] = []

    def node(self, node: Node, message: str, key: str | None = None, severity: str = "error") -> None:
        loc: tuple[str | int, ...] = ("nodes", self.index[id(node)])
        if key:
            loc += (key,)
        self.problems.append(self.located.problem(loc, f"node {node.id!r}: {message}", node.id, severity))

    def edge(self, index: int, message: str, node: str | None = None) -> None:
        self.problems.append(self.located.problem(("edges", index), message, node))

    def at(self, loc: tuple[str | int, ...], message: str, severity: str = "error") -> None:
        self.problems.append(self.located.problem(loc, message, severity=severity))


def to_networkx(graph: Graph) -> nx.DiGraph:
    """The graph as a networkx DiGraph over node ids (edges to unknown ids are left out)."""
    import networkx as nx  # a second's import, not needed by validation itself

    g = nx.DiGraph()
    ids = {n.id for n in graph.nodes}
    g.add_nodes_from(ids)
    g.add_edges_from((e.source, e.target) for e in graph.edges if e.source in ids and e.target in ids)
    return g


def validate_graph(
    graph: Graph,
    located: Located | None = None,
    *,
    tools: Collection[str] | None = None,
    expr_names: Collection[str] | None = None,
    file: str = "<graph>",
    warnings: bool = False,
) -> list[Problem]:
    """Every problem of `graph`, sorted by position. `tools` and `expr_names` come from the domain;
    `warnings` adds the scoring traps (see the module doc)."""
    report = _Report(graph, located, file)
    by_id = _check_ids(graph, report)
    _check_edges(graph, by_id, report)
    for node in graph.nodes:
        _check_node(graph, node, report, tools, expr_names)
    _check_structure(graph, by_id, report)
    if warnings:
        _check_scoring(graph, by_id, report)
    return sorted(set(report.problems), key=lambda p: (p.line, p.col, p.message))


_HELPDESK_NODES = {
    "tag_ticket": "tag_ticket on the graph is read as the classification step: the classification rule scores "
    "the agent's tags, and action accuracy does not count it as an action",
    "close_ticket": "close_ticket is how the agent ends a ticket: the rules read the ending against the end node's "
    "outcome and ignore this node; end the path with an end node instead",
}


def _check_scoring(graph: Graph, by_id: dict[str, Node], report: _Report) -> None:
    """Graphs that load but would score wrongly: warnings, located."""
    for node in graph.nodes:
        if node.kind != NodeKind.ACTION or not node.tool:
            continue
        if node.tool in _HELPDESK_NODES:
            report.node(node, _HELPDESK_NODES[node.tool], "tool", severity="warning")
        elif node.tool == "handover_to_human":
            after = [by_id.get(e.target) for e in graph.out_edges(node.id)]
            if not all(n is not None and n.kind == NodeKind.END and n.outcome == "escalated" for n in after):
                report.node(
                    node,
                    "handover_to_human is read as the handover of an escalation path: "
                    "lead it straight to an end node with outcome 'escalated'",
                    "tool",
                    severity="warning",
                )
    outcomes = {n.outcome for n in graph.nodes if n.kind == NodeKind.END and n.outcome}
    if outcomes and outcomes <= {"resolved", "escalated"}:
        report.at(
            ("nodes",),
            "every path ends resolved or escalated: with no refusal or request for information, "
            "no adversarial trap can be synthesized from this graph",
            severity="warning",
        )


def _check_ids(graph: Graph, report: _Report) -> dict[str, Node]:
    by_id: dict[str, Node] = {}
    for node in graph.nodes:
        if node.id in by_id:
            report.node(node, "duplicate id (another node already uses it)", "id")
        else:
            by_id[node.id] = node
    starts = [n for n in graph.nodes if n.kind == NodeKind.START]
    if not starts:
        report.at(("nodes",), "the graph has no start node")
    for extra in starts[1:]:
        report.node(extra, "a second start node (a graph has exactly one)", "kind")
    if not any(n.kind == NodeKind.END for n in graph.nodes):
        report.at(("nodes",), "the graph has no end node")
    return by_id


def _check_edges(graph: Graph, by_id: dict[str, Node], report: _Report) -> None:
    seen: Counter[tuple[str, str, str]] = Counter()
    for i, edge in enumerate(graph.edges):
        for end, name in ((edge.source, "from"), (edge.target, "to")):
            if end not in by_id:
                report.edge(i, f"edge {edge.source!r} -> {edge.target!r}: unknown node {end!r} in '{name}'")
        triple = (edge.source, edge.target, "|".join(edge.values))
        seen[triple] += 1
        if seen[triple] == 2:
            report.edge(i, f"edge {edge.source!r} -> {edge.target!r} appears twice", edge.source)
        source = by_id.get(edge.source)
        if source is not None and source.kind != NodeKind.DECISION and edge.when is not None:
            report.edge(i, f"edge {edge.source!r} -> {edge.target!r}: only edges leaving a decision carry 'when'", edge.source)
        if source is not None and source.kind == NodeKind.DECISION and not edge.values:
            report.edge(i, f"edge {edge.source!r} -> {edge.target!r}: an edge leaving a decision needs 'when'", edge.source)
        target = by_id.get(edge.target)
        if target is not None and target.kind == NodeKind.START:
            report.edge(i, f"edge {edge.source!r} -> {edge.target!r}: nothing may lead back to the start", edge.target)


def _check_node(
    graph: Graph, node: Node, report: _Report, tools: Collection[str] | None, expr_names: Collection[str] | None
) -> None:
    outs = graph.out_edges(node.id)
    kind = node.kind
    _check_attrs(node, report)
    if kind in (NodeKind.START, NodeKind.ACTION) and len(outs) > 1:
        report.node(
            node, f"{_article(kind)} {kind.value} node has exactly one next step, found {len(outs)} (branch with a decision)"
        )
    if kind == NodeKind.END and outs:
        report.node(node, "an end node must not lead anywhere")
    if kind == NodeKind.DECISION:
        _check_decision(graph, node, report)
    if kind == NodeKind.ACTION:
        if node.tool and tools is not None and node.tool not in tools:
            report.node(node, f"unknown tool {node.tool!r} (the domain has: {', '.join(sorted(tools))})", "tool")
        for name, value in node.args.items():
            if isinstance(value, str) and value.startswith("="):
                problem = expr.check(value[1:], expr_names)
                if problem:
                    report.node(node, f"argument {name!r}: {problem}", "args")
    if kind == NodeKind.END and node.outcome is not None and node.outcome not in OUTCOMES:
        report.node(node, f"unknown outcome {node.outcome!r} (one of: {', '.join(OUTCOMES)})", "outcome")


def _article(kind: NodeKind) -> str:
    return "an" if kind.value[0] in "aeiou" else "a"


_ATTRS = {
    NodeKind.START: set(),
    NodeKind.DECISION: {"field"},
    NodeKind.ACTION: {"tool", "args", "say"},
    NodeKind.END: {"outcome"},
}


def _check_attrs(node: Node, report: _Report) -> None:
    for attr in ("field", "tool", "say", "outcome", "args"):
        value = getattr(node, attr)
        if value and attr not in _ATTRS[node.kind]:
            report.node(node, f"'{attr}' does not apply to {_article(node.kind)} {node.kind.value} node", attr)
    if node.kind == NodeKind.DECISION and not node.field:
        report.node(node, "a decision needs a 'field' to branch on")
    if node.kind == NodeKind.ACTION and bool(node.tool) == bool(node.say):
        report.node(node, "an action needs either 'tool' or 'say' (exactly one)")
    if node.kind == NodeKind.ACTION and node.say and node.args:
        report.node(node, "'args' only apply to a tool action", "args")
    if node.kind == NodeKind.END and not node.outcome:
        report.node(node, f"an end node needs an 'outcome' ({', '.join(OUTCOMES)})")


def _check_decision(graph: Graph, node: Node, report: _Report) -> None:
    if not node.field:
        return
    spec = graph.fields.get(node.field)
    if spec is None:
        known = ", ".join(graph.fields) or "none declared"
        report.node(node, f"unknown field {node.field!r} (fields: {known})", "field")
        return
    covered: Counter[str] = Counter()
    for index, edge in enumerate(graph.edges):
        if edge.source != node.id:
            continue
        for value in edge.values:
            covered[value] += 1
            if value not in spec.values:
                report.edge(
                    index,
                    f"edge {edge.source!r} -> {edge.target!r}: {value!r} is not a value of {node.field!r} ({', '.join(spec.values)})",
                    node.id,
                )
    for value in spec.values:
        if covered[value] == 0:
            report.node(node, f"value {value!r} of {node.field!r} is not covered by any edge", "field")
        elif covered[value] > 1:
            report.node(node, f"value {value!r} of {node.field!r} is on {covered[value]} edges", "field")


def reachable(links: Mapping[str, set[str]], starts: Collection[str]) -> set[str]:
    """The ids reachable from `starts` along `links` (the starts included)."""
    seen, todo = set(starts), list(starts)
    while todo:
        for nxt in links[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def successors(graph: Graph, ids: Collection[str]) -> dict[str, set[str]]:
    """Each of `ids` -> the ids its edges lead to (edges from or to other ids are left out)."""
    links: dict[str, set[str]] = {node_id: set() for node_id in ids}
    for edge in graph.edges:
        if edge.source in links and edge.target in links:
            links[edge.source].add(edge.target)
    return links


def _check_structure(graph: Graph, by_id: dict[str, Node], report: _Report) -> None:
    # plain breadth-first reachability: networkx would cost its import when the editor opens
    forward = successors(graph, by_id)
    backward: dict[str, set[str]] = {node_id: set() for node_id in by_id}
    for source, targets in forward.items():
        for target in targets:
            backward[target].add(source)
    start = graph.start()
    from_start = reachable(forward, [start.id]) if start else set(by_id)
    can_finish = reachable(backward, [n.id for n in graph.nodes if n.kind == NodeKind.END and n.id in by_id])
    for node_id, node in by_id.items():
        if node_id not in from_start:
            report.node(node, "unreachable from the start")
        elif node.kind != NodeKind.END and not forward[node_id]:
            report.node(node, "dead end: nothing follows it and it is not an end node")
        elif node_id not in can_finish:
            report.node(node, "no way out: every path from here loops without reaching an end")
