"""Path enumeration: counts, assignments, consistency pruning, multi-value edges, cycles, limits."""

from __future__ import annotations

import textwrap

import pytest

from sage_desk.core.domain import load_domain
from sage_desk.core.errors import SageError
from sage_desk.core.sop import Graph, enumerate_paths, load_graph, loads_graph


def _graph(body: str) -> Graph:
    return loads_graph("version: 1\nname: t\n" + textwrap.dedent(body))


# start -> ask(Demand) -refund-> stage(Stage) -shipped-> pay -> resolved
#                                             -pending-> refused
#                      -status-> tell -> info_requested
#                      -other-> refused
BRANCHY = """\
fields:
  Demand: {source: user, values: [refund, status, other]}
  Stage: {source: system, values: [shipped, pending]}
nodes:
- {id: start, kind: start}
- {id: ask, kind: decision, field: Demand}
- {id: stage, kind: decision, field: Stage}
- {id: pay, kind: action, tool: refund, args: {order_id: "=order.order_id"}}
- {id: tell, kind: action, say: Share tracking}
- {id: ok, kind: end, outcome: resolved}
- {id: no, kind: end, outcome: refused}
- {id: info, kind: end, outcome: info_requested}
edges:
- {from: start, to: ask}
- {from: ask, to: stage, when: refund}
- {from: ask, to: tell, when: status}
- {from: ask, to: no, when: other}
- {from: stage, to: pay, when: shipped}
- {from: stage, to: no, when: pending}
- {from: pay, to: ok}
- {from: tell, to: info}
"""


def test_every_path_with_assignments_actions_and_outcome() -> None:
    paths = enumerate_paths(_graph(BRANCHY))
    assert [(p.id, p.outcome) for p in paths] == [
        ("refund/shipped", "resolved"),
        ("refund/pending", "refused"),
        ("status", "info_requested"),
        ("other", "refused"),
    ]
    first = paths[0]
    assert first.nodes == ["start", "ask", "stage", "pay", "ok"]
    assert first.end == "ok"
    assert first.assignments == {"Demand": "refund", "Stage": "shipped"}
    assert first.actions == [{"node": "pay", "tool": "refund", "args": {"order_id": "=order.order_id"}}]
    assert paths[2].actions == [{"node": "tell", "say": "Share tracking"}]
    assert paths[3].assignments == {"Demand": "other"}
    assert paths[3].to_json() == {
        "id": "other",
        "nodes": ["start", "ask", "no"],
        "actions": [],
        "assignments": {"Demand": "other"},
        "outcome": "refused",
    }


def test_path_allows() -> None:
    path = enumerate_paths(_graph(BRANCHY))[0]
    assert path.allows("Demand", "refund")
    assert not path.allows("Demand", "status")
    assert path.allows("Mood", "angry")  # a field the path never decides allows anything


def test_field_decided_twice_keeps_only_consistent_paths() -> None:
    # Demand is asked, then asked again after a step: only refund/refund and status/status survive
    graph = _graph("""\
        fields:
          Demand: {source: user, values: [refund, status]}
        nodes:
        - {id: start, kind: start}
        - {id: ask, kind: decision, field: Demand}
        - {id: a, kind: action, say: Apologise}
        - {id: b, kind: action, say: Greet}
        - {id: again, kind: decision, field: Demand}
        - {id: ok, kind: end, outcome: resolved}
        - {id: no, kind: end, outcome: refused}
        edges:
        - {from: start, to: ask}
        - {from: ask, to: a, when: refund}
        - {from: ask, to: b, when: status}
        - {from: a, to: again}
        - {from: b, to: again}
        - {from: again, to: ok, when: refund}
        - {from: again, to: no, when: status}
        """)
    paths = enumerate_paths(graph)
    assert [(p.id, p.nodes[-1], p.assignments) for p in paths] == [
        ("refund/refund", "ok", {"Demand": "refund"}),
        ("status/status", "no", {"Demand": "status"}),
    ]


def test_multi_value_edges_assign_a_list_and_narrow_later() -> None:
    graph = _graph("""\
        fields:
          Demand: {source: user, values: [refund, status, other]}
        nodes:
        - {id: start, kind: start}
        - {id: ask, kind: decision, field: Demand}
        - {id: again, kind: decision, field: Demand}
        - {id: ok, kind: end, outcome: resolved}
        - {id: no, kind: end, outcome: refused}
        edges:
        - {from: start, to: ask}
        - {from: ask, to: again, when: [refund, status]}
        - {from: ask, to: no, when: other}
        - {from: again, to: ok, when: [refund, other]}
        - {from: again, to: no, when: status}
        """)
    paths = enumerate_paths(graph)
    assert [(p.id, p.assignments) for p in paths] == [
        ("refund+status/refund", {"Demand": "refund"}),
        ("refund+status/status", {"Demand": "status"}),
        ("other", {"Demand": "other"}),
    ]
    multi = _graph(BRANCHY.replace("when: status}", "when: [status, other]}").replace("- {from: ask, to: no, when: other}\n", ""))
    status = next(p for p in enumerate_paths(multi) if p.nodes[-1] == "info")
    assert status.id == "status+other"
    assert status.assignments == {"Demand": ["status", "other"]}
    assert status.allows("Demand", "other") and not status.allows("Demand", "refund")


def test_cycles_yield_simple_paths_only() -> None:
    # ask -> retry -> ask again: the loop is taken at most once per node, and the way out is found
    graph = _graph("""\
        fields:
          Clear: {source: user, values: [yes, no]}
        nodes:
        - {id: start, kind: start}
        - {id: ask, kind: decision, field: Clear}
        - {id: retry, kind: action, say: Ask again}
        - {id: ok, kind: end, outcome: resolved}
        edges:
        - {from: start, to: ask}
        - {from: ask, to: ok, when: "yes"}
        - {from: ask, to: retry, when: "no"}
        - {from: retry, to: ask}
        """)
    paths = enumerate_paths(graph)
    assert [(p.id, p.nodes) for p in paths] == [("yes", ["start", "ask", "ok"])]


def test_graph_without_decisions_has_one_main_path() -> None:
    graph = _graph("""\
        nodes:
        - {id: start, kind: start}
        - {id: look, kind: action, tool: lookup_order}
        - {id: ok, kind: end, outcome: resolved}
        edges:
        - {from: start, to: look}
        - {from: look, to: ok}
        """)
    (path,) = enumerate_paths(graph)
    assert (path.id, path.assignments, path.outcome) == ("main", {}, "resolved")


def test_same_decisions_twice_get_distinct_ids() -> None:
    doubled = BRANCHY.replace(
        "- {from: ask, to: no, when: other}", "- {from: ask, to: no, when: other}\n- {from: ask, to: info, when: other}"
    )
    ids = [p.id for p in enumerate_paths(_graph(doubled))]
    assert ids[-2:] == ["other", "other~2"]
    assert len(set(ids)) == len(ids)


def test_no_start_gives_no_paths_and_dangling_edges_are_skipped() -> None:
    assert enumerate_paths(_graph("nodes:\n- {id: ok, kind: end, outcome: resolved}\n")) == []
    dangling = _graph(BRANCHY + "- {from: pay, to: nowhere}\n")
    assert len(enumerate_paths(dangling)) == 4


def _wide(decisions: int) -> Graph:
    """A chain of binary decisions: 2**decisions paths."""
    nodes = ["- {id: start, kind: start}", "- {id: ok, kind: end, outcome: resolved}"]
    edges = ["- {from: start, to: d0}"]
    for i in range(decisions):
        nxt = f"d{i + 1}" if i + 1 < decisions else "ok"
        nodes.append(f"- {{id: d{i}, kind: decision, field: F{i}}}")
        edges += [f"- {{from: d{i}, to: {nxt}, when: x}}", f"- {{from: d{i}, to: {nxt}, when: y}}"]
    fields = "\n".join(f"  F{i}: {{source: user, values: [x, y]}}" for i in range(decisions))
    return _graph(f"fields:\n{fields}\nnodes:\n" + "\n".join(nodes) + "\nedges:\n" + "\n".join(edges) + "\n")


def test_path_limit() -> None:
    graph = _wide(6)
    assert len(enumerate_paths(graph)) == 64
    assert len(enumerate_paths(graph, limit=64)) == 64
    with pytest.raises(SageError, match="more than 63 paths"):
        enumerate_paths(graph, limit=63)


def test_northline_paths_are_grounded_in_the_domain() -> None:
    bundle = load_domain("northline")
    paths = enumerate_paths(load_graph(bundle.sop_path))
    assert len(paths) == 29
    assert len({p.id for p in paths}) == 29
    tools = set(bundle.tool_names())
    for path in paths:
        assert path.nodes[0] == "start"
        assert path.outcome in ("resolved", "refused", "escalated", "info_requested")
        assert all(a["tool"] in tools for a in path.actions if "tool" in a)
        for field_name, value in path.assignments.items():
            values = value if isinstance(value, list) else [value]
            assert set(values) <= set(bundle.graph.fields[field_name].values)
    escalations = [p for p in paths if p.assignments.get("Escalation") not in (None, "none")]
    assert escalations and all(p.outcome == "escalated" for p in escalations)
