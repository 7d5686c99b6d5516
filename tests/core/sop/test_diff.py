"""Graph diffs on the shipped graphs: removed nodes, changed conditions, renamed ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from sage_desk.core.sop.diff import agreement, diff_graphs, match_nodes
from sage_desk.core.sop.io import load_graph
from sage_desk.core.sop.model import Edge, Graph, NodeKind

SOPS = Path(__file__).resolve().parents[3] / "sops"


@pytest.fixture(scope="module")
def northline() -> Graph:
    return load_graph(SOPS / "northline" / "sop.yaml")


def renamed(graph: Graph, rename) -> Graph:
    """The same graph with every id passed through `rename`."""
    ids = {n.id: rename(n.id) for n in graph.nodes}
    return graph.model_copy(
        update={
            "nodes": [n.model_copy(update={"id": ids[n.id]}) for n in graph.nodes],
            "edges": [Edge(source=ids[e.source], target=ids[e.target], when=e.when) for e in graph.edges],
        }
    )


def without(graph: Graph, node_id: str) -> Graph:
    return graph.model_copy(
        update={
            "nodes": [n for n in graph.nodes if n.id != node_id],
            "edges": [e for e in graph.edges if node_id not in (e.source, e.target)],
        }
    )


def test_a_graph_equals_itself(northline: Graph) -> None:
    diff = diff_graphs(northline, northline)
    assert diff.is_equal() and diff.count() == 0
    assert diff.to_text() == "the graphs are the same"
    assert diff.to_json()["equal"] is True


def test_a_removed_node_and_its_edges(northline: Graph) -> None:
    diff = diff_graphs(northline, without(northline, "say_wear"))
    assert [n.id for n in diff.nodes_removed] == ["say_wear"]
    assert diff.edges_removed == [("fault_type", "say_wear", ("wear_and_tear",)), ("say_wear", "refused", ())]
    assert not (diff.nodes_added or diff.nodes_changed or diff.edges_added or diff.conditions_changed)
    lines = diff.to_text().splitlines()
    assert (
        lines[0] == "- node say_wear (action: say 'Explain that normal wear and tear is not covered by the warranty and "
        "suggest the repair service') 'Explain: wear and tear is not covered'"
    )
    assert lines[1:] == ["- edge fault_type -> say_wear when wear_and_tear", "- edge say_wear -> refused", "3 difference(s)"]


def test_a_changed_condition(northline: Graph) -> None:
    edges = []
    for e in northline.edges:
        if (e.source, e.target) == ("cancel_stage", "say_cannot_cancel"):
            e = Edge(source=e.source, target=e.target, when=["in_transit", "delivered"])
        elif (e.source, e.target) == ("cancel_stage", "say_already_closed"):
            e = Edge(source=e.source, target=e.target, when=["closed", "lost"])
        edges.append(e)
    diff = diff_graphs(northline, northline.model_copy(update={"edges": edges}))
    assert [(c.source, c.target, c.old, c.new) for c in diff.conditions_changed] == [
        ("cancel_stage", "say_cannot_cancel", ("delivered", "in_transit", "lost"), ("delivered", "in_transit")),
        ("cancel_stage", "say_already_closed", ("closed",), ("closed", "lost")),
    ]
    assert diff.count() == 2
    assert (
        "~ edge cancel_stage -> say_cannot_cancel: when delivered | in_transit | lost -> delivered | in_transit" in diff.to_text()
    )


def test_one_edge_with_several_values_equals_one_edge_per_value(northline: Graph) -> None:
    handover = [e for e in northline.edges if (e.source, e.target) == ("check_escalation", "handover")]
    assert len(handover) == 5
    merged = [e for e in northline.edges if e not in handover]
    merged.insert(1, Edge(source="check_escalation", target="handover", when=[v for e in handover for v in e.values]))
    assert diff_graphs(northline, northline.model_copy(update={"edges": merged})).is_equal()


@pytest.mark.parametrize(
    "domain", ["northline", "banking", "telecom", "airline", "logistics", "property", "online_education", "ecommerce_refund"]
)
def test_renamed_ids_are_matched_by_content(domain: str) -> None:
    graph = load_graph(SOPS / domain / "sop.yaml")
    ids = {n.id: f"n{i}" for i, n in enumerate(graph.nodes)}
    other = renamed(graph, ids.get)
    matches, how = match_nodes(graph, other)
    assert matches == ids and set(how.values()) == {"content"}
    diff = diff_graphs(graph, other)
    assert not (diff.nodes_added or diff.nodes_removed or diff.edges_added or diff.edges_removed or diff.conditions_changed)
    assert all(c.changes == {} for c in diff.nodes_changed) and len(diff.nodes_changed) == len(graph.nodes)


def test_renamed_ids_with_edits_report_the_edits(northline: Graph) -> None:
    other = renamed(northline, lambda i: f"draft_{i}")
    nodes = [n.model_copy(update={"label": "Look it up"}) if n.id == "draft_lookup" else n for n in other.nodes]
    other = without(other.model_copy(update={"nodes": nodes}), "draft_say_no_compensation")
    diff = diff_graphs(northline, other)
    assert [n.id for n in diff.nodes_removed] == ["say_no_compensation"]
    lookup = next(c for c in diff.nodes_changed if c.old_id == "lookup")
    assert (lookup.new_id, lookup.by, lookup.changes) == (
        "draft_lookup",
        "content",
        {"label": ("Look up the order", "Look it up")},
    )
    assert "~ node lookup -> draft_lookup (matched by content): label: 'Look up the order' -> 'Look it up'" in diff.to_text()
    assert ("demand", "say_no_compensation", ("compensation",)) in diff.edges_removed


def test_a_node_of_another_kind_with_the_same_id_is_a_change(northline: Graph) -> None:
    nodes = [
        n.model_copy(update={"kind": NodeKind.END, "tool": None, "args": {}, "outcome": "resolved"})
        if n.id == "open_trace"
        else n
        for n in northline.nodes
    ]
    diff = diff_graphs(northline, northline.model_copy(update={"nodes": nodes}))
    (change,) = diff.nodes_changed
    assert change.by == "id" and change.changes["kind"] == (NodeKind.ACTION, NodeKind.END)
    assert change.changes["tool"] == ("open_carrier_trace", None)
    assert diff.to_json()["nodes"]["changed"][0]["changes"]["kind"] == {"old": "action", "new": "end"}


def test_added_nodes_edges_and_field_changes(northline: Graph) -> None:
    fields = dict(northline.fields)
    fields["FaultType"] = fields["FaultType"].model_copy(update={"values": ["defect", "wear_and_tear", "misuse"]})
    del fields["NewAddressType"]
    nodes = [
        *northline.nodes,
        northline.node("say_wear").model_copy(update={"id": "say_misuse", "say": "Explain misuse is not covered"}),
    ]
    edges = [
        *northline.edges,
        Edge(source="fault_type", target="say_misuse", when="misuse"),
        Edge(source="say_misuse", target="refused"),
    ]
    diff = diff_graphs(northline, northline.model_copy(update={"fields": fields, "nodes": nodes, "edges": edges}))
    assert [n.id for n in diff.nodes_added] == ["say_misuse"]
    assert diff.edges_added == [("fault_type", "say_misuse", ("misuse",)), ("say_misuse", "refused", ())]
    assert diff.fields_removed == ["NewAddressType"]
    assert diff.fields_changed == {"FaultType": {"values": (["defect", "wear_and_tear"], ["defect", "wear_and_tear", "misuse"])}}
    data = diff.to_json()
    assert data["edges"]["added"][0] == {"from": "fault_type", "to": "say_misuse", "when": ["misuse"]}
    assert data["fields"]["removed"] == ["NewAddressType"]


def test_agreement_counts_nodes_and_edges_after_matching(northline: Graph) -> None:
    same = agreement(renamed(northline, lambda i: i.upper()), northline)
    assert (same.node_precision, same.node_recall, same.edge_precision, same.edge_recall) == (1.0, 1.0, 1.0, 1.0)
    smaller = agreement(without(northline, "say_wear"), northline)
    assert smaller.node_precision == 1.0 and smaller.node_recall == pytest.approx(41 / 42)
    assert smaller.edges_matched == smaller.draft_edges == smaller.reference_edges - 2
    assert agreement(Graph(name="empty"), northline).node_precision == 0.0
