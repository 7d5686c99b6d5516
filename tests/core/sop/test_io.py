"""Graph YAML I/O: located load errors, and the canonical writer's round trip."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sage_desk.core.errors import SopError
from sage_desk.core.sop import Edge, FieldSpec, Graph, Node, dump_graph, dumps_graph, load_graph, loads_graph
from sage_desk.core.sop.io import load_graph_located

NORTHLINE = Path(__file__).resolve().parents[3] / "sops" / "northline" / "sop.yaml"

TRICKY = [
    "yes",
    "No",
    "null",
    "~",
    "true",
    "1.5",
    "007",
    "",
    " padded ",
    "a: b",
    "# not a comment",
    "- dash",
    "[x]",
    "{y}",
    "it's",
    'say "hi"',
    "back\\slash",
    "two\nlines",
    "tab\there",
    "café ☕",
    "line\u2028sep",
    "nel\x85x",
    "del\x7fx",
    "bom\ufeffx",
    "*alias",
    "&anchor",
    "!tag",
    "%percent",
    "@at",
    "`tick`",
    "e5",
    "0x1F",
]


def _rich_graph(texts: list[str]) -> Graph:
    return Graph(
        name="rich",
        title="Rich: graph",
        description=texts[0],
        fields={
            "Demand": FieldSpec(source="user", values=["refund", texts[1], "n"], description=texts[2]),
            "order.status": FieldSpec(source="system", values=["shipped"]),
        },
        nodes=[
            Node(id="start", kind="start", label=texts[3], pos=(0.5, -120)),
            Node(id="ask", kind="decision", field="Demand", note=texts[4], cite=texts[5]),
            Node(
                id="pay",
                kind="action",
                tool="refund",
                args={
                    "order_id": "=order.order_id",
                    "amount": 12.5,
                    "count": 3,
                    "flag": True,
                    "none": None,
                    "nested": {"k": [1, "two", texts[6]]},
                    texts[7] or "empty": texts[8],
                },
            ),
            Node(id="say", kind="action", say=texts[9]),
            Node(id="end", kind="end", outcome="resolved", pos=(1e6, 2.25)),
        ],
        edges=[
            Edge(source="start", target="ask"),
            Edge(source="ask", target="pay", when="refund"),
            Edge(source="ask", target="say", when=[texts[1], "n"]),
            Edge(source="pay", target="end"),
            Edge(source="say", target="end"),
        ],
    )


def test_round_trip_with_tricky_strings() -> None:
    graph = _rich_graph(TRICKY)
    text = dumps_graph(graph)
    assert loads_graph(text) == graph
    assert dumps_graph(loads_graph(text)) == text


def test_round_trip_fuzzed_strings() -> None:
    rng = random.Random(20240611)
    alphabet = "aZ09 _-./:#,[]{}&*!|>'\"%@`?\\\t\n\r\x00\x1b\x7f\x85\xa0\u2028\u2029\ufeffé☕😀"
    for _ in range(200):
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(10)]
        texts[1] = texts[1] or "x"  # a field value may not be empty twice over
        if texts[1] in ("refund", "n"):
            texts[1] += "!"
        graph = _rich_graph(texts)
        text = dumps_graph(graph)
        assert loads_graph(text) == graph, text
        assert dumps_graph(loads_graph(text)) == text


def test_minimal_graph_is_canonical() -> None:
    graph = Graph(name="empty")
    assert dumps_graph(graph) == "version: 1\nname: empty\nfields: {}\nnodes: []\nedges: []\n"
    assert loads_graph(dumps_graph(graph)) == graph


def test_canonical_layout() -> None:
    graph = Graph(
        name="t",
        fields={"F": FieldSpec(source="user", values=["a", "b"])},
        nodes=[Node(id="d", kind="decision", field="F", label="Which one?", pos=(10, 20.5))],
        edges=[Edge(source="d", target="x", when=["a", "b"])],
    )
    assert dumps_graph(graph) == (
        "version: 1\nname: t\nfields:\n  F:\n    source: user\n    values: [a, b]\nnodes:\n"
        '- id: d\n  kind: decision\n  label: "Which one?"\n  field: F\n  pos: [10, 20.5]\n'
        "edges:\n- {from: d, to: x, when: [a, b]}\n"
    )


def test_shipped_northline_graph_is_canonical() -> None:
    text = NORTHLINE.read_text(encoding="utf-8")
    graph = load_graph(NORTHLINE)
    assert dumps_graph(graph) == text
    assert loads_graph(dumps_graph(graph)) == graph


def test_dump_graph_writes_atomically(tmp_path: Path) -> None:
    target = tmp_path / "sop.yaml"
    target.write_text("old")
    graph = load_graph(NORTHLINE)
    dump_graph(graph, target)
    assert target.read_text(encoding="utf-8") == NORTHLINE.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sop.yaml"]


def test_loading_keeps_positions_for_messages(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text("name: t\nnodes:\n- id: s\n  kind: start\n")
    graph, located = load_graph_located(path)
    assert graph.nodes[0].id == "s"
    assert located.where(("nodes", 0, "kind")) == (4, 3)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "expected a SOP graph (a mapping with nodes and edges), found list"),
        ("just words\n", "expected a SOP graph (a mapping with nodes and edges), found str"),
        ("name: [unclosed\n", "YAML syntax: did not find expected ',' or ']'"),
    ],
)
def test_not_a_graph(text: str, message: str) -> None:
    with pytest.raises(SopError) as info:
        loads_graph(text, "x.yaml")
    (problem,) = info.value.problems
    assert (problem.file, problem.message) == ("x.yaml", message)


def test_load_errors_are_sop_errors(tmp_path: Path) -> None:
    with pytest.raises(SopError, match="no such file"):
        load_graph(tmp_path / "missing.yaml")


def test_every_shipped_graph_survives_a_save_whole():
    """Saving writes every field a node sets (tell:, confirm ...), not only those the writer knew first:
    the editor's save and a run's kept graph (issue 35) lost Northline's tell: lists before."""
    from sage_desk.core.locations import sops_dir

    graphs = sorted(sops_dir().glob("*/sop.yaml"))
    assert len(graphs) >= 3
    for path in graphs:
        graph = load_graph(path)
        assert loads_graph(dumps_graph(graph)) == graph, path.parent.name
