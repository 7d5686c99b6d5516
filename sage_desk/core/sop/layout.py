"""Top-down layered layout for graphs (the editor's auto-layout and drafted graphs).

Layers follow the longest path from the start; a layer wider than `MAX_ROW` nodes wraps onto
several rows (so a decision with twenty branches does not make the graph twenty nodes wide), and
every end node sits on the last layer, where the many edges into a shared ending meet.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sage_desk.core.sop.model import Graph, NodeKind

if TYPE_CHECKING:
    import networkx as nx

X_GAP, Y_GAP = 200.0, 120.0
ROW_GAP = 100.0
"""Between the rows of one wrapped layer."""
MAX_ROW = 6
"""Nodes per row at most; a wider layer wraps."""


def _acyclic(graph: Graph) -> nx.DiGraph:
    import networkx as nx  # on the first layout, not when the editor opens

    dag = nx.DiGraph()
    dag.add_nodes_from(n.id for n in graph.nodes)
    dag.add_edges_from((e.source, e.target) for e in graph.edges if e.source in dag and e.target in dag)
    while not nx.is_directed_acyclic_graph(dag):
        cycle = nx.find_cycle(dag)
        dag.remove_edge(*cycle[-1][:2])  # back edges of a cycle are ignored
    return dag


def _layers(graph: Graph, dag: nx.DiGraph) -> dict[int, list[str]]:
    import networkx as nx

    layer: dict[str, int] = {}
    for node in nx.topological_sort(dag):
        layer[node] = 1 + max((layer[p] for p in dag.predecessors(node)), default=-1)
    ends = {n.id for n in graph.nodes if n.kind == NodeKind.END}
    others = [layer[n] for n in layer if n not in ends]
    last = max(others, default=-1) + 1
    rows: dict[int, list[str]] = {}
    for node in sorted(layer, key=lambda n: layer[n]):
        rows.setdefault(last if node in ends else layer[node], []).append(node)
    return rows


def _wrap(members: list[str]) -> list[list[str]]:
    """A layer as balanced rows of at most MAX_ROW nodes."""
    count = math.ceil(len(members) / MAX_ROW)
    size = math.ceil(len(members) / count)
    return [members[i : i + size] for i in range(0, len(members), size)]


def layered_positions(graph: Graph) -> dict[str, tuple[float, float]]:
    """Positions that put each node one layer below its deepest parent, centred per row.

    Within a layer, nodes keep the order of their parents to limit crossings; wrapped rows are
    staggered by half a gap so edges to a lower row pass between the nodes of the row above.
    """
    dag = _acyclic(graph)
    order: dict[str, float] = {}
    positions: dict[str, tuple[float, float]] = {}
    y = 0.0
    for _depth, members in sorted(_layers(graph, dag).items()):
        members.sort(key=lambda n: min((order.get(p, 0.0) for p in dag.predecessors(n)), default=0.0))
        rows = _wrap(members)
        for number, row in enumerate(rows):
            stagger = X_GAP / 2 if len(rows) > 1 and number % 2 else 0.0
            width = (len(row) - 1) * X_GAP
            for i, node in enumerate(row):
                order[node] = float(number * MAX_ROW + i)
                positions[node] = (round(i * X_GAP - width / 2 + stagger, 1), round(y, 1))
            y += ROW_GAP if number < len(rows) - 1 else Y_GAP
    return positions


def widest_row(graph: Graph) -> int:
    """How many nodes share the most crowded row of the graph's stored layout."""
    counts: dict[float, int] = {}
    for node in graph.nodes:
        counts[node.pos[1]] = counts.get(node.pos[1], 0) + 1
    return max(counts.values(), default=0)


def apply_layout(graph: Graph) -> Graph:
    """A copy of `graph` with every node placed by `layered_positions`."""
    positions = layered_positions(graph)
    nodes = [n.model_copy(update={"pos": positions.get(n.id, n.pos)}) for n in graph.nodes]
    return graph.model_copy(update={"nodes": nodes})
