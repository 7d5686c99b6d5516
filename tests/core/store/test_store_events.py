"""Every event type survives the database unchanged."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sage_desk.core.events import (
    AgentMessage,
    CustomerMessage,
    Ended,
    ErrorEvent,
    Event,
    Handover,
    LlmUsage,
    TerminationReason,
    TicketClosed,
    TicketTagged,
    ToolCall,
)
from sage_desk.core.store import Store, StoreError

ALL_EVENTS: list[Event] = [
    CustomerMessage(
        seq=0, turn=1, t=0.0, text="My order NL-1042 never arrived. Ünïcödé ✓", emotion="frustrated", satisfaction=0.2
    ),
    ToolCall(
        seq=1,
        turn=1,
        t=0.5,
        call_id="call_1",
        name="lookup_order",
        arguments={"order_id": "NL-1042"},
        result={"status": "Shipped", "items": [1, 2]},
        kind="read",
        latency_ms=12.5,
    ),
    ToolCall(
        seq=2,
        turn=1,
        t=0.6,
        call_id="call_2",
        name="reship",
        arguments='{"order_id": "NL-',
        error="arguments are not valid JSON",
        kind="record",
        guard_failed=True,
    ),
    TicketTagged(seq=3, turn=1, intent="not_received", slots={"CoreDemand": "reship", "EvidenceProvided": False}),
    AgentMessage(seq=4, turn=1, t=1.0, text="I'm sorry, let me check."),
    LlmUsage(
        seq=5,
        turn=1,
        role="agent",
        model="openai/gpt-x",
        prompt_tokens=120,
        completion_tokens=30,
        cost_usd=0.0012,
        latency_ms=800.0,
    ),
    LlmUsage(seq=6, turn=2, role="user", model="openai/sim", prompt_tokens=50, completion_tokens=10, cost_usd=0.0003),
    Handover(seq=7, turn=2, reason="customer threatens legal action"),
    TicketClosed(seq=8, turn=2, outcome="escalated", summary="handed over"),
    ErrorEvent(seq=9, turn=2, where="agent", message="429 after 4 retries", retryable=True),
    Ended(seq=10, turn=2, t=9.9, reason=TerminationReason.HANDED_OVER),
]


def test_every_event_type_round_trips(any_store: Store, make_run: Callable[..., str]) -> None:
    make_run(any_store, n=1)
    any_store.start_conversation("x-openai/a-c0")
    for event in ALL_EVENTS:
        any_store.append("x-openai/a-c0", event)
    back = any_store.events("x-openai/a-c0")
    assert back == ALL_EVENTS
    assert {type(e) for e in back} == {type(e) for e in ALL_EVENTS}
    assert [e.seq for e in any_store.events("x-openai/a-c0", after_seq=7)] == [8, 9, 10]


def test_events_come_back_in_seq_order_whatever_the_append_order(store: Store, make_run: Callable[..., str]) -> None:
    make_run(store, n=1)
    for seq in (2, 0, 1):
        store.append("x-openai/a-c0", AgentMessage(seq=seq, text=str(seq)))
    assert [e.seq for e in store.events("x-openai/a-c0")] == [0, 1, 2]


def test_a_taken_seq_is_refused(store: Store, make_run: Callable[..., str]) -> None:
    make_run(store, n=1)
    store.append("x-openai/a-c0", AgentMessage(seq=0, text="a"))
    with pytest.raises(StoreError, match="seq 0"):
        store.append("x-openai/a-c0", AgentMessage(seq=0, text="b"))
    assert [e.text for e in store.events("x-openai/a-c0")] == ["a"]  # type: ignore[union-attr]


def test_an_event_for_an_unknown_conversation_is_refused(store: Store) -> None:
    with pytest.raises(StoreError):
        store.append("nope", AgentMessage(seq=0, text="a"))
