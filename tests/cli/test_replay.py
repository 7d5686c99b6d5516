"""`sage-desk replay`: a stored conversation re-played from one turn, N times, offline.

The baselines answer the same every time; a fake OpenAI-compatible model that alternates shows
the shares, and its requests show the fork: the earlier turns rebuilt, the world as it stood."""

from __future__ import annotations

import itertools

from fakes import FakeOpenAIServer, FakeReply, FakeToolCall
from helpers import replay_json, run_args

from sage_desk.cli import main
from sage_desk.core.engine.replay import REPLY_ONLY, action_of, wilson
from sage_desk.core.store import Store


def test_the_oracle_takes_the_same_action_every_time(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    assert main(run_args(db, "baseline:oracle", judge="none", cases="nl-145")) == 0
    (convo,) = Store(db).conversations()
    code, data = replay_json(capsys, convo.id, "--from-turn", "1", "--times", "5", "--db", db)
    assert code == 0 and data["original"] == "open_carrier_trace then close:resolved"
    (row,) = data["actions"]
    assert row["action"] == data["original"] and row["count"] == 5 and row["share"] == 1 and row["original"]
    assert row["interval"][1] == 1 and 0.5 < row["interval"][0] < 0.6  # Wilson: five of five is not certainty
    code, err = replay_json(capsys, convo.id, "--from-turn", "3", "--db", db)
    assert code == 1 and "did not act in turn 3" in err


def _model(request):
    """Turn 1: reship, then say so. Turn 2 (replayed): close or hand over, alternately."""
    messages = request["messages"]
    if messages[-1]["role"] == "tool":
        return FakeReply("I have sent a replacement.")
    if sum(m["role"] == "user" for m in messages) == 1:
        return [FakeToolCall("reship_order", {"order_id": "NL-10783", "reason": "lost_in_transit"})]
    if next(_turn_two) % 2:
        return [FakeToolCall("handover_to_human", {"reason": "check"})]
    return [FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "reshipped"})]


_turn_two = itertools.count()


def test_a_model_forked_at_turn_two_sees_the_turns_before_and_varies(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_model) as server:
        assert main(run_args(db, "openai/fake", judge="none", cases="nl-019", extra=["--api-base", server.base_url])) in (0, 1)
        (convo,) = Store(db).conversations()
        turns = {e.turn for e in Store(db).events(convo.id) if e.type == "tool_call"}
        assert turns == {1, 2}, "the customer answered once, the model acted in both turns"
        before = len(server.requests)
        code, data = replay_json(capsys, convo.id, "--from-turn", "2", "--times", "6", "--db", db)
        assert code == 0, data
        asked = server.requests[before]["messages"]
    assert {r["action"]: r["count"] for r in data["actions"]} == {"close:resolved": 3, "handover": 3}
    assert sum(r["share"] for r in data["actions"]) == 1 and data["errors"] == []
    assert [m["role"] for m in asked][:3] == ["system", "user", "assistant"] and asked[-1]["role"] == "user"
    assert any(c["function"]["name"] == "reship_order" for m in asked for c in m.get("tool_calls") or [])
    assert not any(c["function"]["name"] == "close_ticket" for m in asked for c in m.get("tool_calls") or [])


def test_fork_brings_the_world_to_where_it_stood(tmp_path):
    from sage_desk.core.cases.suite import load_suite
    from sage_desk.core.domain import load_domain
    from sage_desk.core.engine.replay import fork
    from sage_desk.core.events import CustomerMessage, ToolCall

    bundle = load_domain("northline")
    case = next(c for c in load_suite(bundle.cases_path) if c.id == "nl-019")
    events = [
        CustomerMessage(text="lost", turn=1),
        ToolCall(name="reship_order", arguments={"order_id": "NL-10783", "reason": "lost_in_transit"}, kind="record", turn=1),
        CustomerMessage(text="thanks", turn=2),
        ToolCall(name="close_ticket", arguments={"outcome": "resolved"}, kind="helpdesk", turn=2),
    ]
    convo = fork("c-x", case, bundle, events, 2, seed=1)
    assert [r["tool"] for r in convo.world.records] == ["reship_order"]
    assert [e.type for e in convo.events] == ["customer_message", "tool_call", "customer_message"]
    assert action_of(events[3:]) == "close:resolved" and action_of(events[:1]) == REPLY_ONLY
    assert wilson(0, 10)[0] == 0 and wilson(10, 10)[1] == 1
