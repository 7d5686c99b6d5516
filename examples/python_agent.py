"""An agent in Python, as SAGE Desk loads one (--agent python:examples.python_agent:make).

SAGE Desk imports the module (the current folder first), calls make() once per conversation, and
for every step awaits respond(messages, tools): the OpenAI-format messages so far and the domain's
tools as OpenAI tool schemas in, ONE assistant message out ("content" and/or "tool_calls"). Tool
calls run in SAGE Desk's sandboxed world; their results come back in the next call's messages.
This one looks the order up, then hands over to a human. Wrap your own agent here.

    sage-desk run --domain northline --agent python:examples.python_agent:make
"""

from __future__ import annotations

import json
import re

ORDER = re.compile(r"\b[A-Z]{1,3}-\d{3,}\b")


class CarefulAgent:
    """Looks the order up, then hands the ticket to a person."""

    async def respond(self, messages: list[dict], tools: list[dict]) -> dict:
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        looked_up = any(m["role"] == "tool" for m in messages[last_user + 1 :])
        orders = ORDER.findall(" ".join(m["content"] or "" for m in messages if m["role"] == "user"))
        if not looked_up and orders:
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [self.call(messages, "lookup_order", {"order_id": orders[0]})],
            }
        return {
            "role": "assistant",
            "content": "Thanks for waiting. I have checked your order and passed it to a colleague.",
            "tool_calls": [self.call(messages, "handover_to_human", {"reason": "a person should decide"})],
        }

    @staticmethod
    def call(messages: list[dict], name: str, arguments: dict) -> dict:
        return {
            "id": f"call_{len(messages)}_{name}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }


def make() -> CarefulAgent:
    """The factory SAGE Desk calls, once per conversation."""
    return CarefulAgent()
