"""The direct path's request body (endpoint.encode_body): byte for byte what json.dumps writes, with the
parts every request repeats encoded once."""

from __future__ import annotations

import json

from sage_desk.core.llm.endpoint import encode_body, request_body

POLICY = "Refunds over $200 need a supervisor. Ne jamais promettre un délai — 返金. " * 20  # long, not ASCII


def _body(tools: list, history: list) -> dict:
    messages = [{"role": "system", "content": POLICY}, *history]
    return request_body("openai/m", messages, tools, temperature=0.2, seed=7, params={"max_tokens": 64})


def test_the_body_is_what_json_dumps_writes():
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup_order",
                "parameters": {"type": "object", "properties": {"order_id": {"type": "string", "enum": ["NL-1", "NL-2"]}}},
            },
        }
    ]
    history = [
        {"role": "user", "content": "Où est ma commande NL-1 ?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "NL-1"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "shipped"}'},
    ]
    for _ in range(2):  # the second time from what was remembered
        assert encode_body(_body(tools, history)) == json.dumps(_body(tools, history)).encode()
    assert json.loads(encode_body(_body(tools, history)))["messages"][0]["content"] == POLICY


def test_a_changed_tool_list_is_encoded_again():
    tools = [{"type": "function", "function": {"name": "a"}}]
    first = encode_body(_body(tools, []))
    tools.append({"type": "function", "function": {"name": "b"}})
    assert encode_body(_body(tools, [])) == json.dumps(_body(tools, [])).encode() != first
    assert encode_body(_body(None, [])) == json.dumps(_body(None, [])).encode()  # no tools: no "tools" key
