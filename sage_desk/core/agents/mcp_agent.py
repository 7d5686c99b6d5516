"""An HTTP agent with its own tool layer (`--agent URL --tools-server URL`).

SAGE Desk starts the conversation's world on the `sage-desk serve-tools` server (the case's rows, as
for any agent), POSTs the conversation to the agent as for any HTTP agent, adding `tools_url`, the
MCP URL of this conversation's world, and after each reply reads the calls the server saw, in
order: they become the transcript's tool calls (core/engine/conversation.py `_record_done`). The
agent's reply is text only: its tools run on the server, never twice.
"""

from __future__ import annotations

import json
from typing import Any

from sage_desk.core.agents.base import AgentAction, ConversationView, DoneCall
from sage_desk.core.agents.http_agent import HttpAgent, expand_headers, pooled_session
from sage_desk.core.agents.protocol import AgentError, AgentSettings, action_of_reply
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.llm.client import parse_tool_call


def tools_base(url: str) -> str:
    """A serve-tools URL as given (with or without its /mcp path) -> the server's base URL."""
    base = url.strip().rstrip("/")
    return base.removesuffix("/mcp")


class McpAgent(HttpAgent):
    """An HTTP agent whose tool calls are the ones the tools server saw."""

    def __init__(self, url: str, settings: AgentSettings | None = None, **options: Any):
        super().__init__(url, settings, **options)
        self.tools = tools_base(self.settings.tools_server or "")
        self._started: str | None = None  # the conversation whose world is started
        self._seen = 0
        self._bundle_schemas: list[JsonObject] = []

    async def step(self, view: ConversationView) -> AgentAction:
        cid = view.conversation_id
        if self._started != cid:
            await self._start(view)
        try:
            headers = expand_headers(self.settings.headers)
        except ValueError as exc:
            raise AgentError(self.name, str(exc)) from None
        body = {
            **self.body_params,
            "conversation_id": cid,
            "messages": view.messages,
            "tools": view.bundle.tool_schemas(),
            "tools_url": f"{self.tools}/mcp?conversation_id={cid}",
        }
        reply = await self.post(body, headers)
        text, calls = action_of_reply(self.name, reply, view.bundle)
        self._bundle_schemas = view.bundle.tool_schemas()
        if calls:
            raise AgentError(
                self.name,
                f"its reply asks for tool calls ({calls[0].name} …), but it calls its tools "
                f"through the tools server {self.tools}: answer with text only",
            )
        return AgentAction(text=text, done_calls=await self._calls(cid))

    async def _start(self, view: ConversationView) -> None:
        # A replay's fork starts with calls already made: the server applies them to the fresh world first.
        before = [
            {"name": e.name, "arguments": e.arguments}
            for e in view.events
            if e.type == "tool_call" and isinstance(e.arguments, dict) and not e.error
        ]
        body = {
            "conversation_id": view.conversation_id,
            "domain": view.bundle.name,
            "case": view.case.model_dump(mode="json"),
            "replay": before,
        }
        await self._tools_request("POST", f"{self.tools}/conversations", body)
        self._started, self._seen = view.conversation_id, 0

    async def _calls(self, cid: str) -> list[DoneCall]:
        data = await self._tools_request("GET", f"{self.tools}/conversations/{cid}/calls?since={self._seen}", None)
        calls = data.get("calls") if isinstance(data, dict) else None
        if not isinstance(calls, list):
            raise AgentError(self.name, f"the tools server {self.tools} answered without its calls")
        self._seen += len(calls)
        known = {s["function"]["name"] for s in self._bundle_schemas}
        done = []
        for c in calls:
            if c.get("name") not in known:  # as for any agent: a tool the domain lacks errors the conversation
                raise AgentError(self.name, f"called a tool the domain lacks through its tools server: {c.get('name')!r}")
            request = parse_tool_call(str(c.get("id")), str(c.get("name")), json.dumps(c.get("arguments") or {}))
            done.append(
                DoneCall(
                    request=request,
                    result=c.get("result"),
                    error=c.get("error"),
                    kind=str(c.get("kind") or "read"),
                    guard_failed=bool(c.get("guard_failed")),
                    latency_ms=float(c.get("latency_ms") or 0.0),
                )
            )
        return done

    async def _tools_request(self, method: str, url: str, body: JsonObject | None) -> Any:
        import aiohttp

        session = await pooled_session()
        try:
            async with session.request(method, url, json=body, timeout=aiohttp.ClientTimeout(total=30)) as response:
                status, raw = response.status, await response.read()
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise AgentError(
                self.name,
                f"cannot reach its tools server {self.tools} ({type(exc).__name__}: {exc}); "
                "start it with sage-desk serve-tools --domain D",
            ) from None
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if status >= 400:
            detail = data.get("error") if isinstance(data, dict) else raw[:200].decode("utf-8", "replace")
            raise AgentError(self.name, f"its tools server {self.tools} refused: HTTP {status}: {detail}")
        return data
