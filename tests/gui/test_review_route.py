"""Review's route drawing comes from the calls: a tool node the route passes without its tool being called
is not drawn as gone through (issue 35: the route passed "Look up the order" although no lookup was called)."""

from __future__ import annotations

from gui_helpers import dispose

from sage_desk.core.domain.loader import load_domain
from sage_desk.core.events import CustomerMessage, TicketClosed, ToolCall
from sage_desk.core.rules.trace import trace_conversation
from sage_desk.gui.review.path_view import PathView


def test_a_lookup_never_called_is_passed_by_on_the_drawing(qtbot):
    bundle = load_domain("northline")
    case = next(c for c in bundle_cases() if c.expected.path == "none/damaged/photo" and c.bucket.value == "resolvable")
    replace = next(a for a in case.expected.actions if a.tool == "send_replacement")
    events = [
        CustomerMessage(text=case.opening),
        ToolCall(name="send_replacement", arguments=replace.args, kind="record"),
        ToolCall(name="close_ticket", arguments={"outcome": "resolved"}, kind="helpdesk"),
        TicketClosed(outcome="resolved"),
    ]
    for number, event in enumerate(events):
        event.seq = number
    trace = trace_conversation(case, bundle, events)
    view = PathView()
    qtbot.addWidget(view)
    view.show_route(bundle.graph, trace)
    scene = view.scene
    assert "lookup" in trace.taken and not scene.nodes["lookup"].highlighted  # passed by, not gone through
    assert scene.nodes["replace_damaged"].highlighted
    labels = [i.text() for i in scene.overlays if hasattr(i, "text")]
    assert labels == ["not called"]
    assert "Not called: “Look up the order”" in view.summary.text()
    dispose(view)


def bundle_cases():
    from sage_desk.core.cases.suite import load_suite

    return load_suite(load_domain("northline").cases_path)
