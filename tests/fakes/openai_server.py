"""A local fake of the OpenAI chat-completions API, for tests that must never touch a network.

`FakeOpenAIServer` serves `POST /v1/chat/completions` on 127.0.0.1 from an aiohttp event loop in
a background thread (one thread, no lock contention: at 64+ requests at once a threaded
`http.server` added tens of milliseconds to every answer, which benchmarks/bench_harness.py
would have charged to the harness).
What it answers comes from a *script* (a callable taking the request JSON and returning text,
tool calls or a `FakeReply`); what goes wrong comes from *faults*, queued (one per request, in
order) or drawn at random with a seeded rate: `429`, `500`, `503`, `timeout` (the connection is
held until `hold_seconds` pass or the server stops), `malformed` (tool-call arguments that are
not JSON), `empty` and `garbage` (HTTP 200 with an empty body, or one that is not a completion),
and the permanent `400`, `401`, `404`. A script that raises answers 500 and lands in
`errors`, so a broken test script is seen, not hidden. Scripts run on the server's loop, so they
must not block. It answers 64+ requests at once, keeps connections alive as real servers do,
and always stops, bounded, when the `with` block ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

FAULTS = ("429", "500", "503", "timeout", "malformed", "empty", "garbage", "400", "401", "404")
MALFORMED_ARGUMENTS = '{"order_id": "NL-10'  # cut off mid-string, as truncated model output is


@dataclass
class FakeToolCall:
    """One tool call the fake model makes; `arguments` may be a raw (even broken) JSON string."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass
class FakeReply:
    """A full reply: text and/or tool calls, and token counts if the script wants them fixed."""

    content: str | None = None
    tool_calls: list[FakeToolCall] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


ScriptResult = str | list[FakeToolCall] | FakeReply
Script = Callable[[dict[str, Any]], ScriptResult]


def echo_script(request: dict[str, Any]) -> ScriptResult:
    """The default script: echo the last user message."""
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    text = users[-1].get("content") if users else ""
    return f"echo: {text if isinstance(text, str) else json.dumps(text)}"


def _tokens(value: Any) -> int:
    # A crude but stable count: words of the JSON text. Tests only need plausible, nonzero numbers.
    return max(1, len(json.dumps(value).split()))


class FakeOpenAIServer:
    """A scripted, fault-injecting OpenAI-compatible server on 127.0.0.1 (port 0 = any free port)."""

    def __init__(
        self,
        script: Script | None = None,
        *,
        latency: float = 0.0,
        faults: Iterable[str] = (),
        fault_rates: dict[str, float] | None = None,
        seed: int = 0,
        hold_seconds: float = 5.0,
        port: int = 0,
    ) -> None:
        self.script: Script | None = script  # None: echo_script
        self.latency = latency
        self.hold_seconds = hold_seconds
        self.fault_rates = dict(fault_rates or {})
        self.requests: list[dict[str, Any]] = []  # every request body received, faults included
        self.headers: list[dict[str, str]] = []
        self.errors: list[str] = []  # exceptions raised by the script
        self.max_in_flight = 0
        self._faults: deque[str] = deque()
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._in_flight = 0
        self._ids = itertools.count(1)
        # Bound now, so `port` and `base_url` are known before `start`.
        self._socket = socket.create_server(("127.0.0.1", port), backlog=256)
        self._port = int(self._socket.getsockname()[1])  # still known after stop (for "a dead endpoint" tests)
        self._loop = asyncio.new_event_loop()
        self._stopping: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self.push_faults(*faults)

    @property
    def port(self) -> int:
        """The TCP port it listens on."""
        return self._port

    @property
    def base_url(self) -> str:
        """The `api_base` to give a client: `http://127.0.0.1:PORT/v1`."""
        return f"http://127.0.0.1:{self.port}/v1"

    def push_faults(self, *faults: str) -> None:
        """Queue faults; each of the next requests takes one, in order."""
        unknown = set(faults) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown fault(s) {sorted(unknown)}; known: {FAULTS}")
        with self._lock:
            self._faults.extend(faults)

    def start(self) -> FakeOpenAIServer:
        """Serve from an event loop in a background daemon thread."""
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="fake-openai")
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(timeout=10)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, release held connections, close the socket; waits at most about `timeout`."""
        if self._thread is not None:
            try:
                asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout)
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout)
                self._thread = None
        if not self._loop.is_running():
            self._loop.close()
        self._socket.close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def wait_for_requests(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block until `count` requests have arrived (True) or `timeout` passes (False)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    # -- on the server's event loop -------------------------------------------------------------

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{path:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.SockSite(self._runner, self._socket).start()

    async def _shutdown(self) -> None:
        assert self._stopping is not None and self._runner is not None
        self._stopping.set()  # held ("timeout") requests let go now
        await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        """Answer one chat completion, or the fault the server is told to produce."""
        raw = await request.read()
        if request.method != "POST" or not request.path.rstrip("/").endswith("/chat/completions"):
            return _json(
                404, {"error": {"message": f"no route {request.method} {request.path}", "type": "invalid_request_error"}}
            )
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return _json(400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}})
        self._enter(body, {k.lower(): v for k, v in request.headers.items()})
        try:
            return await self._answer(request, body)
        finally:
            self._leave()

    async def _answer(self, request: web.Request, body: dict[str, Any]) -> web.StreamResponse:
        fault = self._next_fault()
        if self.latency:
            await asyncio.sleep(self.latency)
        if fault == "timeout":
            assert self._stopping is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.hold_seconds)
            if request.transport is not None:
                request.transport.close()  # hang up without a reply: the client has timed out by now
            return web.Response(status=504)  # never reaches the client
        if fault == "empty":
            return web.Response(status=200, body=b"", content_type="application/json")
        if fault == "garbage":
            return web.Response(
                status=200, body=b'{"choices": [], "note": "overloaded, partial reply"}', content_type="application/json"
            )
        if fault in _ERRORS:
            status, kind, message = _ERRORS[fault]
            if fault == "401":  # like a careless provider, echo the key back: clients must scrub it
                message += f": {request.headers.get('Authorization', '').removeprefix('Bearer ')}"
            return _json(status, {"error": {"message": f"{message} (fake)", "type": kind, "code": kind}})
        try:
            completion = self._completion(body, malformed=fault == "malformed")
        except Exception as exc:  # a broken script is reported, and recorded for the test
            self.errors.append(f"{type(exc).__name__}: {exc}")
            return _json(500, {"error": {"message": f"fake script failed: {exc}", "type": "server_error"}})
        return _json(200, completion)

    def _next_fault(self) -> str | None:
        with self._lock:
            if self._faults:
                return self._faults.popleft()
            for fault, rate in self.fault_rates.items():
                if self._random.random() < rate:
                    return fault
        return None

    def _enter(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self._arrived.notify_all()

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _completion(self, request: dict[str, Any], malformed: bool) -> dict[str, Any]:
        reply = self._as_reply((self.script or echo_script)(request), request, malformed)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [self._tool_call_json(c, malformed) for c in reply.tool_calls]
        prompt = reply.prompt_tokens if reply.prompt_tokens is not None else _tokens(request.get("messages", []))
        completion = reply.completion_tokens if reply.completion_tokens is not None else _tokens(message)
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "fake-model"),
            "system_fingerprint": "fp_fake",
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }

    @staticmethod
    def _as_reply(result: ScriptResult, request: dict[str, Any], malformed: bool) -> FakeReply:
        if isinstance(result, str):
            result = FakeReply(content=result)
        elif isinstance(result, list):
            result = FakeReply(tool_calls=result)
        if malformed and not result.tool_calls:
            # The fault needs a tool call to break: call the first tool offered, if any.
            tools = request.get("tools") or [{"function": {"name": "lookup_order"}}]
            result = FakeReply(tool_calls=[FakeToolCall(tools[0]["function"]["name"])])
        return result

    def _tool_call_json(self, call: FakeToolCall, malformed: bool) -> dict[str, Any]:
        arguments = MALFORMED_ARGUMENTS if malformed else call.arguments
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        return {"id": call.id or f"call_{next(self._ids)}", "type": "function", "function": {"name": call.name, "arguments": raw}}


_ERRORS = {
    "429": (429, "rate_limit_exceeded", "Rate limit reached"),
    "500": (500, "server_error", "The server had an error"),
    "503": (503, "service_unavailable", "The engine is overloaded"),
    "400": (400, "invalid_request_error", "Invalid request"),
    "401": (401, "invalid_api_key", "Incorrect API key provided"),
    "404": (404, "model_not_found", "The model does not exist"),
}


def _json(status: int, payload: dict[str, Any]) -> web.Response:
    return web.Response(status=status, body=json.dumps(payload).encode(), content_type="application/json")
