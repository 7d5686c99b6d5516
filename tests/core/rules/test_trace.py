"""The route a conversation took through the graph, and where it left the expected route."""

from __future__ import annotations

import pytest

from sage_desk.core.events import CustomerMessage, Handover, TicketClosed, ToolCall
from sage_desk.core.rules.trace import describe_trace, trace_conversation
from sage_desk.core.sop.model import NodeKind


def seq(*events):
    for i, e in enumerate(events):
        e.seq = i
    return list(events)


def call(name, args, kind="read", **kw):
    return ToolCall(name=name, arguments=args, kind=kind, **kw)


def close(outcome="resolved"):
    return [call("close_ticket", {"outcome": outcome}, kind="helpdesk"), TicketClosed(outcome=outcome)]


@pytest.fixture
def damaged(northline_cases):
    """A resolvable damaged-item case with a photo: look the order up, send a replacement."""
    return next(c for c in northline_cases.values() if c.expected.path == "none/damaged/photo" and c.bucket.value == "resolvable")


def expected_calls(case):
    return [
        call(a.tool, a.args, kind="record" if a.tool == "send_replacement" else "read") for a in case.expected.actions if a.tool
    ]


def test_the_expected_route_is_followed(northline, damaged):
    events = seq(CustomerMessage(text=damaged.opening), *expected_calls(damaged), *close())
    trace = trace_conversation(damaged, northline, events)
    assert trace.followed and trace.taken == trace.expected and trace.taken_id == "none/damaged/photo"
    # each action is tied to the node it stands for (the timeline and the graph are linked through it)
    assert trace.action_nodes == {1: "lookup", 2: "replace_damaged"}
    assert describe_trace(trace) == "Followed the expected route."


def test_a_handover_leaves_the_route_at_the_decision_that_chose_it(northline, damaged):
    events = seq(
        CustomerMessage(text=damaged.opening), call("handover_to_human", {"reason": "x"}, kind="helpdesk"), Handover(reason="x")
    )
    trace = trace_conversation(damaged, northline, events)
    taken_end = northline.graph.node(trace.taken[-1])
    assert taken_end.outcome == "escalated" and not trace.followed
    assert trace.divergence in trace.taken and trace.divergence not in trace.expected[: trace.taken.index(trace.divergence) + 1]
    assert northline.graph.node(trace.turned_at).kind == NodeKind.DECISION
    shared = trace.taken.index(trace.divergence)
    assert trace.taken[:shared] == trace.expected[:shared]
    labels = {n.id: n.label for n in northline.graph.nodes}
    text = describe_trace(trace, labels)
    assert text.startswith(f"Left the expected route after “{labels[trace.turned_at]}”")


def test_a_reship_instead_of_a_replacement_takes_the_lost_parcel_route(northline, damaged):
    lookup = expected_calls(damaged)[0]
    events = seq(
        CustomerMessage(text=damaged.opening), lookup, call("reship_order", {"order_id": "NL-11189"}, kind="record"), *close()
    )
    trace = trace_conversation(damaged, northline, events)
    tools = [northline.graph.node(n).tool for n in trace.taken]
    assert "reship_order" in tools and "send_replacement" not in tools
    assert trace.divergence is not None and trace.off_route == []


def test_a_step_with_wrong_arguments_stays_on_the_route_but_is_the_first_problem(northline, damaged):
    lookup, replace = expected_calls(damaged)
    wrong = call("send_replacement", {**replace.arguments, "variant_id": "SOMETHING-ELSE"}, kind="record")
    events = seq(CustomerMessage(text=damaged.opening), lookup, wrong, *close())
    trace = trace_conversation(damaged, northline, events)
    assert trace.divergence is None and trace.taken == trace.expected
    assert trace.first_problem == "replace_damaged" and not trace.followed
    assert "was not done as expected" in describe_trace(trace)


def test_an_action_no_route_explains_is_listed_off_the_graph(northline, damaged):
    events = seq(
        CustomerMessage(text=damaged.opening),
        *expected_calls(damaged),
        call("cancel_order", {"order_id": "NL-11189"}, kind="write"),
        *close(),
    )
    trace = trace_conversation(damaged, northline, events)
    assert [c.name for c in trace.off_route] == ["cancel_order"]
    assert describe_trace(trace).endswith("Off the graph: cancel_order.")


def test_a_step_skipped_is_passed_by_never_drawn_as_gone_through(northline, damaged):
    """Labelled before running: the agent sends the replacement without looking the order up, then closes
    resolved. A reviewer says the route went to the replacement but never through "Look up the order":
    the route may pass that node (no path reaches the replacement without it), but it is not called."""
    _, replace = expected_calls(damaged)
    events = seq(CustomerMessage(text=damaged.opening), replace, *close())
    trace = trace_conversation(damaged, northline, events)
    assert trace.not_called == ["lookup"]
    assert trace.action_nodes == {1: "replace_damaged"} and "replace_damaged" not in trace.not_called
    labels = {n.id: n.label for n in northline.graph.nodes}
    assert "Not called: “Look up the order”." in describe_trace(trace, labels)


def test_every_step_called_leaves_nothing_passed_by(northline, damaged):
    events = seq(CustomerMessage(text=damaged.opening), *expected_calls(damaged), *close())
    assert trace_conversation(damaged, northline, events).not_called == []


def test_doing_nothing_passes_every_tool_node_of_its_route_by(northline, damaged):
    events = seq(CustomerMessage(text=damaged.opening), *close())
    trace = trace_conversation(damaged, northline, events)
    tool_nodes = [n for n in trace.taken if northline.graph.node(n).tool]
    assert trace.not_called == tool_nodes and trace.action_nodes == {}
