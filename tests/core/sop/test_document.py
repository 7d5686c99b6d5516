"""SopDocument: every edit, its signals, and refusals that leave the graph unchanged (no Qt)."""

from __future__ import annotations

import pytest

from sage_desk.core.domain.declaration import domain_names_for
from sage_desk.core.sop.document import EditError, SopDocument
from sage_desk.core.sop.io import dump_graph, load_graph
from sage_desk.core.sop.model import Edge, FieldSource, FieldSpec, Graph, Node, NodeKind


def small_graph() -> Graph:
    return Graph(
        name="t",
        fields={"Demand": FieldSpec(source=FieldSource.USER, values=["refund", "status"])},
        nodes=[
            Node(id="start", kind=NodeKind.START),
            Node(id="ask", kind=NodeKind.DECISION, field="Demand"),
            Node(id="refund", kind=NodeKind.ACTION, tool="refund"),
            Node(id="done", kind=NodeKind.END, outcome="resolved"),
        ],
        edges=[
            Edge(source="start", target="ask"),
            Edge(source="ask", target="refund", when="refund"),
            Edge(source="refund", target="done"),
        ],
    )


@pytest.fixture
def doc() -> SopDocument:
    return SopDocument(small_graph())


def record(doc: SopDocument) -> list[tuple]:
    seen: list[tuple] = []
    for name in ("node_added", "node_removed", "node_changed", "edge_added", "edge_removed", "edge_changed", "changed"):
        getattr(doc, name).connect(lambda *args, _n=name: seen.append((_n, *args)))
    return seen


def test_add_node_emits_and_appends(doc):
    seen = record(doc)
    doc.add_node(Node(id="x", kind=NodeKind.END, outcome="refused"))
    assert doc.graph.nodes[-1].id == "x"
    assert [s[0] for s in seen] == ["node_added", "changed"]


def test_add_node_refuses_duplicate_id(doc):
    seen = record(doc)
    with pytest.raises(EditError, match="already has the id"):
        doc.add_node(Node(id="ask", kind=NodeKind.END))
    assert len(doc.graph.nodes) == 4 and seen == []


def test_remove_node_takes_its_edges_and_restores_in_place(doc):
    before = doc.graph.model_dump()
    removed = doc.remove_node("refund")
    assert [n.id for n in doc.graph.nodes] == ["start", "ask", "done"]
    assert [(e.source, e.target) for e in doc.graph.edges] == [("start", "ask")]
    doc.insert(removed)
    assert doc.graph.model_dump() == before


def test_move_nodes_is_one_change_and_returns_old_positions(doc):
    seen = record(doc)
    old = doc.move_nodes({"start": (10, 20), "ask": (30, 40)})
    assert old == {"start": (0.0, 0.0), "ask": (0.0, 0.0)}
    assert doc.node("ask").pos == (30.0, 40.0)
    assert [s[0] for s in seen].count("changed") == 1


def test_update_node_rename_rewrites_edges(doc):
    seen = record(doc)
    old = doc.update_node("ask", id="ask_demand", label="What do they want?")
    assert old == {"id": "ask", "label": ""}
    assert doc.graph.node("ask") is None
    assert [(e.source, e.target) for e in doc.graph.edges][:2] == [("start", "ask_demand"), ("ask_demand", "refund")]
    assert ("node_changed", "ask", doc.node("ask_demand")) in seen
    assert sum(1 for s in seen if s[0] == "edge_changed") == 2
    doc.update_node("ask_demand", **old)
    assert doc.graph.model_dump() == small_graph().model_dump()


@pytest.mark.parametrize("attrs, message", [({"id": "done"}, "already has the id"), ({"id": "a b"}, "spaces")])
def test_update_node_refuses_bad_values(doc, attrs, message):
    with pytest.raises(EditError, match=message):
        doc.update_node("ask", **attrs)
    assert doc.graph.model_dump() == small_graph().model_dump()


@pytest.mark.parametrize(
    "source, target, message",
    [
        ("ask", "nowhere", "no node 'nowhere'"),
        ("ask", "start", "back to the start"),
        ("done", "ask", "end node"),
        ("refund", "done", "already leads"),
        ("ask", "ask", "itself"),
    ],
)
def test_add_edge_refuses_bad_edges_before_changing_anything(doc, source, target, message):
    seen = record(doc)
    with pytest.raises(EditError, match=message):
        doc.add_edge(source, target)
    assert len(doc.graph.edges) == 3 and seen == []


def test_add_update_and_remove_edge(doc):
    doc.add_edge("ask", "done", when="status")
    assert doc.edge(("ask", "done", "status")).when == "status"
    assert doc.update_edge(("ask", "done", "status"), ["status", " refund "]) == "status"
    assert doc.edge(("ask", "done", "status|refund")).when == ["status", "refund"]
    doc.update_edge(("ask", "done", "status|refund"), "")
    assert doc.edge(("ask", "done", "")).when is None
    removed = doc.remove_edge(("ask", "done", ""))
    assert not doc.edges_between("ask", "done")
    doc.insert(removed)
    assert doc.has_edge(("ask", "done", ""))


def test_parallel_edges_for_different_values_are_kept_apart(doc):
    doc.add_edge("ask", "refund", when="status")
    assert [e.when for e in doc.edges_between("ask", "refund")] == ["refund", "status"]
    with pytest.raises(EditError, match="same condition"):
        doc.update_edge(("ask", "refund", "status"), "refund")
    doc.remove_edge(("ask", "refund", "refund"))
    assert [e.when for e in doc.edges_between("ask", "refund")] == ["status"]


def test_suggest_when_offers_the_first_uncovered_value(doc):
    assert doc.suggest_when("ask") == "status"
    assert doc.suggest_when("refund") is None


def test_copy_and_paste_gets_fresh_ids_and_inner_edges(doc):
    clip = doc.copy(["refund", "done"])
    pasted = doc.prepare_paste(clip, (40, 40))
    doc.insert(pasted)
    ids = [n.id for n in doc.graph.nodes]
    assert ids[-2:] == ["refund_2", "done_2"]
    assert doc.has_edge(("refund_2", "done_2", ""))
    assert doc.node("done_2").pos == (40.0, 40.0)


def test_insert_refuses_the_lot_when_one_edge_is_bad(doc):
    clip = doc.copy(["refund"])
    clip.edges.append((0, Edge(source="refund", target="start")))
    with pytest.raises(EditError):
        doc.insert(clip)
    assert len(doc.graph.nodes) == 4


def test_problems_and_paths_follow_edits(doc):
    assert any(p.node == "ask" and "'status'" in p.message for p in doc.problems())
    doc.add_edge("ask", "done", when="status")
    assert not any(p.node == "ask" for p in doc.problems())
    assert [p.outcome for p in doc.paths()] == ["resolved", "resolved"]


def test_set_fields_and_set_graph(doc):
    seen = record(doc)
    old = doc.set_fields({})
    assert "Demand" in old and doc.graph.fields == {}
    doc.set_graph(small_graph())
    assert "Demand" in doc.graph.fields
    assert [s[0] for s in seen] == ["changed", "changed"]


def test_unique_id(doc):
    assert doc.unique_id("decision") == "decision"
    assert doc.unique_id("ask") == "ask_2"


def test_domain_names_for_reads_the_declaration(tmp_path):
    sop = tmp_path / "sop.yaml"
    dump_graph(small_graph(), sop)
    assert domain_names_for(sop) is None
    (tmp_path / "domain.yaml").write_text(
        "name: t\nintent_field: Demand\ntables: {orders: {key: order_id}}\n"
        "context: {order: {table: orders}}\n"
        "tools: {refund: {kind: record, description: Refund, table: orders, key: order_id}}\n"
    )
    names = domain_names_for(sop)
    assert names and "refund" in names.tools and "close_ticket" in names.tools and "order" in names.expr_names
    assert load_graph(sop).name == "t"
