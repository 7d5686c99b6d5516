"""A local fake of the OpenAI chat-completions API, for tests that must never touch a network.

`FakeOpenAIServer` serves `POST /v1/chat/completions` on 127.0.0.1 from a background thread.
What it answers comes from a *script* (a callable taking the request JSON and returning text,
tool calls or a `FakeReply`); what goes wrong comes from *faults*, queued (one per request, in
order) or drawn at random with a seeded rate: `429`, `500`, `503`, `timeout` (the connection is
held until `hold_seconds` pass or the server stops), `malformed` (tool-call arguments that are
not JSON), and the permanent `400`, `401`, `404`. A script that raises answers 500 and lands in
`errors`, so a broken test script is seen, not hidden. It answers 64+ requests at once and always stops, bounded, when the `with` block ends.
"""

from __future__ import annotations

import itertools
import json
import random
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "503", "timeout", "malformed", "400", "401", "404")
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
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", port), _Handler, self)
        self._thread: threading.Thread | None = None
        self.push_faults(*faults)

    @property
    def port(self) -> int:
        """The TCP port it listens on."""
        return int(self._httpd.server_address[1])

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
        """Serve in a background daemon thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True, name="fake-openai"
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, release held connections, close the socket; waits at most `timeout`."""
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout)
        self._httpd.drop_connections()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    # -- called from handler threads ------------------------------------------------------------

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

    def wait_for_requests(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block until `count` requests have arrived (True) or `timeout` passes (False)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _hold(self) -> None:
        self._stopping.wait(self.hold_seconds)

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


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a held connection must never keep the test process alive
    request_queue_size = 256  # the listen backlog: 64+ clients connect at once

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], fake: FakeOpenAIServer) -> None:
        self.fake = fake
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        """End every kept-alive connection, so no handler thread outlives the server."""
        with self.connections_lock:
            held = list(self.connections)
        for conn in held:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the client


class _Handler(BaseHTTPRequestHandler):
    # Keep-alive, like OpenAI, vLLM and Ollama: with HTTP/1.0 every completion would open a new
    # TCP connection and the client's connect cost would be measured as the harness's.
    protocol_version = "HTTP/1.1"
    timeout = 30  # an idle kept-alive connection is closed after this many seconds
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Keep test output quiet."""

    def do_POST(self) -> None:
        """Answer one chat completion, or the fault the server is told to produce."""
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))  # always: the connection is reused
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
            return
        fake = self.server.fake
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}})
            return
        fake._enter(body, {k.lower(): v for k, v in self.headers.items()})
        try:
            self._answer(fake, body)
        finally:
            fake._leave()

    def _answer(self, fake: FakeOpenAIServer, body: dict[str, Any]) -> None:
        fault = fake._next_fault()
        if fake.latency:
            time.sleep(fake.latency)
        if fault == "timeout":
            fake._hold()
            self.close_connection = True
            return  # close without a reply: the client has timed out by now
        if fault in _ERRORS:
            status, kind, message = _ERRORS[fault]
            if fault == "401":  # like a careless provider, echo the key back: clients must scrub it
                message += f": {self.headers.get('Authorization', '').removeprefix('Bearer ')}"
            self._send(status, {"error": {"message": f"{message} (fake)", "type": kind, "code": kind}})
            return
        try:
            completion = fake._completion(body, malformed=fault == "malformed")
        except Exception as exc:  # noqa: BLE001 - a broken script is reported, and recorded for the test
            fake.errors.append(f"{type(exc).__name__}: {exc}")
            self._send(500, {"error": {"message": f"fake script failed: {exc}", "type": "server_error"}})
            return
        self._send(200, completion)

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (its timeout); nothing to tell it
