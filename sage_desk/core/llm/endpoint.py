"""Chat completions posted straight to an OpenAI-compatible endpoint (vLLM, Ollama, LM Studio, llama.cpp).

Why not litellm for these: litellm sends `openai/` models through the OpenAI SDK, whose request
transform plus litellm's own bookkeeping cost 5-7 ms of CPU per call (benchmarks/bench_harness.py).
With 64 conversations in flight against a fast local server that CPU, not the server, set the
pace of a run. The request these servers take is the OpenAI wire format as it is, so posting it
ourselves loses nothing.

Plain-HTTP endpoints without a proxy are posted with the lean client of http1.py (aiohttp's request
machinery was most of what is left of this path's CPU); HTTPS ones, and any behind a proxy, with aiohttp.

Why aiohttp and not httpx: httpcore's connection pool re-scans every connection for every
queued request (encode/httpx#3215, encode/httpcore#1035), so with 64 connections in flight an
httpx client spent more CPU than litellm did; aiohttp's connector does not (both are already
installed with litellm). Every other provider, `mock_response`, and any client built with
`transport="litellm"` (or `SAGE_DESK_LLM_TRANSPORT=litellm`) still go through litellm.

Failures come back as exceptions `client.is_retryable` already classifies: `EndpointError` with
an HTTP status, `EndpointBadReply` (a 200 that is not a completion, retried as litellm retries
it), `EndpointTimeout` (a TimeoutError) and `EndpointUnreachable` (a ConnectionError).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import urllib.parse
import urllib.request
import weakref
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.llm import http1

if TYPE_CHECKING:
    import aiohttp

#: Model prefixes whose requests are the OpenAI wire format unchanged, when an api_base is given.
DIRECT_PREFIXES = frozenset({"openai", "hosted_vllm"})


def is_direct(model: str, api_base: str | None) -> bool:
    """Whether `model` at `api_base` can be posted to directly (an explicit OpenAI-compatible endpoint)."""
    return bool(api_base) and "/" in model and model.split("/", 1)[0] in DIRECT_PREFIXES


class EndpointError(Exception):
    """The endpoint answered with an HTTP error status, or with a body that is not a completion."""

    def __init__(self, message: str, status_code: int | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.headers = headers or {}


class EndpointBadReply(EndpointError):
    """HTTP 200 with a body that is not a completion (empty, cut off, not JSON): transient, as litellm treats it."""


class ReplyTooLarge(EndpointError):
    """A reply over the size cap (`max_reply_bytes`): never retried, never stored, never sent back."""


DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024
READ_CHUNK = 64 * 1024


def max_reply_bytes() -> int:
    """The cap on one provider reply, in bytes: SAGE_DESK_MAX_REPLY_BYTES, else 4 MiB."""
    import os

    given = os.environ.get("SAGE_DESK_MAX_REPLY_BYTES", "").strip()
    try:
        return max(1024, int(given)) if given else DEFAULT_MAX_REPLY_BYTES
    except ValueError:
        return DEFAULT_MAX_REPLY_BYTES


def too_large(size: int, cap: int, where: str) -> ReplyTooLarge:
    """The one line a conversation ends with when its provider's reply is over the cap."""
    return ReplyTooLarge(
        f"the reply from {where} is over the {_mib(cap)} cap ({'at least ' if size > cap else ''}"
        f"{_mib(size)}); raise SAGE_DESK_MAX_REPLY_BYTES if such replies are expected"
    )


def _mib(size: int) -> str:
    return f"{size / 1048576:.1f} MiB" if size >= 1048576 else f"{size / 1024:.0f} KiB"


async def _read_capped(response: aiohttp.ClientResponse, where: str) -> bytes:
    """The body, read a chunk at a time and refused as soon as it is over the cap (memory stays bounded)."""
    cap = max_reply_bytes()
    declared = response.content_length
    if declared is not None and declared > cap:
        raise too_large(declared, cap, where)
    parts, size = [], 0
    async for chunk in response.content.iter_chunked(READ_CHUNK):
        size += len(chunk)
        if size > cap:
            raise too_large(size, cap, where)
        parts.append(chunk)
    return b"".join(parts)


class EndpointTimeout(TimeoutError):
    """No complete answer within the timeout."""


class EndpointUnreachable(ConnectionError):
    """The connection failed or broke before an answer came."""


class Endpoints:
    """One pooled `aiohttp.ClientSession` per event loop and endpoint, so connections are kept alive.

    The connections live as long as their event loop: `asyncio.run` finalizes the loop's async
    generators as it ends, and a parked one per loop (`_closer`) closes the clients then.
    """

    def __init__(self) -> None:
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, aiohttp.ClientSession]] = (
            weakref.WeakKeyDictionary()
        )
        self._closers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncIterator[None]] = weakref.WeakKeyDictionary()
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, tuple[http1.Pool, str] | None]] = (
            weakref.WeakKeyDictionary()
        )
        self._pool_closers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncIterator[None]] = (
            weakref.WeakKeyDictionary()
        )

    async def _client(self, api_base: str, max_connections: int) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        per_loop = self._clients.get(loop)
        if per_loop is None:
            per_loop = self._clients[loop] = {}
            closer = self._closers[loop] = _closer(per_loop)
            await anext(closer)  # started, so the loop knows it and closes it at shutdown
        client = per_loop.get(api_base)
        if client is None:
            import aiohttp  # a third of a second: on the first request, not when the app starts

            # Not trust_env: aiohttp would then read the proxy settings and ~/.netrc again for every
            # request (0.6 ms of CPU each, measured); the proxy is looked up once instead (_proxy_for).
            connector = aiohttp.TCPConnector(limit=max_connections, limit_per_host=0)
            client = per_loop[api_base] = aiohttp.ClientSession(connector=connector)
        return client

    async def post(
        self, api_base: str, body: dict[str, Any], api_key: str | None, timeout: float, max_connections: int
    ) -> dict[str, Any]:
        """POST `body` to `{api_base}/chat/completions` and return the decoded completion."""
        base = api_base.rstrip("/")
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        lean = await self._lean(base)
        if lean is not None:
            status, raw, response_headers = await self._post_lean(lean, base, encode_body(body), headers, timeout)
        else:
            status, raw, response_headers = await self._post_aiohttp(base, encode_body(body), headers, timeout, max_connections)
        if status >= 400:
            raise EndpointError(f"HTTP {status} from {base}: {_error_text(raw)}", status, response_headers)
        try:
            data: JsonObject = json.loads(raw)  # checked to be an object with choices just below
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise EndpointBadReply(f"{base} answered HTTP {status} with a body that is not JSON: {raw[:200]!r}") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise EndpointBadReply(f"{base} answered without any choices: {str(data)[:200]}")
        return data

    async def _lean(self, base: str) -> tuple[http1.Pool, str] | None:
        """The plain-HTTP pool and path for `base`, when the lean client serves it (http1.py): http://, no proxy."""
        loop = asyncio.get_running_loop()
        pools = self._pools.get(loop)
        if pools is None:
            pools = self._pools[loop] = {}
            closer = self._pool_closers[loop] = _pool_closer(pools)
            await anext(closer)  # closes the kept connections when the loop shuts its async generators down
        if base in pools:
            return pools[base]
        target = http1.plain_target(base)
        found = None
        if target is not None and not _proxy_for(base) and os.environ.get("SAGE_DESK_HTTP") != "aiohttp":
            host, port, netloc, path = target
            found = (http1.Pool(host, port, netloc), f"{path}/chat/completions")
        pools[base] = found
        return found

    @staticmethod
    async def _post_lean(
        lean: tuple[http1.Pool, str], base: str, data: bytes, headers: dict[str, str], timeout: float
    ) -> tuple[int, bytes, dict[str, str]]:
        pool, path = lean
        cap = max_reply_bytes()
        try:
            status, response_headers, raw = await pool.post(path, data, headers, timeout, cap)
        except TimeoutError as exc:
            raise EndpointTimeout(f"no answer from {base} within {timeout:g} s ({type(exc).__name__})") from None
        except http1.ReplyTooBig as exc:
            raise too_large(exc.size, cap, base) from None
        except (OSError, ValueError) as exc:  # refused, reset, closed mid-answer (ConnectionError is an OSError)
            raise EndpointUnreachable(f"cannot reach {base}: {http1.describe(exc)}") from None
        return status, raw, response_headers

    async def _post_aiohttp(
        self, base: str, data: bytes, headers: dict[str, str], timeout: float, max_connections: int
    ) -> tuple[int, bytes, dict[str, str]]:
        import aiohttp

        client = await self._client(base, max_connections)
        try:
            async with client.post(
                f"{base}/chat/completions",
                data=data,
                headers=headers,
                proxy=_proxy_for(base),
                timeout=aiohttp.ClientTimeout(total=timeout),
            ) as response:
                status, raw = response.status, await _read_capped(response, base)
                response_headers = {k.lower(): v for k, v in response.headers.items()}
        except TimeoutError as exc:  # aiohttp's timeouts are TimeoutErrors
            raise EndpointTimeout(f"no answer from {base} within {timeout:g} s ({type(exc).__name__})") from None
        except aiohttp.ClientError as exc:
            raise EndpointUnreachable(f"cannot reach {base}: {type(exc).__name__}: {exc}") from None
        return status, raw, response_headers


def encode_body(body: JsonObject) -> bytes:
    """The request as `json.dumps(body)` writes it, with what every request of a run repeats encoded once:
    the tool schemas and long messages (the system prompt, which holds the whole policy). Encoding those
    afresh took a third of the direct path's CPU per completion (py-spy, benchmarks/bench_harness.py)."""
    parts = []
    for key, value in body.items():
        if key == "tools" and isinstance(value, list):
            text = _tools_json(value)
        elif key == "messages" and isinstance(value, list):
            text = "[" + ", ".join(_message_json(m) for m in value) + "]"
        else:
            text = json.dumps(value)
        parts.append(f"{json.dumps(key)}: {text}")
    return ("{" + ", ".join(parts) + "}").encode()


_LONG_MESSAGE = 512  # characters: a message this long is worth remembering encoded
_tools_cache: dict[tuple[int, int], tuple[list[Json], str]] = {}


def _tools_json(tools: list[Json]) -> str:
    """The schemas' JSON, once per list (a domain's cached schemas: the same list for every request)."""
    key = (id(tools), len(tools))
    hit = _tools_cache.get(key)
    if hit is not None and hit[0] is tools:
        return hit[1]
    if len(_tools_cache) >= 64:
        _tools_cache.clear()
    text = json.dumps(tools)
    _tools_cache[key] = (tools, text)  # holding the list keeps its id from being reused by another
    return text


def _message_json(message: Json) -> str:
    if (
        isinstance(message, dict)
        and len(message) == 2
        and isinstance(content := message.get("content"), str)
        and len(content) >= _LONG_MESSAGE
        and isinstance(role := message.get("role"), str)
    ):
        return _long_message_json(role, content)
    return json.dumps(message)


@functools.lru_cache(maxsize=128)
def _long_message_json(role: str, content: str) -> str:
    return json.dumps({"role": role, "content": content})


@functools.lru_cache(maxsize=64)
def _proxy_for(url: str) -> str | None:
    """The proxy the environment names for `url` (HTTP(S)_PROXY, minus NO_PROXY), as litellm's httpx used; read once per URL."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies()
    if not proxies or not parts.hostname or urllib.request.proxy_bypass(parts.hostname):
        return None
    return proxies.get(parts.scheme) or proxies.get("all")


async def _pool_closer(pools: dict[str, tuple[http1.Pool, str] | None]) -> AsyncIterator[None]:
    """Parks until its loop shuts its async generators down, then closes the lean client's connections."""
    try:
        yield
    finally:
        for found in pools.values():
            if found is not None:
                found[0].close()
        pools.clear()


async def _closer(clients: dict[str, aiohttp.ClientSession]) -> AsyncIterator[None]:
    """Parks until its loop shuts its async generators down, then closes `clients`."""
    try:
        yield
    finally:
        for client in list(clients.values()):
            await client.close()
        clients.clear()


def request_body(
    model: str,
    messages: list[JsonObject],
    tools: list[JsonObject] | None,
    temperature: float | None,
    seed: int | None,
    params: JsonObject,
) -> JsonObject:
    """The OpenAI chat-completions body: the model name without its routing prefix."""
    body: JsonObject = {"model": model.split("/", 1)[1], "messages": messages, **params}
    optional = {"tools": tools, "temperature": temperature, "seed": seed}
    body.update({k: v for k, v in optional.items() if v is not None})
    return body


def _error_text(raw: bytes) -> str:
    """The server's own error message when it sent one (OpenAI's `{"error": {"message": ...}}`), else the body's start."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw[:300].decode("utf-8", "replace") or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])[:300]
    if isinstance(error, str):
        return error[:300]
    return str(data)[:300]
