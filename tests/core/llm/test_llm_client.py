"""LlmClient against the local fake server, over both transports (direct HTTP and litellm), never a real provider."""

from __future__ import annotations

import asyncio
import logging
import traceback

import pytest
from fakes import FakeOpenAIServer, FakeReply, FakeToolCall

from sage_desk.core.llm import LlmClient, LlmError, register_prices

MODEL = "openai/fake-model"
KEY = "sk-test-DO-NOT-LEAK-0123456789"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Look an order up",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
        },
    }
]
HELLO = [{"role": "user", "content": "hello"}]


def _call(client: LlmClient, server: FakeOpenAIServer, **kwargs: object):  # type: ignore[no-untyped-def]
    params = {"api_base": server.base_url, "api_key": "x", "messages": HELLO, **kwargs}
    return asyncio.run(client.complete(MODEL, **params))  # type: ignore[arg-type]


def test_content(client: LlmClient, fake_openai: FakeOpenAIServer) -> None:
    reply = _call(client, fake_openai, temperature=0.2, seed=7)
    assert reply.content == "echo: hello" and reply.tool_calls == [] and reply.finish_reason == "stop"
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    assert reply.usage.cost_usd == 0.0  # nobody priced the fake model
    assert reply.usage.model == MODEL and reply.usage.latency_ms > 0 and reply.attempts == 1
    (request,) = fake_openai.requests
    assert (request["model"], request["temperature"], request["seed"]) == ("fake-model", 0.2, 7)
    assert fake_openai.headers[0]["authorization"] == "Bearer x"


def test_tool_calls(client: LlmClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script = lambda req: FakeReply(
        "Let me look.", [FakeToolCall("lookup_order", {"order_id": "NL-1042"}, id="call_a")]
    )
    reply = _call(client, fake_openai, tools=TOOLS)
    assert reply.content == "Let me look." and reply.finish_reason == "tool_calls"
    (call,) = reply.tool_calls
    assert (call.id, call.name, call.arguments, call.parse_error) == ("call_a", "lookup_order", {"order_id": "NL-1042"}, None)
    assert fake_openai.requests[0]["tools"][0]["function"]["name"] == "lookup_order"
    history = [*HELLO, reply.assistant_message(), {"role": "tool", "tool_call_id": "call_a", "content": '{"status": "Shipped"}'}]
    fake_openai.script = None
    assert _call(client, fake_openai, messages=history, tools=TOOLS).content == "echo: hello"  # the history is accepted


def test_malformed_tool_arguments_are_kept_not_raised(client: LlmClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.push_faults("malformed")
    reply = _call(client, fake_openai, tools=TOOLS)
    (call,) = reply.tool_calls
    assert call.name == "lookup_order" and call.arguments is None
    assert call.arguments_raw == '{"order_id": "NL-10' and "not valid JSON" in (call.parse_error or "")
    assert reply.attempts == 1  # a model's bad output is not a transport failure


def test_retries_429_500_and_timeout_then_succeeds(
    client: LlmClient, fake_openai: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_openai.hold_seconds = 1.0
    fake_openai.push_faults("429", "500", "timeout", "503")
    with caplog.at_level(logging.WARNING, logger="sage_desk.core.llm"):
        reply = _call(client, fake_openai, timeout=0.3, max_retries=4)
    assert reply.content == "echo: hello" and reply.attempts == 5
    assert len(fake_openai.requests) == 5
    logged = [r.getMessage().split(" (")[0] for r in caplog.records]
    if client.transport == "litellm":
        assert logged == [
            f"{MODEL}: {name}" for name in ("RateLimitError", "InternalServerError", "Timeout", "ServiceUnavailableError")
        ]
    else:
        assert logged == [f"{MODEL}: {name}" for name in ("EndpointError", "EndpointError", "EndpointTimeout", "EndpointError")]
    statuses = [r.getMessage().split("(status ")[1].split(")")[0] for r in caplog.records]
    assert statuses[:2] + statuses[3:] == ["429", "500", "503"]  # a timeout has none (litellm says 408)


def test_gives_up_after_max_retries(client: LlmClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.push_faults("429", "429", "429", "429")
    with pytest.raises(LlmError) as info:
        _call(client, fake_openai, max_retries=2)
    assert (info.value.retryable, info.value.status, info.value.attempts) == (True, 429, 3)
    assert "gave up after 3 attempt(s)" in str(info.value)
    assert len(fake_openai.requests) == 3


@pytest.mark.parametrize("fault,status", [("400", 400), ("401", 401), ("404", 404)])
def test_permanent_errors_are_not_retried(client: LlmClient, fake_openai: FakeOpenAIServer, fault: str, status: int) -> None:
    fake_openai.push_faults(fault)
    with pytest.raises(LlmError) as info:
        _call(client, fake_openai, max_retries=4)
    assert (info.value.retryable, info.value.status, info.value.attempts) == (False, status, 1)
    assert len(fake_openai.requests) == 1


def test_an_api_key_never_appears_in_an_error(
    client: LlmClient, fake_openai: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_openai.push_faults("429", "401")  # the 401 body echoes the key back
    with caplog.at_level(logging.DEBUG), pytest.raises(LlmError) as info:
        _call(client, fake_openai, api_key=KEY, max_retries=3)
    assert fake_openai.headers[0]["authorization"] == f"Bearer {KEY}"  # it was passed through ...
    shown = "".join(traceback.format_exception(info.value)) + repr(info.value) + caplog.text
    assert "Incorrect API key provided" in shown
    assert KEY not in shown and "DO-NOT-LEAK" not in shown  # ... and never shown
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_a_dead_endpoint_is_a_retryable_error(client: LlmClient) -> None:
    with FakeOpenAIServer() as server:
        dead = server.base_url  # the port is free again once it stops
    with pytest.raises(LlmError) as info:
        asyncio.run(client.complete(MODEL, HELLO, api_base=dead, api_key=KEY, max_retries=1, timeout=2))
    assert info.value.retryable and info.value.attempts == 2 and KEY not in str(info.value)


def test_mock_response_needs_no_server(client: LlmClient) -> None:
    reply = asyncio.run(client.complete(MODEL, HELLO, mock_response="Your refund is on its way."))
    assert reply.content == "Your refund is on its way."
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0 and reply.usage.cost_usd == 0.0


def test_cost_from_registered_prices(client: LlmClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script = lambda req: FakeReply("ok", prompt_tokens=1000, completion_tokens=200)
    register_prices(MODEL, input_per_token=1e-6, output_per_token=4e-6)
    reply = _call(client, fake_openai)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (1000, 200)
    assert reply.usage.cost_usd == pytest.approx(1000 * 1e-6 + 200 * 4e-6)


def test_cost_from_litellm_price_map(client: LlmClient) -> None:
    reply = asyncio.run(client.complete("openai/gpt-4o-mini", HELLO, mock_response="hi"))
    assert reply.usage.cost_usd > 0.0


def test_complete_sync(client: LlmClient, fake_openai: FakeOpenAIServer) -> None:
    reply = client.complete_sync(MODEL, HELLO, api_base=fake_openai.base_url, api_key="x")
    assert reply.content == "echo: hello"

    async def inside_a_loop() -> str | None:
        return client.complete_sync(MODEL, HELLO, mock_response="from a thread").content

    assert asyncio.run(inside_a_loop()) == "from a thread"
