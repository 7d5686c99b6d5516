"""The client's small parts: argument parsing, redaction, backoff, provider keys, lazy import."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from sage_desk.core.llm import (
    LlmClient,
    parse_tool_call,
    provider_key,
    redact,
    register_prices,
    registered_price,
    unregister_prices,
)


@pytest.mark.parametrize(
    "raw,arguments,error",
    [
        ('{"order_id": "NL-1"}', {"order_id": "NL-1"}, None),
        ("", {}, None),
        ("  ", {}, None),
        (None, {}, None),
        ('{"order_id": "NL-', None, "not valid JSON"),
        ("[1, 2]", None, "a JSON list, not an object"),
        ('"just a string"', None, "a JSON str, not an object"),
    ],
)
def test_parse_tool_call(raw: str | None, arguments: dict | None, error: str | None) -> None:
    call = parse_tool_call("c1", "lookup_order", raw)
    assert call.arguments == arguments and call.arguments_raw == (raw or "")
    assert (call.parse_error is None) if error is None else (error in (call.parse_error or ""))


def test_redact_removes_given_secrets_and_key_shapes() -> None:
    text = "Incorrect API key provided: sk-abcdef0123456789. Authorization: Bearer eyJhbGciOi.xyz api_key='hunter22' myvalue"
    clean = redact(text, ["myvalue"])
    for leaked in ("sk-abcdef0123456789", "eyJhbGciOi", "hunter22", "myvalue"):
        assert leaked not in clean
    assert "Incorrect API key provided" in clean and "max_tokens=100" in redact("max_tokens=100")


def test_backoff_grows_is_capped_and_jittered() -> None:
    client = LlmClient(backoff_base=1.0, backoff_max=8.0, rng=random.Random(1))
    delays = [client.backoff_delay(a) for a in range(6)]
    for attempt, delay in enumerate(delays):
        ceiling = min(8.0, 2**attempt)
        assert ceiling / 2 <= delay <= ceiling
    assert client.backoff_delay(0, retry_after=5.0) == 5.0  # the provider's Retry-After is honoured
    assert client.backoff_delay(0, retry_after=60.0) == 8.0  # but never past the cap


def test_provider_key() -> None:
    assert provider_key("openai/gpt-4o") == "openai"
    assert provider_key("anthropic/claude") == "anthropic"
    assert provider_key("gpt-4o") == "openai"
    assert provider_key("openai/x", "http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/v1"


def test_registered_prices_match_with_or_without_prefix() -> None:
    register_prices("local-model", 1e-6, 2e-6)
    try:
        assert registered_price("openai/local-model") == registered_price("local-model")
        assert registered_price("openai/other") is None
        with pytest.raises(ValueError):
            register_prices("x", -1, 0)
    finally:
        unregister_prices("local-model")


def test_importing_the_package_does_not_import_litellm() -> None:
    code = "import sys, sage_desk.core.llm; assert 'litellm' not in sys.modules; import os; assert 'LITELLM_LOCAL_MODEL_COST_MAP' not in os.environ"
    env = {k: v for k, v in __import__("os").environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


def test_direct_calls_use_the_environments_proxy_except_for_no_proxy_hosts(fake_openai, monkeypatch) -> None:
    from sage_desk.core.llm.endpoint import _proxy_for

    proxy = f"http://127.0.0.1:{fake_openai.port}"  # the fake answers absolute-form requests, as a proxy sees them
    monkeypatch.setenv("HTTP_PROXY", proxy)
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    _proxy_for.cache_clear()
    try:
        assert _proxy_for("http://127.0.0.1:8000/v1") is None
        assert _proxy_for("http://gpu-box.invalid:8000/v1") == proxy
        reply = LlmClient().complete_sync(
            "openai/fake-model",
            [{"role": "user", "content": "via proxy"}],
            api_base="http://gpu-box.invalid:8000/v1",
            api_key="x",
            max_retries=0,
        )
    finally:
        _proxy_for.cache_clear()
    assert reply.content == "echo: via proxy"
    assert fake_openai.headers[-1]["host"] == "gpu-box.invalid:8000"  # it went to the proxy, asking for that host


def test_a_direct_reply_with_arguments_sent_as_an_object_is_read_as_its_json() -> None:
    response = {
        "choices": [
            {
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "lookup_order", "arguments": {"order_id": "NL-1"}}},
                        {
                            "id": "c2",
                            "type": "function",
                            "function": {"name": "close_ticket", "arguments": '{"outcome": "resolved"}'},
                        },
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3},
    }
    reply = LlmClient._reply_from_json("hosted_vllm/some-model", response, 5.0, 1)
    assert [(c.name, c.arguments, c.parse_error) for c in reply.tool_calls] == [
        ("lookup_order", {"order_id": "NL-1"}, None),
        ("close_ticket", {"outcome": "resolved"}, None),
    ]
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.finish_reason) == (12, 3, "tool_calls")
