"""Reading conversation logs into events: OpenAI chat messages, our own events (tau-bench and tau2 in tau.py).

Every reader returns `Parsed` conversations and located problems (`FILE:LINE: message`); it never
raises on bad content. Messages become the same events the engine records, so everything
downstream (rules, judges, Review) reads an imported conversation like a simulated one:
- a customer's message -> `customer_message` (a new turn);
- an assistant's text -> `agent_message`; each of its tool calls -> `tool_call`, with the result
  (or error) its tool message carried; `tag_ticket`, `handover_to_human` and `close_ticket`
  also give `ticket_tagged`, `handover` and `ticket_closed`, as in a simulated run;
- system messages are kept in the record's metadata, not shown as turns.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from sage_desk.core import jsonbound
from sage_desk.core.domain.tools import CLOSE, CLOSE_OUTCOMES, HANDOVER, TAG
from sage_desk.core.errors import Problem
from sage_desk.core.events import (
    AgentMessage,
    CustomerMessage,
    Event,
    Handover,
    TicketClosed,
    TicketTagged,
    ToolCall,
    parse_event,
)
from sage_desk.core.jsonsafe import Json, JsonObject

FORMATS = ("openai", "tau-bench", "tau2", "events")
CARRIED = (
    "case",
    "bucket",
    "repeat",
    "ending",
    "tau_reward",
    "rules_state",
    "case_data",
    "verdicts_as_given",
    "overrides_as_given",
)
"""The fields of an `export-results --events` record that `import --format events` keeps as they were."""
MAX_FILE_BYTES = 512 * 1024 * 1024


@dataclass
class Parsed:
    """One conversation read from a log."""

    source_id: str
    events: list[Event]
    file: str
    line: int
    agent: str | None = None
    metadata: JsonObject = field(default_factory=dict)
    carried: JsonObject = field(default_factory=dict)
    """What an `events` record brings back from the run it was exported from (case, bucket, repeat,
    ending, case_data, verdicts_as_given ...), so importing it gives that conversation back exactly."""

    def content_hash(self) -> str:
        """A hash of what the conversation says and does (not of its id): the same content twice is one conversation."""
        body: list[Json] = [
            {k: v for k, v in e.model_dump(mode="json").items() if k not in ("t", "latency_ms")} for e in self.events
        ]
        if self.carried:  # an exported conversation: two repeats that played alike are still two conversations
            body.append({"exported_as": self.source_id})
        return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class _Builder:
    """Turns a message sequence into events, pairing tool calls with their results."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.turn = 0
        self.pending: dict[str, int] = {}  # tool_call_id -> index of its ToolCall event

    def emit(self, event: Event) -> None:
        event.seq = len(self.events)
        event.turn = self.turn
        self.events.append(event)

    def customer(self, text: str) -> None:
        self.turn += 1
        self.emit(CustomerMessage(text=text))

    def agent(self, text: str) -> None:
        if text.strip():
            self.emit(AgentMessage(text=text))

    def call(self, call_id: str, name: str, arguments: Json) -> None:
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                pass  # kept as the text the model sent, as the engine does
        kind = "helpdesk" if name in (TAG, HANDOVER, CLOSE) else "read"
        self.pending[call_id] = len(self.events)
        self.emit(ToolCall(call_id=call_id, name=name, arguments=arguments, kind=kind))
        if isinstance(arguments, dict):
            self._readable(name, arguments)

    def _readable(self, name: str, args: JsonObject) -> None:
        if name == TAG and isinstance(args.get("intent"), str):
            self.emit(TicketTagged(intent=args["intent"], slots=dict(_mapping(args.get("slots")))))
        elif name == HANDOVER:
            self.emit(Handover(reason=str(args.get("reason", ""))))
        elif name == CLOSE and args.get("outcome") in CLOSE_OUTCOMES:
            self.emit(TicketClosed(outcome=str(args["outcome"]), summary=str(args.get("summary", ""))))

    def result(self, call_id: str, content: Json, error: bool = False) -> None:
        index = self.pending.pop(call_id, None)
        if index is None:
            return
        event = self.events[index]
        assert isinstance(event, ToolCall)
        value = _json_or_text(content)
        if error:
            event.error = value if isinstance(value, str) else json.dumps(value)
        elif isinstance(value, dict) and set(value) == {"error"}:
            event.error = str(value["error"])
        else:
            event.result = value


def _mapping(value: Json) -> JsonObject:
    """`value` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _json_or_text(content: Json) -> Json:
    """A tool result's text as the JSON it holds (bounded: hostile JSON stays text), else the text."""
    if isinstance(content, str):
        try:
            return jsonbound.loads(content)
        except jsonbound.JsonProblem:
            return content
    return content


def _text(content: Json) -> str:
    """A message's text; content parts (text, images) as the chat API writes them."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, dict) and part.get("type") in ("image_url", "input_image", "image"):
                parts.append("[image attached]")
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(p for p in parts if p)
    return str(content)


def _openai_messages(messages: list[Json]) -> tuple[list[Event], list[str], str | None]:
    """Events, system texts, and a problem (or None)."""
    build = _Builder()
    system: list[str] = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message:
            return [], system, f"message {i + 1} is not an object with a 'role'"
        role = message["role"]
        if role in ("system", "developer"):
            system.append(_text(message.get("content")))
        elif role == "user":
            build.customer(_text(message.get("content")))
        elif role == "assistant":
            build.agent(_text(message.get("content")))
            for j, call in enumerate(message.get("tool_calls") or []):
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                    return [], system, f"message {i + 1}: tool call {j + 1} has no function name"
                build.call(str(call.get("id") or f"call_{i}_{j}"), fn["name"], fn.get("arguments", {}))
        elif role == "tool":
            build.result(str(message.get("tool_call_id", "")), message.get("content"))
        else:
            return [], system, f"message {i + 1}: unknown role {role!r} (user, assistant, tool, system)"
    if not any(isinstance(e, CustomerMessage) for e in build.events):
        return [], system, "no customer (user) message"
    return build.events, system, None


def _records(path: Path, key: str) -> Iterator[tuple[int, JsonObject] | Problem]:
    """Each JSONL line that is an object with a `key` list, with its line number; a Problem otherwise.

    The file is read a line at a time, a BOM skipped, and hostile JSON (nesting too deep, an
    integer too long, a line too long) is a located Problem (core/jsonbound.py)."""
    if not path.is_file():
        raise OSError(f"no such file: {path}")
    for found in jsonbound.jsonl(path):
        if isinstance(found, jsonbound.JsonProblem):
            yield Problem(str(path), found.line, found.col, found.message)
            continue
        number, record = found
        if not isinstance(record, dict) or not isinstance(record.get(key), list):
            yield Problem(str(path), number, 1, f"expected an object with a '{key}' list")
            continue
        yield number, record


def read_openai(path: Path) -> Iterator[Parsed | Problem]:
    """One conversation per JSONL line: {"id": ..., "messages": [...], "metadata": {...}}."""
    for found in _records(path, "messages"):
        if isinstance(found, Problem):
            yield found
            continue
        number, record = found
        events, system, problem = _openai_messages(record["messages"])
        if problem:
            yield Problem(str(path), number, 1, problem)
            continue
        metadata = _mapping(record.get("metadata"))
        if system:
            metadata = {**metadata, "system": system}
        source = record.get("id") or metadata.get("id") or f"{path.name}:{number}"
        agent = record.get("model") or metadata.get("model") or metadata.get("agent")
        yield Parsed(str(source), events, str(path), number, str(agent) if agent else None, metadata)


def read_events(path: Path) -> Iterator[Parsed | Problem]:
    """Our own records, one per line: {"conversation" (or "id"), "agent", "events": [...]}, as
    `sage-desk export-results --events` writes them."""
    for found in _records(path, "events"):
        if isinstance(found, Problem):
            yield found
            continue
        number, record = found
        try:
            events = [parse_event(e) for e in record["events"]]
        except ValidationError as exc:
            first = exc.errors()[0]
            yield Problem(str(path), number, 1, f"event {first['loc'][0] if first['loc'] else '?'}: {first['msg']}")
            continue
        for i, event in enumerate(events):
            event.seq = i
        source = record.get("source_id") or record.get("conversation") or record.get("id") or f"{path.name}:{number}"
        agent = record.get("agent")
        carried = {k: record[k] for k in CARRIED if record.get(k) is not None}
        yield Parsed(
            str(source), events, str(path), number, str(agent) if agent else None, _mapping(record.get("metadata")), carried
        )


def _read(path: Path) -> str:
    if not path.is_file():
        raise OSError(f"no such file: {path}")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise OSError(f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    return path.read_text(encoding="utf-8", errors="replace")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(_read(path).splitlines(), start=1):
        if line.strip():
            yield number, line


# tau-bench's and tau2's own layouts (tau.py) build on the reader above.
from sage_desk.core.imports.tau import read_tau2, read_tau_bench  # noqa: E402

READERS = {"openai": read_openai, "tau-bench": read_tau_bench, "tau2": read_tau2, "events": read_events}
