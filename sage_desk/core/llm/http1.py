"""A lean HTTP/1.1 client for the direct path: one POST on a kept-alive connection, nothing else.

Why: at concurrency 256 against a local server answering in 200 ms, aiohttp's request machinery
(its request and response objects, timers, stream readers and tasks) was 40 % of the harness's
CPU per completion (py-spy on benchmarks/bench_harness.py). A plain-HTTP POST to a model server
needs none of it: this writes the request in one `write`, parses the status line, the headers and
a Content-Length, chunked or read-to-close body as the bytes arrive on an `asyncio.Protocol`, and
keeps the connection for the next request. HTTPS endpoints and endpoints behind a proxy still go
through aiohttp (endpoint.py decides), and `SAGE_DESK_HTTP=aiohttp` sends everything there.

A request that finds its kept-alive connection closed by the server before any byte of an
answer came is sent once more on a new connection (the server dropped an idle connection, as
servers do); anything else is the caller's to classify (endpoint.py).
"""

from __future__ import annotations

import asyncio
from typing import Any


class ReplyTooBig(Exception):
    """The reply is over `cap` bytes (declared or received): `size` is what was seen."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class Closed(ConnectionError):
    """The connection closed before the answer was complete; `early` when no byte of it had come."""

    def __init__(self, message: str, early: bool) -> None:
        super().__init__(message)
        self.early = early


Answer = tuple[int, dict[str, str], bytes]  # status, headers (lower-case names), body


class _Connection(asyncio.Protocol):
    """One kept-alive connection; at most one request on it at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.answer: asyncio.Future[Answer] | None = None
        self._buffer = bytearray()
        self._cap = 0
        self._status = 0
        self._headers: dict[str, str] | None = None
        self._length: int | None = None  # Content-Length; None: chunked or until close
        self._chunked = False
        self._body = bytearray()
        self._chunk_left = -1  # bytes left of the current chunk, -1: a size line comes next
        self.keep = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        answer = self.answer
        if answer is None or answer.done():
            return
        if self._headers is not None and self._length is None and not self._chunked:
            self._finish()  # a body that runs until the connection closes
            return
        early = self._headers is None and not self._buffer
        answer.set_exception(
            Closed(f"the connection closed before the answer was complete ({exc or 'closed by the server'})", early)
        )

    def request(self, data: bytes, cap: int) -> asyncio.Future[Answer]:
        """Send `data` (a whole request) and return the future of its answer."""
        assert self.transport is not None and self.answer is None
        self.answer = asyncio.get_running_loop().create_future()
        self._cap = cap
        self.transport.write(data)
        return self.answer

    def data_received(self, data: bytes) -> None:
        if self.answer is None or self.answer.done():
            self.keep = False  # bytes nobody asked for: this connection cannot be trusted again
            return
        try:
            self._feed(data)
        except ReplyTooBig as exc:
            self.keep = False
            self.answer.set_exception(exc)
        except ValueError as exc:
            self.keep = False
            self.answer.set_exception(Closed(f"the answer is not HTTP/1.1: {exc}", early=False))

    def _feed(self, data: bytes) -> None:
        self._buffer += data
        if self._headers is None:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buffer) > 65536:
                    raise ValueError("headers over 64 KiB")
                return
            self._read_head(bytes(self._buffer[:end]).decode("latin-1"))
            del self._buffer[: end + 4]
        if self._chunked:
            self._read_chunks()
        else:
            self._body += self._buffer
            self._buffer.clear()
            if len(self._body) > self._cap:
                raise ReplyTooBig(len(self._body))
            if self._length is not None and len(self._body) >= self._length:
                del self._body[self._length :]
                self._finish()

    def _read_head(self, head: str) -> None:
        lines = head.split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise ValueError(f"status line {lines[0][:80]!r}")
        self._status = int(parts[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        self._headers = headers
        self.keep = headers.get("connection", "").lower() != "close" and parts[0] != "HTTP/1.0"
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self._chunked = True
        elif "content-length" in headers:
            self._length = int(headers["content-length"])
            if self._length > self._cap:
                raise ReplyTooBig(self._length)
        else:
            self.keep = False  # the body ends when the connection does

    def _read_chunks(self) -> None:
        buffer = self._buffer
        while True:
            if self._chunk_left == -2:
                if len(buffer) < 2:
                    return
                del buffer[:2]
                self._chunk_left = -1
            if self._chunk_left < 0:
                end = buffer.find(b"\r\n")
                if end < 0:
                    return
                size = int(bytes(buffer[:end]).split(b";", 1)[0].strip() or b"0", 16)
                del buffer[: end + 2]
                if size == 0:
                    self._finish()  # trailers, if any, are not read: the connection is not reused
                    self.keep = self.keep and buffer[:2] == b"\r\n"
                    return
                self._chunk_left = size
            take = min(self._chunk_left, len(buffer))
            self._body += buffer[:take]
            del buffer[:take]
            self._chunk_left -= take
            if len(self._body) > self._cap:
                raise ReplyTooBig(len(self._body))
            if self._chunk_left:
                return
            if len(buffer) < 2:
                self._chunk_left = -2  # the chunk's closing CRLF has not come yet
                return
            del buffer[:2]
            self._chunk_left = -1

    def _finish(self) -> None:
        assert self.answer is not None and self._headers is not None
        if not self.answer.done():
            self.answer.set_result((self._status, self._headers, bytes(self._body)))

    def reset(self) -> None:
        """Ready for the next request on the same connection."""
        self.answer = None
        self._buffer.clear()
        self._headers, self._length, self._chunked, self._chunk_left = None, None, False, -1
        self._body = bytearray()

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class Pool:
    """Kept-alive connections to one host and port, for one event loop."""

    def __init__(self, host: str, port: int, netloc: str) -> None:
        self.host, self.port, self.netloc = host, port, netloc
        self._idle: list[_Connection] = []

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        _, connection = await loop.create_connection(_Connection, self.host, self.port)
        return connection

    async def post(self, path: str, body: bytes, headers: dict[str, str], timeout: float, cap: int) -> Answer:
        """POST `body` to `path`; (status, headers, body). Raises TimeoutError, ConnectionError (Closed,
        OSError), ReplyTooBig."""
        head = [f"POST {path} HTTP/1.1", f"Host: {self.netloc}", f"Content-Length: {len(body)}"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        data = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        async with asyncio.timeout_at(deadline):
            while True:
                while self._idle and self._idle[-1].closed:  # closed by the server while it waited here
                    self._idle.pop().close()
                reused = bool(self._idle)
                connection = self._idle.pop() if reused else await self._connect()
                try:
                    answer = await connection.request(data, cap)
                except Closed as exc:
                    connection.close()
                    if reused and exc.early:
                        continue  # the server had dropped this idle connection: once more on a fresh one
                    raise
                except BaseException:
                    connection.close()  # a timeout, a cancel or a refused reply: its state is unknown
                    raise
                if connection.keep and not connection.closed:
                    connection.reset()
                    self._idle.append(connection)
                else:
                    connection.close()
                return answer

    def close(self) -> None:
        """Close every kept connection."""
        for connection in self._idle:
            connection.close()
        self._idle.clear()


def plain_target(url: str) -> tuple[str, int, str, str] | None:
    """(host, port, netloc, path prefix) of an http:// URL, or None for anything this client does not serve."""
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or not parts.hostname or parts.username or parts.query:
        return None
    return parts.hostname, parts.port or 80, parts.netloc, parts.path.rstrip("/")


def describe(exc: Any) -> str:
    """A failure's type and text, for one line."""
    return f"{type(exc).__name__}: {exc}"
