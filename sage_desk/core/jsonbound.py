"""Reading JSON a user hands us, bounded (issue 34): in flat memory, with a `FILE:LINE` message for
whatever is hostile, never a traceback.

- Files are read a line at a time (JSONL) or a chunk at a time (one JSON list), never whole: a
  50 MB import no longer holds the file, its text and its lines at once.
- A UTF-8 byte-order mark at the start is skipped (editors on Windows write one).
- Nesting deeper than `MAX_DEPTH` and integers longer than `MAX_INT_DIGITS` digits are refused
  with a located message (`json.loads` gave a RecursionError or ValueError traceback, and deep
  values broke what reads them later).
- A line (or list item) longer than `MAX_RECORD_BYTES` is refused before it is decoded.

`JsonProblem` carries the line; the readers turn it into their own `Problem`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from sage_desk.core.jsonsafe import Json

MAX_DEPTH = 64
MAX_INT_DIGITS = 40
MAX_RECORD_BYTES = 64 * 1024 * 1024
CHUNK = 1024 * 1024
BOM = b"\xef\xbb\xbf"


class JsonProblem(ValueError):
    """A value that is not JSON, or is hostile, at a line of its file."""

    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line, self.col, self.message = line, col, message


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text)


_DECODER = json.JSONDecoder(parse_int=_bounded_int)


def _depth_ok(value: Json) -> bool:
    """Whether `value` nests at most MAX_DEPTH deep (iteratively: the check itself cannot overflow)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Json = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            return False
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return True


def loads(text: str, line: int = 1) -> Json:
    """`json.loads`, bounded; a `JsonProblem` at `line` (plus the decoder's own line offset) when it is not fine."""
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise JsonProblem(line + exc.lineno - 1, exc.colno, f"not JSON: {exc.msg}") from None
    except RecursionError:
        raise JsonProblem(line, 1, f"nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # _bounded_int, or Python's own limit on digits
        raise JsonProblem(line, 1, f"cannot read: {str(exc).split(';')[0]}") from None
    if not _depth_ok(value):
        raise JsonProblem(line, 1, f"nested too deeply (at most {MAX_DEPTH} levels)")
    return value


def open_text_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a UTF-8 file with their numbers, read one at a time (BOM skipped).

    A line over MAX_RECORD_BYTES raises `JsonProblem` at that line, after skipping it unread.
    OSError (no such file, unreadable) is the caller's.
    """
    with Path(path).open("rb") as handle:
        number = 0
        while True:
            raw = handle.readline(MAX_RECORD_BYTES + 1)
            if not raw:
                return
            number += 1
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            if len(raw) > MAX_RECORD_BYTES and not raw.endswith(b"\n"):
                _skip_rest_of_line(handle)
                raise JsonProblem(number, 1, f"a line longer than {MAX_RECORD_BYTES // 1048576} MiB")
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if text.strip():
                yield number, text


def _skip_rest_of_line(handle: BinaryIO) -> None:
    while True:
        rest = handle.readline(CHUNK)
        if not rest or rest.endswith(b"\n"):
            return


def jsonl(path: str | Path) -> Iterator[tuple[int, Json] | JsonProblem]:
    """Each non-blank line of a JSONL file decoded (bounded) with its number, or the `JsonProblem` of that line.

    Reading goes on after a bad line; a line too long to read ends the file's records with its problem.
    """
    lines = open_text_lines(path)
    while True:
        try:
            number, text = next(lines)
        except StopIteration:
            return
        except JsonProblem as problem:
            yield problem
            return
        try:
            yield number, loads(text, number)
        except JsonProblem as problem:
            yield problem


def json_list(path: str | Path) -> Iterator[tuple[int, Json] | JsonProblem]:
    """Each item of a file holding one top-level JSON list, with the line it starts on, read a chunk
    at a time (memory: the largest item, not the file). A problem ends the items."""
    with Path(path).open("rb") as handle:
        reader = _ChunkedText(handle)
        reader.skip_space()
        if reader.peek() != "[":
            yield JsonProblem(reader.line, 1, "expected a JSON list")
            return
        reader.advance(1)
        first = True
        while True:
            reader.skip_space()
            if reader.peek() == "]":
                return
            if not first:
                if reader.peek() != ",":
                    yield JsonProblem(reader.line, 1, "not JSON: expected ',' or ']' after a list item")
                    return
                reader.advance(1)
                reader.skip_space()
            first = False
            line = reader.line
            try:
                yield line, reader.item()
            except JsonProblem as problem:
                yield problem
                return


class _ChunkedText:
    """A UTF-8 file as text, a chunk at a time, with the line of the current position."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.text = ""
        self.at = 0
        self.line = 1
        self.eof = False
        self._pending = b""
        self._more()
        if self.text.startswith("\ufeff"):
            self.at = 1

    def _more(self) -> bool:
        if self.eof:
            return False
        raw = self.handle.read(CHUNK)
        if not raw:
            self.eof = True
            tail, self._pending = self._pending, b""
            self.text = self.text[self.at :] + tail.decode("utf-8", errors="replace")
            self.at = 0
            return bool(tail)
        raw, self._pending = self._pending + raw, b""
        cut = len(raw)
        while cut > 0 and cut > len(raw) - 4 and (raw[cut - 1] & 0xC0) == 0x80:
            cut -= 1  # never split a multi-byte character between chunks
        if cut > 0 and raw[cut - 1] >= 0xC0:
            cut -= 1
        raw, self._pending = raw[:cut], raw[cut:]
        self.text = self.text[self.at :] + raw.decode("utf-8", errors="replace")
        self.at = 0
        return True

    def peek(self) -> str:
        while self.at >= len(self.text) and self._more():
            pass
        return self.text[self.at : self.at + 1]

    def advance(self, n: int) -> None:
        self.line += self.text.count("\n", self.at, self.at + n)
        self.at += n

    def skip_space(self) -> None:
        while True:
            while self.at < len(self.text) and self.text[self.at] in " \t\r\n":
                self.advance(1)
            if self.at < len(self.text) or not self._more():
                return

    def item(self) -> Json:
        """The JSON value at the position, reading more chunks while it is cut off."""
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.at)
            except json.JSONDecodeError as exc:
                if not self.eof and len(self.text) - self.at <= MAX_RECORD_BYTES and self._more():
                    continue  # most likely cut off at the chunk's end: read on
                if len(self.text) - self.at > MAX_RECORD_BYTES:
                    raise JsonProblem(self.line, 1, f"an item longer than {MAX_RECORD_BYTES // 1048576} MiB") from None
                raise JsonProblem(
                    self.line + self.text.count("\n", self.at, exc.pos), exc.colno, f"not JSON: {exc.msg}"
                ) from None
            except RecursionError:
                raise JsonProblem(self.line, 1, f"nested too deeply (at most {MAX_DEPTH} levels)") from None
            except ValueError as exc:
                raise JsonProblem(self.line, 1, f"cannot read: {str(exc).split(';')[0]}") from None
            if not _depth_ok(value):
                raise JsonProblem(self.line, 1, f"nested too deeply (at most {MAX_DEPTH} levels)")
            self.advance(end - self.at)
            return value


def load_document(path: str | Path, max_bytes: int = 512 * 1024 * 1024) -> Json:
    """A whole JSON document (one object), bounded, BOM accepted; `JsonProblem` when it is not fine.
    For files that are one object by design (tau2's results.json); lists should use `json_list`."""
    file = Path(path)
    if file.stat().st_size > max_bytes:
        raise JsonProblem(1, 1, f"larger than {max_bytes // 1048576} MiB")
    raw = file.read_bytes()
    if raw.startswith(BOM):
        raw = raw[len(BOM) :]
    return loads(raw.decode("utf-8", errors="replace"))
