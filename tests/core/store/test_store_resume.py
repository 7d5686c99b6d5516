"""Resume semantics: a restarted conversation forgets its interrupted attempt."""

from __future__ import annotations

from collections.abc import Callable

from sage_desk.core.events import AgentMessage, CustomerMessage, LlmUsage, Recorder, TerminationReason
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import Store


def test_start_conversation_clears_a_half_written_attempt(any_store: Store, make_run: Callable[..., str]) -> None:
    run_id = make_run(any_store, n=1)
    cid = "x-openai/a-c0"
    any_store.start_conversation(cid)
    any_store.append(cid, CustomerMessage(seq=0, turn=1, text="first attempt"))
    any_store.append(cid, AgentMessage(seq=1, turn=1, text="cut off here"))
    any_store.save_verdicts(cid, "rules", [Verdict(criterion="outcome", passed=False)])
    # the process dies; the resume starts the conversation again
    assert [c.id for c in any_store.unfinished_conversations(run_id)] == [cid]
    any_store.start_conversation(cid)
    assert any_store.events(cid) == []
    assert any_store.verdicts(cid) == []
    any_store.append(cid, CustomerMessage(seq=0, turn=1, text="second attempt"))
    assert [e.text for e in any_store.events(cid)] == ["second attempt"]  # type: ignore[union-attr]
    assert any_store.conversation(cid).status == "running"


def test_unfinished_is_pending_running_and_cancelled(store: Store, make_run: Callable[..., str]) -> None:
    run_id = make_run(store, n=5)
    ids = [c.id for c in store.conversations(run_id)]
    store.start_conversation(ids[0])
    store.finish(ids[0], TerminationReason.CLOSED)
    store.start_conversation(ids[1])
    store.finish(ids[1], TerminationReason.ERROR, error="429 after retries")
    store.start_conversation(ids[2])  # running when the process died
    store.start_conversation(ids[3])
    store.finish(ids[3], TerminationReason.CANCELLED)
    unfinished = [c.id for c in store.unfinished_conversations(run_id)]
    assert unfinished == [ids[2], ids[3], ids[4]]
    assert store.get_run(run_id).counts == {"finished": 1, "errored": 1, "running": 1, "cancelled": 1, "pending": 1}


def test_finish_totals_turns_tokens_and_cost(any_store: Store, make_run: Callable[..., str]) -> None:
    make_run(any_store, n=1)
    cid = "x-openai/a-c0"
    any_store.start_conversation(cid)
    any_store.append(cid, CustomerMessage(seq=0, turn=1, text="hi"))
    any_store.append(
        cid, LlmUsage(seq=1, turn=1, role="agent", model="m", prompt_tokens=100, completion_tokens=20, cost_usd=0.25)
    )
    any_store.append(cid, CustomerMessage(seq=2, turn=2, text="and?"))
    any_store.append(cid, LlmUsage(seq=3, turn=2, role="user", model="u", prompt_tokens=10, completion_tokens=5, cost_usd=0.5))
    any_store.finish(cid, TerminationReason.TURN_LIMIT)
    conv = any_store.conversation(cid)
    assert (conv.status, conv.termination, conv.error) == ("finished", "turn_limit", None)
    assert (conv.turns, conv.prompt_tokens, conv.completion_tokens, conv.cost_usd) == (2, 110, 25, 0.75)
    assert conv.started_at is not None and conv.finished_at is not None and conv.finished_at >= conv.started_at


def test_an_error_finish_is_errored_with_its_text(store: Store, make_run: Callable[..., str]) -> None:
    make_run(store, n=1)
    store.start_conversation("x-openai/a-c0")
    store.finish("x-openai/a-c0", TerminationReason.ERROR, error="provider 500 after 4 retries")
    conv = store.conversation("x-openai/a-c0")
    assert (conv.status, conv.termination, conv.error) == ("errored", "error", "provider 500 after 4 retries")
    store.start_conversation("x-openai/a-c0")  # a resume retries it from scratch
    conv = store.conversation("x-openai/a-c0")
    assert (conv.status, conv.error, conv.finished_at) == ("running", None, None)


def test_the_store_is_the_engines_recorder(store: Store) -> None:
    recorder: Recorder = store  # mypy checks the protocol; at run time the methods must exist
    assert all(callable(getattr(recorder, m)) for m in ("start_conversation", "append", "finish"))
