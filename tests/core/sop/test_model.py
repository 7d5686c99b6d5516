"""The graph model: nodes, edges, fields, lookups, and the layered layout."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sage_desk.core.sop import Edge, FieldSpec, Graph, Node, NodeKind
from sage_desk.core.sop.layout import apply_layout, layered_positions


def _graph() -> Graph:
    return Graph.model_validate(
        {
            "name": "t",
            "fields": {"F": {"source": "user", "values": ["a", "b"]}},
            "nodes": [
                {"id": "s", "kind": "start"},
                {"id": "d", "kind": "decision", "field": "F"},
                {"id": "x", "kind": "end", "outcome": "resolved"},
                {"id": "y", "kind": "end", "outcome": "refused"},
            ],
            "edges": [{"from": "s", "to": "d"}, {"from": "d", "to": "x", "when": "a"}, {"from": "d", "to": "y", "when": ["b"]}],
        }
    )


def test_lookups() -> None:
    graph = _graph()
    assert graph.start().id == "s"
    assert graph.node("d").field == "F"
    assert graph.node("nope") is None
    assert [(e.target, e.values) for e in graph.out_edges("d")] == [("x", ["a"]), ("y", ["b"])]
    assert graph.out_edges("x") == []
    assert Graph(name="t").start() is None


def test_edge_aliases_and_values() -> None:
    edge = Edge.model_validate({"from": "a", "to": "b"})
    assert (edge.source, edge.target, edge.values) == ("a", "b", [])
    assert Edge(source="a", target="b", when="v").values == ["v"]
    assert Edge(source="a", target="b", when=["v", "w"]).model_dump(by_alias=True) == {"from": "a", "to": "b", "when": ["v", "w"]}


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"id": "", "kind": "start"}, "node id must not be empty"),
        ({"id": "a b", "kind": "start"}, "must not contain spaces"),
        ({"id": "a", "kind": "fork"}, "Input should be 'start', 'decision', 'action' or 'end'"),
        ({"id": "a", "kind": "start", "colour": "red"}, "Extra inputs are not permitted"),
        ({"id": "a", "kind": "start", "pos": [1]}, "pos"),
    ],
)
def test_bad_nodes(data: dict, fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment):
        Node.model_validate(data)


def test_field_values_are_unique_and_source_is_checked() -> None:
    with pytest.raises(ValidationError, match="duplicate value 'a'"):
        FieldSpec(source="user", values=["a", "b", "a"])
    with pytest.raises(ValidationError, match="'user' or 'system'"):
        FieldSpec.model_validate({"source": "world", "values": []})


def test_assignment_is_validated() -> None:
    node = Node(id="a", kind=NodeKind.ACTION, say="hi")
    with pytest.raises(ValidationError):
        node.kind = "nonsense"
    with pytest.raises(ValidationError, match="spaces"):
        node.id = "has space"


def test_layout_places_layers_below_parents() -> None:
    positions = layered_positions(_graph())
    assert positions["s"] == (0.0, 0.0)
    assert positions["d"] == (0.0, 120.0)
    assert sorted([positions["x"], positions["y"]]) == [(-100.0, 240.0), (100.0, 240.0)]


def test_layout_survives_cycles_and_keeps_the_original() -> None:
    graph = _graph()
    graph.edges.append(Edge(source="x", target="d"))  # a back edge
    laid = apply_layout(graph)
    assert graph.node("d").pos == (0.0, 0.0)
    assert laid.node("d").pos == (0.0, 120.0)
    assert {n.id for n in laid.nodes} == {"s", "d", "x", "y"}


def test_layout_wraps_a_wide_layer_and_puts_every_ending_last() -> None:
    values = [f"v{i}" for i in range(20)]
    graph = Graph.model_validate(
        {
            "name": "wide",
            "fields": {"F": {"source": "user", "values": values}},
            "nodes": [
                {"id": "s", "kind": "start"},
                {"id": "d", "kind": "decision", "field": "F"},
                {"id": "early", "kind": "end", "outcome": "refused"},
                {"id": "done", "kind": "end", "outcome": "resolved"},
                *({"id": f"a{i}", "kind": "action", "say": "ok"} for i in range(19)),
            ],
            "edges": [
                {"from": "s", "to": "d"},
                {"from": "d", "to": "early", "when": "v19"},
                *({"from": "d", "to": f"a{i}", "when": f"v{i}"} for i in range(19)),
                *({"from": f"a{i}", "to": "done"} for i in range(19)),
            ],
        }
    )
    positions = layered_positions(graph)
    rows: dict[float, int] = {}
    for _x, y in positions.values():
        rows[y] = rows.get(y, 0) + 1
    assert max(rows.values()) <= 6  # 19 branches on four rows, not one row 19 wide
    assert positions["early"][1] == positions["done"][1] == max(y for _x, y in positions.values())
    assert len(set(positions.values())) == len(positions)  # no two nodes on one spot
