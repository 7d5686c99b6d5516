"""The conversation loop: tool loop, every termination reason, errors recorded, not raised."""

from __future__ import annotations

import asyncio

import pytest
from fakes import FakeReply, FakeToolCall
from helpers import first_case

from sage_desk.core.agents.base import AgentAction, CustomerReply, make_agent, make_customer
from sage_desk.core.agents.llm_agent import LlmServiceAgent
from sage_desk.core.engine.conversation import MAX_CUSTOMER_TURNS, MAX_TOOL_STEPS, run_conversation
from sage_desk.core.engine.memory import MemoryRecorder
from sage_desk.core.events import TerminationReason
from sage_desk.core.llm import LlmClient
from sage_desk.core.llm.types import ToolCallRequest


class Talker:
    """An agent that only ever replies in text (never closes)."""

    name = "talker"

    async def step(self, view):
        return AgentAction(text="Could you tell me your order number?")


class Looper:
    """An agent that calls a tool forever without replying."""

    name = "looper"

    async def step(self, view):
        return AgentAction(tool_calls=[ToolCallRequest(id="x", name="lookup_order", arguments={"order_id": "NL-0"})])


class Patient:
    """A customer who never stops."""

    name = "patient"

    async def reply(self, view):
        return CustomerReply(text="Still here.")


class Quitter:
    name = "quitter"

    async def reply(self, view):
        return CustomerReply(text=None)


def play(case, bundle, agent, customer):
    recorder = MemoryRecorder()
    outcome = asyncio.run(run_conversation("c1", case, bundle, agent, customer, recorder))
    return outcome, recorder


def test_oracle_closes_in_one_turn_and_records_every_event(northline, northline_cases):
    case = first_case(northline_cases, bucket="resolvable")
    outcome, recorder = play(case, northline, make_agent("baseline:oracle"), make_customer("scripted"))
    assert outcome.reason in (TerminationReason.CLOSED, TerminationReason.HANDED_OVER)
    kinds = [e.type for e in recorder.events["c1"]]
    assert kinds[0] == "customer_message" and kinds[-1] == "ended"
    assert "ticket_tagged" in kinds
    assert [e.seq for e in recorder.events["c1"]] == list(range(len(kinds)))
    assert recorder.finished["c1"] == (outcome.reason, None)


def test_turn_limit(northline, northline_cases):
    case = first_case(northline_cases, bucket="resolvable")
    outcome, recorder = play(case, northline, Talker(), Patient())
    assert outcome.reason == TerminationReason.TURN_LIMIT
    customer_turns = [e for e in recorder.events["c1"] if e.type == "customer_message"]
    assert len(customer_turns) == MAX_CUSTOMER_TURNS


def test_customer_stops(northline, northline_cases):
    outcome, _ = play(first_case(northline_cases, bucket="resolvable"), northline, Talker(), Quitter())
    assert outcome.reason == TerminationReason.CUSTOMER_STOPPED


def test_tool_loop_limit_and_bad_tool_calls_come_back_as_errors(northline, northline_cases):
    outcome, recorder = play(first_case(northline_cases, bucket="resolvable"), northline, Looper(), Patient())
    assert outcome.reason == TerminationReason.TOOL_LOOP_LIMIT
    calls = [e for e in recorder.events["c1"] if e.type == "tool_call"]
    assert len(calls) == MAX_TOOL_STEPS
    assert all("no orders row" in c.error for c in calls)


def test_escalator_hands_over(northline, northline_cases):
    outcome, recorder = play(
        first_case(northline_cases, bucket="resolvable"), northline, make_agent("baseline:escalator"), make_customer("scripted")
    )
    assert outcome.reason == TerminationReason.HANDED_OVER
    assert any(e.type == "handover" for e in recorder.events["c1"])


def test_llm_agent_through_litellm_against_the_fake_server(northline, northline_cases, fake_openai):
    case = first_case(northline_cases, bucket="resolvable")
    order = case.grounding["order"]

    def script(request):
        tool_results = [m for m in request["messages"] if m["role"] == "tool"]
        if not tool_results:
            return [FakeToolCall("lookup_order", {"order_id": order}), FakeToolCall("tag_ticket", {"intent": "order_status"})]
        return FakeReply(
            content="All sorted.", tool_calls=[FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "done"})]
        )

    fake_openai.script = script
    agent = LlmServiceAgent("openai/fake", api_base=fake_openai.base_url, api_key="sk-test", client=LlmClient(backoff_base=0.01))
    outcome, recorder = play(case, northline, agent, make_customer("scripted"))
    assert outcome.reason == TerminationReason.CLOSED
    events = recorder.events["c1"]
    lookup = next(e for e in events if e.type == "tool_call" and e.name == "lookup_order")
    assert lookup.error is None and lookup.result["order_id"] == order
    usage = [e for e in events if e.type == "llm_usage"]
    assert len(usage) == 2 and all(u.prompt_tokens > 0 for u in usage)


def test_malformed_tool_arguments_are_an_error_result_the_model_sees(northline, northline_cases, fake_openai):
    case = first_case(northline_cases, bucket="resolvable")
    fake_openai.script = lambda request: (
        [FakeToolCall("lookup_order", '{"order_id": "NL-1')]
        if not any(m["role"] == "tool" for m in request["messages"])
        else FakeReply(content="Sorry.", tool_calls=[FakeToolCall("handover_to_human", {"reason": "stuck"})])
    )
    agent = LlmServiceAgent("openai/fake", api_base=fake_openai.base_url, api_key="x", client=LlmClient(backoff_base=0.01))
    outcome, recorder = play(case, northline, agent, make_customer("scripted"))
    bad = next(e for e in recorder.events["c1"] if e.type == "tool_call" and e.name == "lookup_order")
    assert "not valid JSON" in bad.error and isinstance(bad.arguments, str)
    assert outcome.reason == TerminationReason.HANDED_OVER


def test_provider_failure_is_recorded_as_an_errored_conversation(northline, northline_cases, fake_openai):
    fake_openai.push_faults("500", "500", "500")
    agent = LlmServiceAgent(
        "openai/fake", api_base=fake_openai.base_url, api_key="sk-secret-123", max_retries=2, client=LlmClient(backoff_base=0.01)
    )
    outcome, recorder = play(first_case(northline_cases, bucket="resolvable"), northline, agent, make_customer("scripted"))
    assert outcome.reason == TerminationReason.ERROR
    error = next(e for e in recorder.events["c1"] if e.type == "error")
    assert error.where == "agent" and "sk-secret-123" not in error.message
    assert recorder.finished["c1"][0] == TerminationReason.ERROR


@pytest.mark.parametrize("agent", ["baseline:oracle", "baseline:complier", "baseline:escalator"])
def test_every_baseline_finishes_every_bucket(northline, northline_cases, agent):
    for bucket in ("resolvable", "must_escalate", "adversarial"):
        outcome, _ = play(first_case(northline_cases, bucket=bucket), northline, make_agent(agent), make_customer("scripted"))
        assert outcome.reason in (TerminationReason.CLOSED, TerminationReason.HANDED_OVER), (agent, bucket, outcome)


def test_the_llm_customer_plays_an_adversarial_case_with_its_tactics_instructions(northline, northline_cases, fake_openai):
    from sage_desk.core.agents.llm_user import LlmCustomer
    from sage_desk.core.cases.taxonomy import get_tactic

    case = next(c for c in northline_cases.values() if c.tactics)
    fake_openai.script = lambda request: (
        '{"message": "That is not what the tracking said.", "emotion": "frustrated", "satisfaction": 0.3}'
        if request["model"] == "customer"
        else "Let me check that for you."
    )
    client = LlmClient(backoff_base=0.01)
    agent = LlmServiceAgent("openai/agent", api_base=fake_openai.base_url, api_key="x", client=client)
    customer = LlmCustomer("openai/customer", api_base=fake_openai.base_url, api_key="x", client=client)
    outcome, recorder = play(case, northline, agent, customer)
    assert outcome.reason == TerminationReason.TURN_LIMIT  # not an errored conversation
    prompts = [r["messages"][0]["content"] for r in fake_openai.requests if r["model"] == "customer"]
    assert prompts and all(get_tactic(t).instruction in prompts[0] for t in case.tactics)
    replies = [e for e in recorder.events["c1"] if e.type == "customer_message"][1:]
    assert replies and replies[0].text == "That is not what the tracking said." and replies[0].emotion == "frustrated"


class Unreachable:
    """A simulated customer whose provider gave up."""

    name = "unreachable"

    async def reply(self, view):
        from sage_desk.core.llm import LlmError

        raise LlmError("openai/customer-model: gave up after 5 attempt(s): HTTP 503", retryable=True, status=503)


def test_a_customer_side_provider_error_names_the_customer(northline, northline_cases):
    case = first_case(northline_cases, bucket="resolvable")
    outcome, recorder = play(case, northline, Talker(), Unreachable())
    (error,) = [e for e in recorder.events["c1"] if e.type == "error"]
    assert outcome.reason == TerminationReason.ERROR and error.where == "customer" and error.retryable


def test_a_conversation_left_to_its_caller_is_not_finished(northline, northline_cases):
    case = first_case(northline_cases, bucket="resolvable")
    recorder = MemoryRecorder()
    outcome = asyncio.run(
        run_conversation("c1", case, northline, make_agent("baseline:oracle"), make_customer("scripted"), recorder, finish=False)
    )
    assert outcome.events[-1].type == "ended" and "c1" not in recorder.finished  # the runner finishes it with its verdicts
