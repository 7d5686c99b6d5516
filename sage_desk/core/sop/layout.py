"""Top-down layered layout for graphs (the editor's auto-layout and drafted graphs)."""

from __future__ import annotations

import networkx as nx

from sage_desk.core.sop.model import Graph

X_GAP, Y_GAP = 200.0, 120.0


def layered_positions(graph: Graph) -> dict[str, tuple[float, float]]:
    """Positions that put each node one layer below its deepest parent, centred per layer.

    Layers follow the longest path from the start over the graph's DAG (back edges of any cycle
    are ignored); within a layer, nodes keep the order of their first parent to limit crossings.
    """
    g = nx.DiGraph()
    g.add_nodes_from(n.id for n in graph.nodes)
    g.add_edges_from((e.source, e.target) for e in graph.edges if e.source in g and e.target in g)
    dag = nx.DiGraph(g)
    while not nx.is_directed_acyclic_graph(dag):
        cycle = nx.find_cycle(dag)
        dag.remove_edge(*cycle[-1][:2])
    layer: dict[str, int] = {}
    for node in nx.topological_sort(dag):
        preds = list(dag.predecessors(node))
        layer[node] = 1 + max((layer[p] for p in preds), default=-1)
    order: dict[str, float] = {}
    rows: dict[int, list[str]] = {}
    for node in sorted(layer, key=lambda n: layer[n]):
        rows.setdefault(layer[node], []).append(node)
    positions: dict[str, tuple[float, float]] = {}
    for depth in sorted(rows):
        members = rows[depth]
        members.sort(key=lambda n: min((order.get(p, 0.0) for p in dag.predecessors(n)), default=0.0))
        width = (len(members) - 1) * X_GAP
        for i, node in enumerate(members):
            order[node] = float(i)
            positions[node] = (round(i * X_GAP - width / 2, 1), round(depth * Y_GAP, 1))
    return positions


def apply_layout(graph: Graph) -> Graph:
    """A copy of `graph` with every node placed by `layered_positions`."""
    positions = layered_positions(graph)
    nodes = [n.model_copy(update={"pos": positions.get(n.id, n.pos)}) for n in graph.nodes]
    return graph.model_copy(update={"nodes": nodes})
