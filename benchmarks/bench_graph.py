"""Benchmark: validate and enumerate the paths of a 1,000-node SOP graph, and load its YAML.

The graph has a realistic shape: a procedure in stages (identify, triage, resolve, follow-up,
close), each a tree of decisions with 2-4 values and short chains of actions, most leaves ending
the ticket and a few handing on to the next stage. Fields come from a shared pool, so some are
decided twice along a path and the enumerator prunes inconsistent paths. Paths stay in the low
thousands, as for a large real SOP.

    python benchmarks/bench_graph.py [--nodes 1000] [--runs 7] [--seed 2]

Prints the median of several runs for: validate, enumerate, and load+parse of the YAML text.
The target is well under a second for validate + enumerate.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sage_desk.core.sop import Edge, FieldSpec, Graph, Node, dumps_graph, enumerate_paths, validate_graph
from sage_desk.core.sop.io import load_graph_located

STAGES = ("identify", "triage", "resolve", "follow_up", "close")
TOOLS = [f"tool_{i}" for i in range(25)]
OUTCOMES = ("resolved", "refused", "escalated", "info_requested")
CONTINUING_LEAVES = 3  # leaves per stage that hand on to the next stage


class _Builder:
    """Grows the graph stage by stage within a node budget."""

    def __init__(self, rng: random.Random, nodes: int):
        self.rng = rng
        self.target = nodes
        self.fields = {
            f"F{i}": FieldSpec(source="user" if i % 3 else "system", values=[f"v{j}" for j in range(rng.randint(2, 4))])
            for i in range(150)
        }
        self.nodes: list[Node] = [Node(id="start", kind="start")]
        self.edges: list[Edge] = []
        self.pending: list[tuple[str, str | list[str] | None]] = []  # leaves waiting for the next stage

    def _add(self, kind: str, **attrs: Any) -> str:
        node = Node(id=f"n{len(self.nodes)}", kind=kind, **attrs)
        self.nodes.append(node)
        return node.id

    def _link(self, source: str, target: str, when: str | list[str] | None = None) -> None:
        self.edges.append(Edge(source=source, target=target, when=when))

    def _chain(self, source: str, when: str | list[str] | None, length: int) -> tuple[str, str | list[str] | None]:
        """`length` actions after `source`; returns the last node and the `when` still to place."""
        for _ in range(length):
            if self.rng.random() < 0.7:
                action = self._add("action", tool=self.rng.choice(TOOLS), args={"order_id": "=order.order_id", "n": 1})
            else:
                action = self._add("action", say="Explain the next step to the customer")
            self._link(source, action, when)
            source, when = action, None
        return source, when

    def _branch(self, source: str, when: str | list[str] | None, depth: int, budget: int, leaves: list) -> None:
        source, when = self._chain(source, when, self.rng.randint(0, 2) if len(self.nodes) < budget else 0)
        if len(self.nodes) < budget and depth < 6 and (depth < 2 or self.rng.random() < 0.55):
            name = self.rng.choice(list(self.fields))
            decision = self._add("decision", field=name)
            self._link(source, decision, when)
            values = list(self.fields[name].values)
            if len(values) == 4 and self.rng.random() < 0.3:
                values = [values[:2], values[2], values[3]]  # one edge standing for two values
            for value in values:
                self._branch(decision, value, depth + 1, budget, leaves)
        else:
            leaves.append((source, when))

    def build(self) -> Graph:
        entries: list[tuple[str, str | list[str] | None]] = [("start", None)]
        soft_budget = int(self.target * 0.88)
        for index, _stage in enumerate(STAGES):
            budget = soft_budget * (index + 1) // len(STAGES)
            leaves: list[tuple[str, str | list[str] | None]] = []
            hub = "start"
            if index:  # later stages start from one hub every handing-on leaf of the last stage joins
                hub = self._add("action", say="Summarise what happens next")
                for source, when in entries:
                    self._link(source, hub, when)
            self._branch(hub, None, 0, budget, leaves)
            last = index == len(STAGES) - 1
            self.rng.shuffle(leaves)
            entries = [] if last else leaves[:CONTINUING_LEAVES]
            for source, when in leaves[len(entries) :]:
                self._link(source, self._add("end", outcome=self.rng.choice(OUTCOMES)), when)
        self._pad()
        return Graph(name="bench", fields=self.fields, nodes=self.nodes, edges=self.edges)

    def _pad(self) -> None:
        """Lengthen random action chains until the graph has exactly `target` nodes."""
        if len(self.nodes) > self.target:
            raise SystemExit(f"generated {len(self.nodes)} nodes, more than {self.target}; lower the soft budget")
        while len(self.nodes) < self.target:
            i = self.rng.choice([i for i, e in enumerate(self.edges) if e.source != "start" and e.when is None])
            edge = self.edges[i]
            action = self._add("action", tool=self.rng.choice(TOOLS))
            self.edges[i] = Edge(source=edge.source, target=action)
            self.edges.append(Edge(source=action, target=edge.target))


def build_graph(nodes: int = 1000, seed: int = 2) -> Graph:
    """A valid, realistic graph of exactly `nodes` nodes."""
    return _Builder(random.Random(seed), nodes).build()


def _median(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(runs):
        began = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - began)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args(argv)

    graph = build_graph(args.nodes, args.seed)
    names = ["order", "customer", "slots", "facts"]
    problems = validate_graph(graph, tools=TOOLS, expr_names=names)
    if problems:
        print("the generated graph is invalid:", *problems[:5], sep="\n  ", file=sys.stderr)
        return 1
    text = dumps_graph(graph)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sop.yaml"
        path.write_text(text, encoding="utf-8")
        t_load, (loaded, located) = _median(lambda: load_graph_located(path), args.runs)
    assert loaded == graph, "the YAML did not load back to the same graph"
    t_validate, _ = _median(lambda: validate_graph(loaded, located, tools=TOOLS, expr_names=names), args.runs)
    t_paths, paths = _median(lambda: enumerate_paths(loaded), args.runs)

    decisions = sum(1 for n in graph.nodes if n.kind == "decision")
    ends = sum(1 for n in graph.nodes if n.kind == "end")
    print(
        f"graph: {len(graph.nodes)} nodes ({decisions} decisions, {ends} ends), {len(graph.edges)} edges, "
        f"{len(paths)} paths, YAML {len(text.encode()) / 1024:.0f} KiB"
    )
    print(f"median of {args.runs} runs:")
    print(f"  load+parse YAML   {t_load * 1000:8.1f} ms")
    print(f"  validate          {t_validate * 1000:8.1f} ms")
    print(f"  enumerate paths   {t_paths * 1000:8.1f} ms")
    total = t_validate + t_paths
    print(f"  validate+enumerate {total * 1000:7.1f} ms  ({'within' if total < 1.0 else 'OVER'} the 1 s target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
