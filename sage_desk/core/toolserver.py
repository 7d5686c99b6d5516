"""`sage-desk serve-tools`: a domain's sandboxed tools as an MCP server (streamable HTTP on 127.0.0.1).

For an agent with its own tool layer: it calls the domain's tools through its own MCP client while
SAGE Desk plays the customer to its HTTP endpoint (`sage-desk run --agent URL --tools-server URL`).
Every conversation has its own world, named by its id: the MCP URL's `?conversation_id=ID` (SAGE
Desk sends the agent that URL as `tools_url`) or an `X-Conversation-Id` header. Besides `/mcp` the
server answers the run: `POST /conversations` starts a conversation's world from its case (the
domain's world plus the case's rows, as for any agent; for a replay, with the calls made before
the fork applied), `GET /conversations/{id}/calls?since=N`
lists the calls the server saw, in order, with what the world answered; those become the
transcript's tool calls, so every rule reads them as it reads any agent's. A conversation id
nobody started gets the domain's world alone (for trying an agent by hand).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from sage_desk.core.cases.build import case_world
from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.tools import CLOSE, HANDOVER, TAG, call_tool
from sage_desk.core.domain.world import WorldView
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.llm.types import ToolCallRequest

MAX_CONVERSATIONS = 10_000  # worlds kept; the oldest goes first (a run's conversations finish in minutes)
MAX_BODY = 4 * 1024 * 1024  # a case is a few kilobytes
HEADER = "x-conversation-id"


@dataclass
class _Session:
    world: WorldView
    ended: bool = False
    calls: list[JsonObject] = field(default_factory=list)


class ToolWorlds:
    """One isolated world per conversation id, and the calls made in each, in order."""

    def __init__(self, bundle: DomainBundle) -> None:
        self.bundle = bundle
        self._sessions: OrderedDict[str, _Session] = OrderedDict()

    def start(self, conversation_id: str, case: Case | None, replay: list[JsonObject] | None = None) -> None:
        """A fresh world for the conversation (played again: its old world and calls are dropped); `replay`
        ({name, arguments} calls already made, for a fork) brings the world to where it stood."""
        keys = {name: table.key for name, table in self.bundle.domain.tables.items()}
        world = case_world(self.bundle, case) if case is not None else self.bundle.world.fork({}, keys)
        self._sessions[conversation_id] = _Session(world)
        self._sessions.move_to_end(conversation_id)
        while len(self._sessions) > MAX_CONVERSATIONS:
            self._sessions.popitem(last=False)
        for done in replay or []:
            self.call(conversation_id, str(done.get("name")), dict(done.get("arguments") or {}))
        self._sessions[conversation_id].calls.clear()  # what the agent calls from here on is what counts

    def _session(self, conversation_id: str) -> _Session:
        if conversation_id not in self._sessions:
            self.start(conversation_id, None)
        return self._sessions[conversation_id]

    def call(self, conversation_id: str, name: str, arguments: JsonObject) -> JsonObject:
        """Run one call in the conversation's world and record it; returns the record."""
        from sage_desk.core.engine.conversation import helpdesk_result

        session = self._session(conversation_id)
        started = time.perf_counter()
        request = ToolCallRequest(
            id=f"mcp_{len(session.calls) + 1}", name=name, arguments=arguments, arguments_raw=json.dumps(arguments)
        )
        if name in (TAG, HANDOVER, CLOSE):
            result = helpdesk_result(request, ended=session.ended)
            session.ended = session.ended or (result.ok and name in (HANDOVER, CLOSE))
        else:
            result = call_tool(self.bundle.domain, session.world, name, arguments)
        record = {
            "id": request.id,
            "name": name,
            "arguments": arguments,
            "result": result.result,
            "error": result.error,
            "kind": result.kind,
            "guard_failed": result.guard_failed,
            "latency_ms": round((time.perf_counter() - started) * 1000, 3),
            "text": result.for_model(),
        }
        session.calls.append(record)
        return record

    def calls(self, conversation_id: str, since: int = 0) -> list[JsonObject]:
        """The calls of a conversation from number `since` on (0: all)."""
        session = self._sessions.get(conversation_id)
        return [] if session is None else session.calls[since:]


def build_app(worlds: ToolWorlds) -> Any:
    """The Starlette app: MCP at /mcp, and the run's /conversations routes."""
    import mcp_types as types
    from mcp.server.lowlevel.server import Server
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    schemas = worlds.bundle.tool_schemas()

    async def list_tools(_ctx: Any, _params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=s["function"]["name"],
                    description=s["function"].get("description") or "",
                    input_schema=s["function"]["parameters"],
                )
                for s in schemas
            ]
        )

    async def call(ctx: Any, params: Any) -> Any:
        request = ctx.request
        cid = (request.query_params.get("conversation_id") or request.headers.get(HEADER) or "") if request else ""
        if not cid:
            text = "name the conversation: ?conversation_id=ID on the MCP URL, or an X-Conversation-Id header"
            return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps({"error": text}))], is_error=True)
        arguments = dict(params.arguments or {})
        record = worlds.call(cid, params.name, arguments)
        structured = record["result"] if isinstance(record["result"], dict) and not record["error"] else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=record["text"])],
            structured_content=structured,
            is_error=record["error"] is not None,
        )

    async def start(request: Request) -> JSONResponse:
        body = await request.body()
        if len(body) > MAX_BODY:
            return JSONResponse({"error": "body too large"}, status_code=413)
        try:
            data = json.loads(body)
            cid = str(data["conversation_id"])
            domain = data.get("domain")
            case = Case.model_validate(data["case"]) if data.get("case") is not None else None
            replay = [c for c in data.get("replay") or [] if isinstance(c, dict)]
        except (ValueError, KeyError, TypeError) as exc:
            return JSONResponse({"error": f"not a conversation to start: {exc}"}, status_code=400)
        if domain and domain != worlds.bundle.name:
            return JSONResponse({"error": f"this server serves {worlds.bundle.name}'s tools, not {domain}'s"}, status_code=409)
        worlds.start(cid, case, replay)
        return JSONResponse({"conversation_id": cid, "domain": worlds.bundle.name})

    async def seen(request: Request) -> JSONResponse:
        try:
            since = max(0, int(request.query_params.get("since", "0")))
        except ValueError:
            since = 0
        calls = [{k: v for k, v in c.items() if k != "text"} for c in worlds.calls(request.path_params["cid"], since)]
        return JSONResponse({"calls": calls})

    async def about(_request: Request) -> JSONResponse:
        return JSONResponse({"domain": worlds.bundle.name, "tools": [s["function"]["name"] for s in schemas]})

    server = Server("sage-desk-tools", on_list_tools=list_tools, on_call_tool=call)
    routes = [
        Route("/conversations", start, methods=["POST"]),
        Route("/conversations/{cid}/calls", seen, methods=["GET"]),
        Route("/", about, methods=["GET"]),
    ]
    return server.streamable_http_app(streamable_http_path="/mcp", custom_starlette_routes=routes)


class ToolServer:
    """The app served by uvicorn on 127.0.0.1 (port 0: any free one), in the foreground or a thread."""

    def __init__(self, bundle: DomainBundle, port: int = 0, host: str = "127.0.0.1") -> None:
        import uvicorn

        self.worlds = ToolWorlds(bundle)
        # IPPROTO_TCP, not create_server's proto 0: asyncio sets TCP_NODELAY only on sockets that say TCP,
        # and without it every small MCP reply waited ~40 ms on Nagle and delayed ACKs.
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self._socket.listen(256)
        self.host, self.port = host, int(self._socket.getsockname()[1])
        self._server = uvicorn.Server(uvicorn.Config(build_app(self.worlds), log_level="warning", lifespan="on"))
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The server's base URL (what `--tools-server` takes)."""
        return f"http://{self.host}:{self.port}"

    def serve(self) -> None:
        """Serve until interrupted."""
        asyncio.run(self._server.serve(sockets=[self._socket]))

    def start(self) -> ToolServer:
        """Serve from a background thread; returns once it accepts connections."""
        self._thread = threading.Thread(target=self.serve, name="serve-tools", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the tools server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop a background server."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> ToolServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()
