"""An agent behind HTTP (`--agent http://host:port/path`): SAGE Desk POSTs the conversation so far and
reads back one assistant message.

The body is `{"conversation_id", "messages", "tools", ...the run's --agent-params}`; the reply is an
OpenAI-format assistant message or a whole chat completion, so any OpenAI-compatible chat endpoint
works as is (`--agent http://localhost:8000/v1/chat/completions --agent-param model=NAME`). Tool
calls in the reply are executed by the engine in the conversation's sandboxed world.

Failures are treated as a model's are (core/llm/client.py): 429, 5xx, timeouts and lost
connections are retried with backoff (`max_retries`, default 4; `timeout` seconds per call,
default 60, both settable with --agent-param and never sent); anything else errors the
conversation with one line naming the agent. Header values come from the environment
(`--agent-header 'Authorization: Bearer $TOKEN'`) at each call and are masked in whatever text
an error carries; they never reach the run's spec, the database or a log.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import weakref
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from sage_desk.core import jsonbound
from sage_desk.core.agents.base import AgentAction, ConversationView
from sage_desk.core.agents.protocol import AgentError, AgentSettings, action_of_reply
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.llm.redact import MASK, redact

if TYPE_CHECKING:
    from sage_desk.core.domain.loader import DomainBundle

CONTROL = ("timeout", "max_retries")  # --agent-params that tune the calls, not sent in the body
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})  # and every 5xx, as for models
_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_SECRET_NAMES = ("authorization", "key", "token", "secret", "password", "cookie")


def header_template(text: str) -> str:
    """Check one `--agent-header` ("Name: value") and return it as given (a template, never expanded here).

    A header that looks secret (Authorization, *key*, *token* ...) must take its value from an
    environment variable, so that nothing secret is ever written into the run."""
    name, colon, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not colon or not name or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
        raise ValueError(f"--agent-header {text!r}: write it as 'Name: value' (e.g. 'Authorization: Bearer $TOKEN')")
    if any(word in name.lower() for word in _SECRET_NAMES) and not _VAR.search(value):
        raise ValueError(
            f"--agent-header {name}: put the secret in an environment variable and name it "
            f"('{name}: Bearer $TOKEN'): a value typed here would be kept with the run"
        )
    return f"{name}: {value}"


def header_variables(templates: list[str]) -> list[str]:
    """The environment variables the headers read."""
    return [a or b for t in templates for a, b in _VAR.findall(t)]


def missing_header_variables(templates: list[str]) -> list[str]:
    """The variables the headers read that are not set in this environment."""
    return [v for v in header_variables(templates) if not os.environ.get(v)]


def expand_headers(templates: list[str]) -> dict[str, str]:
    """The headers with their `$VARS` read from the environment now; an unset one raises ValueError."""
    missing = missing_header_variables(templates)
    if missing:
        raise ValueError(f"the agent's headers read ${missing[0]}, which is not set in this environment")
    headers = {}
    for template in templates:
        name, _, value = template.partition(":")
        headers[name.strip()] = _VAR.sub(lambda m: os.environ[m.group(1) or m.group(2)], value.strip())
    return headers


class HttpAgent:
    """POSTs `{conversation_id, messages, tools}` to a URL and reads one assistant message back."""

    def __init__(self, url: str, settings: AgentSettings | None = None, backoff_base: float = 1.0, **_options: Any):
        self.name = self.url = url
        self.settings = settings or AgentSettings()
        params = dict(self.settings.params)
        self.timeout = float(params.pop("timeout", 60.0))
        self.max_retries = int(params.pop("max_retries", 4))
        self.body_params = params
        self.backoff_base = backoff_base

    def system_prompt(self, bundle: DomainBundle) -> str | None:
        return self.settings.system_prompt(bundle)

    async def step(self, view: ConversationView) -> AgentAction:
        try:
            headers = expand_headers(self.settings.headers)
        except ValueError as exc:
            raise AgentError(self.name, str(exc)) from None
        body = {
            **self.body_params,
            "conversation_id": view.conversation_id,
            "messages": view.messages,
            "tools": view.bundle.tool_schemas(),
        }
        reply = await self.post(body, headers)
        text, calls = action_of_reply(self.name, reply, view.bundle)
        return AgentAction(text=text, tool_calls=calls)

    async def post(self, body: JsonObject, headers: dict[str, str]) -> Any:
        """The decoded reply, retried as a model call is; raises `AgentError` when it gives up."""
        secrets = [os.environ.get(v) for v in header_variables(self.settings.headers)]
        for attempt in range(self.max_retries + 1):
            try:
                return await self._post_once(body, headers, secrets)
            except _Transient as exc:
                if attempt == self.max_retries:
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    raise AgentError(self.name, redact(f"{exc}{tries}", secrets), retryable=True) from None
                ceiling = min(30.0, self.backoff_base * 2**attempt)
                await asyncio.sleep(ceiling / 2 + random.uniform(0, ceiling / 2))
            except AgentError as exc:
                raise AgentError(self.name, redact(exc.problem, secrets)) from None
        raise AssertionError("unreachable: the loop returns or raises")

    async def _post_once(self, body: JsonObject, headers: dict[str, str], secrets: list[str | None]) -> Any:
        import aiohttp

        session = await pooled_session()
        try:
            async with session.post(
                self.url, json=body, headers=headers, timeout=aiohttp.ClientTimeout(total=self.timeout)
            ) as response:
                status = response.status
                raw = await _read_capped(response)
        except TimeoutError:
            raise _Transient(f"no answer within {self.timeout:g} s") from None
        except aiohttp.ClientConnectorError as exc:
            raise _Transient(f"cannot connect ({_reason(exc)})") from None
        except aiohttp.ClientError as exc:
            raise _Transient(f"the connection failed ({type(exc).__name__}: {exc})") from None
        if status in RETRYABLE_STATUS or status >= 500:
            raise _Transient(f"HTTP {status}: {_snippet(raw)}")
        if status in (401, 403):  # as for models: a refused credential is never retried, and says where it comes from
            where = "the --agent-header it was sent" if self.settings.headers else "no --agent-header was given"
            raise AgentError(self.name, f"HTTP {status}: {_snippet(raw)} (refused the credentials: {where})")
        if status >= 400:
            raise AgentError(self.name, f"HTTP {status}: {_snippet(raw)}")
        try:
            text = raw.decode("utf-8")
            for secret in secrets:  # an agent that echoes its token: never into the transcript
                if secret and len(secret) >= 8:
                    text = text.replace(secret, MASK)
            return jsonbound.loads(text)  # bounded: no 100,000-deep nesting or 5,000-digit numbers
        except jsonbound.JsonProblem as exc:
            problem = "is not JSON" if exc.message.startswith("not JSON") else f"cannot be read ({exc.message})"
            raise AgentError(self.name, f"its reply {problem} (HTTP {status}): {_snippet(raw)}") from None
        except UnicodeDecodeError:
            raise AgentError(self.name, f"its reply is not UTF-8 text (HTTP {status}): {_snippet(raw)}") from None


_SESSIONS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
_CLOSERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncIterator[None]] = weakref.WeakKeyDictionary()


async def pooled_session() -> Any:
    """One pooled client per event loop: connections (and TLS sessions) kept alive across calls and
    conversations, closed when the loop shuts its async generators down (as core/llm/endpoint.py does)."""
    import aiohttp

    loop = asyncio.get_running_loop()
    session = _SESSIONS.get(loop)
    if session is None or session.closed:
        session = _SESSIONS[loop] = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        closer = _CLOSERS[loop] = _closer(session)
        await anext(closer)
    return session


async def _closer(session: Any) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await session.close()


class _Transient(Exception):
    """A failure worth another try (as for models: 429, 5xx, timeouts, lost connections)."""


async def _read_capped(response: Any) -> bytes:
    """The body, refused as soon as it is over the providers' reply cap (SAGE_DESK_MAX_REPLY_BYTES, 4 MiB)."""
    from sage_desk.core.llm.endpoint import max_reply_bytes, too_large

    cap = max_reply_bytes()
    declared = response.content_length
    if declared is not None and declared > cap:
        raise AgentError("", str(too_large(declared, cap, "it")))
    chunks, size = [], 0
    async for chunk in response.content.iter_chunked(65536):
        size += len(chunk)
        if size > cap:
            raise AgentError("", str(too_large(size, cap, "it")))
        chunks.append(chunk)
    return b"".join(chunks)


def _reason(exc: Exception) -> str:
    os_error = getattr(exc, "os_error", None)
    if isinstance(os_error, ConnectionRefusedError):
        return "connection refused"
    return str(getattr(os_error, "strerror", None) or exc)


def _snippet(raw: bytes) -> str:
    """The start of a body, one line: an HTML error page's text without its tags."""
    text = raw[:4000].decode("utf-8", "replace")
    error = _json_error(text)
    if error:
        return error[:200]
    if "<" in text and ">" in text:
        text = re.sub(r"(?is)<(script|style|head)\b.*?</\1>", " ", text)
        text = re.sub(r"<[^>]+>", " ", text)
    text = " ".join(text.split())
    return (text[:200] + "…" if len(text) > 200 else text) or "(empty body)"


def _json_error(text: str) -> str | None:
    """The server's own message when it sent OpenAI's `{"error": {"message": ...}}` (or `{"error": "..."}`)."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str):
        return message
    return error if isinstance(error, str) else None
