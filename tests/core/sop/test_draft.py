"""The draft schema, its conversion to a graph, section checks and the merge rule."""

from __future__ import annotations

from sage_desk.core.sop.draft import DraftGraph, draft_schema, fragment_problems, from_graph, merge, parse_draft, to_graph
from sage_desk.core.sop.model import Edge, FieldSource, FieldSpec, Graph, Node, NodeKind


def _graph(nodes: list[Node], edges: list[Edge] = (), fields: dict[str, FieldSpec] | None = None) -> Graph:
    return Graph(name="g", nodes=nodes, edges=list(edges), fields=fields or {})


def test_the_schema_names_every_part_of_a_draft() -> None:
    schema = draft_schema()
    node = schema["$defs"]["DraftNode"]["properties"]
    assert set(node) == {"id", "kind", "label", "field", "tool", "args", "say", "outcome", "source"}
    assert node["kind"]["enum"] == ["start", "decision", "action", "end"]
    assert set(schema["$defs"]["DraftEdge"]["properties"]) == {"from", "to", "when"}


def test_parse_accepts_fenced_json_and_names_what_is_wrong() -> None:
    draft, problems = parse_draft('Here you go:\n```json\n{"nodes": [{"id": "s", "kind": "start"}]}\n```')
    assert problems == [] and draft is not None and draft.nodes[0].id == "s"
    assert parse_draft("no json at all")[1] == ["the answer holds no JSON object"]
    assert parse_draft('{"nodes": [{"id": "s"}]}')[1] == ["nodes.0.kind: Field required"]


def test_conversion_cleans_ids_and_drops_attributes_a_kind_does_not_have() -> None:
    draft = DraftGraph.model_validate(
        {
            "fields": [
                {"name": "F", "source": "user", "values": ["a", "b", "a"]},
                {"name": "F", "source": "user", "values": ["c"]},
            ],
            "nodes": [
                {"id": "Check stage", "kind": "decision", "field": "F", "tool": "x", "source": "s"},
                {"id": "do", "kind": "action", "tool": "t", "say": "also say", "args": {"k": 1}, "source": "s"},
                {"id": "tell", "kind": "action", "say": "hi", "args": {"k": 1}, "source": "s"},
            ],
            "edges": [{"from": "Check stage", "to": "do", "when": ["a", " "]}, {"from": "do", "to": "tell", "when": []}],
        }
    )
    graph = to_graph(draft, "g")
    assert graph.fields["F"].values == ["a", "b", "c"]
    check, do, tell = graph.nodes
    assert (check.id, check.tool, check.field) == ("Check_stage", None, "F")
    assert (do.tool, do.say, do.args) == ("t", None, {"k": 1})
    assert (tell.say, tell.args) == ("hi", {})
    assert [(e.source, e.when) for e in graph.edges] == [("Check_stage", "a"), ("do", None)]
    assert to_graph(from_graph(graph), "g") == graph  # the round trip used for the final repair


def test_fragment_problems_check_references_against_what_was_drafted_before() -> None:
    base = _graph(
        [Node(id="start", kind=NodeKind.START, cite="x"), Node(id="ask", kind=NodeKind.DECISION, field="F", cite="x")],
        [Edge(source="start", target="ask")],
        {"F": FieldSpec(source=FieldSource.USER, values=["a"])},
    )
    fragment = _graph(
        [Node(id="do", kind=NodeKind.ACTION, say="hi", cite="x"), Node(id="do", kind=NodeKind.END, outcome="won", cite="")],
        [Edge(source="ask", target="do", when="b"), Edge(source="do", target="nowhere")],
    )
    assert fragment_problems(base, fragment, first=False) == [
        "node 'do': two nodes of this section use the id 'do'",
        "node 'do': an end needs an 'outcome', one of resolved, refused, escalated, info_requested",
        "node 'do': 'source' is empty; copy the sentence of the SOP this node comes from",
        "edge 'ask' -> 'do': 'b' is not a value of 'F' (a)",
        "edge 'do' -> 'nowhere': unknown node 'nowhere' (use an id of this section or one listed as drafted before)",
    ]
    with_value = fragment.model_copy(
        update={
            "fields": {"F": FieldSpec(source=FieldSource.USER, values=["b"])},
            "nodes": fragment.nodes[:1],
            "edges": fragment.edges[:1],
        }
    )
    assert fragment_problems(base, with_value, first=False) == []  # a later part may add the value it branches on


def test_merge_renames_a_clash_of_kinds_and_fills_a_shared_node() -> None:
    base = _graph(
        [Node(id="start", kind=NodeKind.START), Node(id="done", kind=NodeKind.END, outcome="resolved")],
        [Edge(source="start", target="done")],
        {"F": FieldSpec(source=FieldSource.USER, values=["a"])},
    )
    fragment = _graph(
        [
            Node(id="done", kind=NodeKind.END, outcome="resolved", label="Done", cite="c"),
            Node(id="start", kind=NodeKind.ACTION, say="hi"),
        ],
        [Edge(source="start", target="done")],
        {"F": FieldSpec(source=FieldSource.SYSTEM, values=["b", "a"])},
    )
    merged, warnings = merge(base, fragment)
    assert [(n.id, n.kind.value) for n in merged.nodes] == [("start", "start"), ("done", "end"), ("start_2", "action")]
    assert (merged.node("done").label, merged.node("done").cite) == ("Done", "c")
    assert [(e.source, e.target) for e in merged.edges] == [("start", "done"), ("start_2", "done")]
    assert merged.fields["F"] == FieldSpec(source=FieldSource.USER, values=["a", "b"])
    assert warnings == [
        "field 'F' was drafted as a user field and then as a system one; kept user",
        "two nodes named 'start' (start and action): the second is now 'start_2'",
    ]


def test_merge_chains_a_loose_section_after_the_open_steps_before_it() -> None:
    base = _graph(
        [Node(id="start", kind=NodeKind.START), Node(id="a", kind=NodeKind.ACTION, say="x")], [Edge(source="start", target="a")]
    )
    fragment = _graph(
        [Node(id="end", kind=NodeKind.END, outcome="resolved"), Node(id="b", kind=NodeKind.ACTION, say="y")],
        [Edge(source="b", target="end")],
    )
    merged, _ = merge(base, fragment)
    assert ("a", "b") in {(e.source, e.target) for e in merged.edges}  # to the first step, not to the end
    attached = fragment.model_copy(update={"edges": [*fragment.edges, Edge(source="a", target="end")]})
    merged, _ = merge(base, attached)
    assert [(e.source, e.target) for e in merged.edges] == [("start", "a"), ("b", "end"), ("a", "end")]
