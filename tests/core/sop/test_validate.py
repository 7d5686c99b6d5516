"""Graph validation: every problem kind, located at its exact YAML line and column."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sage_desk.core.errors import Problem, SopError
from sage_desk.core.sop import validate_graph
from sage_desk.core.sop.io import load_graph_located
from sage_desk.core.sop.model import Graph, Node

TOOLS = ["lookup_order", "refund"]
NAMES = ["order", "slots"]

HEADER = """\
version: 1
name: t
fields:
  Demand:
    source: user
    values: [refund, status]
nodes:
- id: start
  kind: start
"""  # the first node listed after the header starts on line 10


def _problems(tmp_path: Path, body: str, *, header: str = HEADER) -> list[str]:
    path = tmp_path / "g.yaml"
    path.write_text(header + textwrap.dedent(body))
    graph, located = load_graph_located(path)
    return [str(p).replace(f"{path}:", "") for p in validate_graph(graph, located, tools=TOOLS, expr_names=NAMES)]


GOOD = """\
- id: ask
  kind: decision
  field: Demand
- id: pay
  kind: action
  tool: refund
  args: {order_id: "=order.order_id", reason: damaged}
- id: tell
  kind: action
  say: Share the tracking link
- id: done
  kind: end
  outcome: resolved
edges:
- {from: start, to: ask}
- {from: ask, to: pay, when: refund}
- {from: ask, to: tell, when: status}
- {from: pay, to: done}
- {from: tell, to: done}
"""


def test_good_graph_has_no_problems(tmp_path: Path) -> None:
    assert _problems(tmp_path, GOOD) == []


def test_shipped_northline_graph_is_valid() -> None:
    graph, located = load_graph_located(Path(__file__).resolve().parents[3] / "sops" / "northline" / "sop.yaml")
    assert validate_graph(graph, located) == []


def test_unreachable_node(tmp_path: Path) -> None:
    body = GOOD.replace("edges:", "- id: orphan\n  kind: end\n  outcome: refused\nedges:")
    assert _problems(tmp_path, body) == ["23:3: node 'orphan': unreachable from the start"]


def test_dead_end(tmp_path: Path) -> None:
    body = GOOD.replace("- {from: tell, to: done}\n", "")
    assert _problems(tmp_path, body) == ["17:3: node 'tell': dead end: nothing follows it and it is not an end node"]


def test_decision_value_not_covered(tmp_path: Path) -> None:
    body = GOOD.replace("- {from: ask, to: tell, when: status}\n", "")
    problems = _problems(tmp_path, body)
    assert "12:3: node 'ask': value 'status' of 'Demand' is not covered by any edge" in problems
    assert "17:3: node 'tell': unreachable from the start" in problems
    assert len(problems) == 2


def test_value_on_two_edges_and_value_not_declared(tmp_path: Path) -> None:
    body = GOOD.replace("when: status}", "when: [status, refund]}").replace(
        "- {from: pay, to: done}", "- {from: ask, to: done, when: lost}\n- {from: pay, to: done}"
    )
    assert _problems(tmp_path, body) == [
        "12:3: node 'ask': value 'refund' of 'Demand' is on 2 edges",
        "27:3: edge 'ask' -> 'done': 'lost' is not a value of 'Demand' (refund, status)",
    ]


def test_duplicate_id_points_at_the_second(tmp_path: Path) -> None:
    body = GOOD.replace("edges:", "- id: done\n  kind: end\n  outcome: refused\nedges:")
    assert _problems(tmp_path, body) == ["23:3: node 'done': duplicate id (another node already uses it)"]


def test_unknown_tool_and_bad_expressions(tmp_path: Path) -> None:
    body = GOOD.replace("tool: refund", "tool: refnud").replace('"=order.order_id"', '"=order.order_id +"')
    assert _problems(tmp_path, body) == [
        "15:3: node 'pay': unknown tool 'refnud' (the domain has: lookup_order, refund)",
        "16:3: node 'pay': argument 'order_id': bad expression 'order.order_id +': invalid syntax",
    ]
    body = GOOD.replace('"=order.order_id"', '"=ordr.order_id"')
    assert _problems(tmp_path, body) == [
        "16:3: node 'pay': argument 'order_id': bad expression 'ordr.order_id': unknown name 'ordr' (known: order, slots)"
    ]


def test_without_domain_tools_are_not_checked(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(HEADER + GOOD.replace("tool: refund", "tool: anything"))
    graph, located = load_graph_located(path)
    assert validate_graph(graph, located) == []


def test_cycle_with_no_exit(tmp_path: Path) -> None:
    body = (
        GOOD.replace("- {from: tell, to: done}", "- {from: tell, to: again}").replace(
            "edges:", "- id: again\n  kind: action\n  say: Ask again\nedges:"
        )
        + "- {from: again, to: tell}\n"
    )
    assert _problems(tmp_path, body) == [
        "17:3: node 'tell': no way out: every path from here loops without reaching an end",
        "23:3: node 'again': no way out: every path from here loops without reaching an end",
    ]


def test_cycle_with_an_exit_is_fine(tmp_path: Path) -> None:
    body = (
        GOOD.replace("- {from: pay, to: done}", "- {from: pay, to: ask2}").replace(
            "edges:", "- id: ask2\n  kind: decision\n  field: Demand\nedges:"
        )
        + "- {from: ask2, to: ask, when: status}\n- {from: ask2, to: done, when: refund}\n"
    )
    assert _problems(tmp_path, body) == []


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "- {from: pay, to: done}",
            "- {from: pay, to: gone}",
            [
                "13:3: node 'pay': dead end: nothing follows it and it is not an end node",
                "27:3: edge 'pay' -> 'gone': unknown node 'gone' in 'to'",
            ],
        ),
        (
            "- {from: pay, to: done}",
            "- {from: pay, to: done, when: refund}",
            ["27:3: edge 'pay' -> 'done': only edges leaving a decision carry 'when'"],
        ),
        (
            "- {from: ask, to: pay, when: refund}",
            "- {from: ask, to: pay}",
            [
                "12:3: node 'ask': value 'refund' of 'Demand' is not covered by any edge",
                "25:3: edge 'ask' -> 'pay': an edge leaving a decision needs 'when'",
            ],
        ),
        (
            "- {from: tell, to: done}",
            "- {from: tell, to: done}\n- {from: tell, to: done}",
            [
                "17:3: node 'tell': an action node has exactly one next step, found 2 (branch with a decision)",
                "29:3: edge 'tell' -> 'done' appears twice",
            ],
        ),
        (
            "- {from: tell, to: done}",
            "- {from: tell, to: done}\n- {from: done, to: start}",
            [
                "20:3: node 'done': an end node must not lead anywhere",
                "29:3: edge 'done' -> 'start': nothing may lead back to the start",
            ],
        ),
        (
            "outcome: resolved",
            "outcome: fixed",
            ["22:3: node 'done': unknown outcome 'fixed' (one of: resolved, refused, escalated, info_requested)"],
        ),
        (
            "  outcome: resolved\n",
            "",
            ["20:3: node 'done': an end node needs an 'outcome' (resolved, refused, escalated, info_requested)"],
        ),
        (
            "say: Share the tracking link",
            "say: Share the tracking link\n  tool: lookup_order",
            ["17:3: node 'tell': an action needs either 'tool' or 'say' (exactly one)"],
        ),
        ("field: Demand", "field: Mood", ["12:3: node 'ask': unknown field 'Mood' (fields: Demand)"]),
        ("  field: Demand\n", "", ["10:3: node 'ask': a decision needs a 'field' to branch on"]),
        (
            "  outcome: resolved\n",
            "  outcome: resolved\n  tool: refund\n",
            ["23:3: node 'done': 'tool' does not apply to an end node"],
        ),
    ],
)
def test_structural_problems(tmp_path: Path, old: str, new: str, expected: list[str]) -> None:
    assert old in GOOD
    assert _problems(tmp_path, GOOD.replace(old, new)) == expected


def test_start_problems(tmp_path: Path) -> None:
    body = GOOD.replace("edges:", "- id: start2\n  kind: start\nedges:") + "- {from: start2, to: done}\n"
    assert _problems(tmp_path, body) == [
        "23:3: node 'start2': unreachable from the start",
        "24:3: node 'start2': a second start node (a graph has exactly one)",
    ]
    no_start = HEADER.replace("- id: start\n  kind: start\n", "- id: start\n  kind: action\n  say: Hello\n")
    problems = _problems(tmp_path, GOOD, header=no_start)
    assert problems[0] == "7:1: the graph has no start node"


def test_graph_without_end(tmp_path: Path) -> None:
    body = "edges: []\n"
    assert _problems(tmp_path, body) == [
        "7:1: the graph has no end node",
        "8:3: node 'start': dead end: nothing follows it and it is not an end node",
    ]


def test_problems_carry_their_node() -> None:
    graph = Graph(name="t", nodes=[Node(id="s", kind="start"), Node(id="lost", kind="end", outcome="resolved")])
    assert validate_graph(graph, file="mem.yaml") == [
        Problem("mem.yaml", 1, 1, "node 'lost': unreachable from the start", "lost"),
        Problem("mem.yaml", 1, 1, "node 's': dead end: nothing follows it and it is not an end node", "s"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "name: t\nnodes:\n- id: a\n  kind: begin\n",
            "4:3: nodes.0.kind: Input should be 'start', 'decision', 'action' or 'end'",
        ),
        ("name: t\nnodes:\n- id: a b\n  kind: start\n", "3:3: nodes.0.id: Value error, node id 'a b' must not contain spaces"),
        ("name: t\nnodes:\n- id: a\n  kind: start\n  colour: red\n", "5:3: nodes.0: unknown key 'colour'"),
        ("name: t\nnodes: 5\n", "2:1: nodes: Input should be a valid list"),
        ("name: t\nfields:\n  F: {source: user, values: [a, a]}\n", "3:21: fields.F.values: Value error, duplicate value 'a'"),
        ("nodes: []\n", "1:1: name: Field required"),
        ("name: t\nedges:\n- {from: a, to: b, when: {x: 1}}\n", "3:20: edges.0.when.list[str]: Input should be a valid list"),
    ],
)
def test_schema_problems_are_located(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(text)
    with pytest.raises(SopError) as info:
        load_graph_located(path)
    assert str(info.value.problems[0]).replace(f"{path}:", "") == expected
