"""The direct path's lean HTTP/1.1 client (core/llm/http1.py) against servers that answer the ways real
ones do: chunked bodies, bodies that run to the close, dropped idle connections, torn answers."""

from __future__ import annotations

import asyncio
import json

import pytest

from sage_desk.core.llm import LlmClient, LlmError
from sage_desk.core.llm.http1 import plain_target

COMPLETION = json.dumps(
    {
        "choices": [{"message": {"role": "assistant", "content": "hi there"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }
).encode()


def _chunked(body: bytes, size: int = 7) -> bytes:
    parts = [f"{len(body[i : i + size]):x}\r\n".encode() + body[i : i + size] + b"\r\n" for i in range(0, len(body), size)]
    return b"".join(parts) + b"0\r\n\r\n"


async def _serve(answer, keep_open: bool = True):
    """A raw server: reads one request (headers + Content-Length body), writes `answer(n)` for the n-th."""
    seen = {"requests": 0, "connections": 0}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen["connections"] += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
                )
                await reader.readexactly(length)
                seen["requests"] += 1
                for piece in answer(seen["requests"]):
                    writer.write(piece)
                    await writer.drain()
                    await asyncio.sleep(0.001)  # the answer arrives in pieces, as over a network
                if not keep_open:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/v1", seen


def _complete(api_base: str, n: int = 3) -> list[str | None]:
    client = LlmClient(backoff_base=0.001, backoff_max=0.01)

    async def go() -> list[str | None]:
        return [
            (
                await client.complete(
                    "openai/m", [{"role": "user", "content": "hi"}], api_base=api_base, api_key="x", max_retries=1, timeout=5
                )
            ).content
            for _ in range(n)
        ]

    return go()


def _run(answer, keep_open: bool = True, n: int = 3):
    async def main():
        server, base, seen = await _serve(answer, keep_open)
        async with server:
            replies = await _complete(base, n)
        return replies, seen

    return asyncio.run(main())


def test_content_length_answers_share_one_kept_connection():
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(COMPLETION)
    replies, seen = _run(lambda n: [head, COMPLETION[:10], COMPLETION[10:]])
    assert replies == ["hi there"] * 3 and seen == {"requests": 3, "connections": 1}


def test_chunked_answers_are_put_together():
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    body = _chunked(COMPLETION)
    replies, seen = _run(lambda n: [head, body[:5], body[5:31], body[31:]])  # cut through sizes and CRLFs
    assert replies == ["hi there"] * 3 and seen["connections"] == 1


def test_an_answer_that_runs_to_the_close():
    replies, seen = _run(lambda n: [b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n", COMPLETION], keep_open=False)
    assert replies == ["hi there"] * 3 and seen["connections"] == 3  # no length: a new connection each time


def test_a_dropped_idle_connection_is_replaced_without_a_retry():
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: keep-alive\r\n\r\n" % len(COMPLETION)
    # The server closes after each answer without saying so (an idle timeout): the next request finds it closed.
    replies, seen = _run(lambda n: [head, COMPLETION], keep_open=False)
    assert replies == ["hi there"] * 3 and seen["requests"] == 3


def test_a_torn_answer_is_an_unreachable_endpoint_retried():
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(COMPLETION)
    replies, seen = _run(lambda n: [head, COMPLETION[:20]] if n == 1 else [head, COMPLETION], keep_open=False, n=1)
    assert replies == ["hi there"] and seen["requests"] == 2  # cut off mid-body: retried, as a lost connection is


def test_an_error_status_keeps_the_servers_message():
    error = b'{"error": {"message": "model not found"}}'
    with pytest.raises(LlmError, match="HTTP 404 .*model not found"):
        _run(lambda n: [b"HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n" % len(error), error], n=1)


def test_only_plain_http_without_credentials_in_the_url_is_served():
    assert plain_target("http://gpu-1:8000/v1/") == ("gpu-1", 8000, "gpu-1:8000", "/v1")
    assert plain_target("http://[::1]:8000/v1") == ("::1", 8000, "[::1]:8000", "/v1")
    assert plain_target("https://api.example.com/v1") is None  # TLS: aiohttp
    assert plain_target("http://user:pw@10.0.0.5:8000/v1") is None
