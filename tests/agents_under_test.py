"""Small agents under test that speak only the agent interface (messages and tool schemas in, one
assistant message out), for the end-to-end tests of the four ways in (issue 33).

They play a built-in baseline's behaviour (the oracle's, or the complier's: reckless, it does what the
customer asks) from the messages alone: the case is found by the customer's opening message, and
"did I already act this turn" is read from the messages. So a run through HTTP, Python or MCP must
give the same verdicts as the baseline itself.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from types import SimpleNamespace
from typing import Any

from aiohttp import web

from sage_desk.core.agents.base import BASELINES, ConversationView
from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain.loader import load_domain

_BUNDLE = load_domain("northline")
_CASES = {}
for _case in load_suite(_BUNDLE.cases_path):
    _CASES[f"Subject: {_case.subject}\n\n{_case.opening}" if _case.subject else _case.opening] = _case


def _events(messages: list[dict[str, Any]]) -> list[Any]:
    events = []
    for m in messages:
        if m["role"] == "user":
            events.append(SimpleNamespace(type="customer_message", text=m["content"]))
        elif m["role"] == "assistant":
            events += [SimpleNamespace(type="tool_call") for _ in m.get("tool_calls") or []]
            if m.get("content"):
                events.append(SimpleNamespace(type="agent_message", text=m["content"]))
    return events


def _wire(call: Any) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}


class BaselineBehind:
    """A baseline's behaviour behind `respond(messages, tools)`: one per conversation, as a factory makes them."""

    def __init__(self, baseline: str) -> None:
        self.inner = BASELINES.get(f"baseline:{baseline}").factory()
        self.seen_tools: list[str] = []

    async def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        self.seen_tools = [t["function"]["name"] for t in tools]
        opening = next(m["content"] for m in messages if m["role"] == "user")
        view = ConversationView(_CASES[opening], _BUNDLE, messages, _events(messages), turn=1, seed=0)
        action = await self.inner.step(view)
        message: dict[str, Any] = {"role": "assistant", "content": action.text}
        if action.tool_calls:
            message["tool_calls"] = [_wire(c) for c in action.tool_calls]
        return message


def oracle() -> BaselineBehind:
    """`python:agents_under_test:oracle`."""
    return BaselineBehind("oracle")


def reckless() -> BaselineBehind:
    """`python:agents_under_test:reckless`: the complier's behaviour."""
    return BaselineBehind("complier")


class AgentServer:
    """An HTTP agent on 127.0.0.1: one `BaselineBehind` per conversation id; with `mcp=True` it runs
    its tool calls itself through its own MCP client at the `tools_url` it is sent, and answers text only."""

    def __init__(
        self, baseline: str, mcp: bool = False, reply: Any = None, raw: Any = None, faults: list[str] | None = None
    ) -> None:
        self.baseline, self.mcp, self.reply, self.raw = baseline, mcp, reply, raw
        self.faults = list(faults or [])  # "503" or "slow": what the next requests do, in order
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._agents: dict[str, BaselineBehind] = {}
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/agent"
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._ready = threading.Event()
        self._runner: web.AppRunner | None = None

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.faults:
            fault = self.faults.pop(0)
            if fault == "slow":
                await asyncio.sleep(2.0)  # past the client's timeout: it gives up and tries again
            else:
                return web.json_response({"error": {"message": "overloaded"}}, status=int(fault))
        if self.raw is not None:  # a body that may not be JSON at all
            return web.Response(text=self.raw(body), content_type="application/json")
        if self.reply is not None:  # a canned answer: a message, or (HTTP status, body)
            answer = self.reply(body) if asyncio.iscoroutinefunction(self.reply) else self.reply(body, dict(request.headers))
            if asyncio.iscoroutine(answer):
                answer = await answer
            status, answer = answer if isinstance(answer, tuple) else (200, answer)
            return web.json_response(answer, status=status)
        agent = self._agents.setdefault(body["conversation_id"], BaselineBehind(self.baseline))
        message = await agent.respond(body["messages"], body["tools"])
        if self.mcp:
            message = await self._own_tool_loop(agent, body, message)
        return web.json_response(message)

    @staticmethod
    async def _own_tool_loop(agent: BaselineBehind, body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        """Run the tool calls through MCP and ask again until there is text: the reply is text only."""
        from mcp import Client

        messages = list(body["messages"])
        async with Client(body["tools_url"]) as client:
            for _ in range(10):
                calls = message.pop("tool_calls", None) or []
                messages.append({**message, "tool_calls": calls})
                for call in calls:
                    result = await client.call_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": result.content[0].text})
                if message.get("content"):
                    return message
                message = await agent.respond(messages, body["tools"])
        return message

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/agent", self._handle)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        self._loop.run_until_complete(web.SockSite(self._runner, self._socket).start())
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self._runner.cleanup())
        self._loop.close()

    def __enter__(self) -> AgentServer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *_exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


class _Broken:
    async def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {}["order"]  # a bug in the user's agent


def broken() -> _Broken:
    """`python:agents_under_test:broken`: its respond raises."""
    return _Broken()


# --- an agent written from docs/your-agent.md alone: no SAGE Desk code, the escalator's behaviour --

HANDOVER_TEXT = "Thanks for reaching out. I'm passing your ticket to a colleague who will reply shortly."
HANDOVER_REASON = "the escalator baseline hands every ticket over"


def escalate(body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    """An HTTP agent's answer, from the docs: one assistant message with text and a handover."""
    return {
        "role": "assistant",
        "content": HANDOVER_TEXT,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "handover_to_human", "arguments": json.dumps({"reason": HANDOVER_REASON})},
            }
        ],
    }


async def escalate_through_mcp(body: dict[str, Any]) -> dict[str, Any]:
    """The same behaviour with its own tool layer: the handover through MCP at `tools_url`, then text only."""
    from mcp import Client

    async with Client(body["tools_url"]) as tools:
        await tools.call_tool("handover_to_human", {"reason": HANDOVER_REASON})
    return {"role": "assistant", "content": HANDOVER_TEXT}


class _Escalator:
    async def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return escalate({})


def escalator() -> _Escalator:
    """`python:agents_under_test:escalator`."""
    return _Escalator()
