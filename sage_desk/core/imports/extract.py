"""`sage-desk import --extract MODEL`: an LLM fills the slots a log leaves unknown, citing its source.

The model reads the conversation (numbered messages) and, for each unknown user slot of the
graph, answers one of the slot's declared values with the number of the customer or agent
message it read it in, or `unknown`. An answer is kept only when its value is declared and its
message exists; anything else leaves the slot unknown, so the verdicts that need it stay
unscored. A slot a reviewer or the log's metadata set is never asked for. The extractor's slots
grade the agent's classification like a reviewer's would; Review shows each one's citation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.errors import SageError
from sage_desk.core.events import AgentMessage, CustomerMessage, Event, ToolCall
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.llm.client import LlmClient

PROMPT = """You read a customer-service conversation and fill in what it shows, for an auditor.
For each field below, answer one of its values only if the conversation shows it, with the number of
the message you read it in; otherwise answer "unknown". Never guess.

Fields:
{fields}

Conversation:
{transcript}

Answer with JSON only, one entry per field:
{{"slots": {{"FIELD": {{"value": "VALUE or unknown", "message": NUMBER or null}}}}}}"""


@dataclass(frozen=True)
class Extracted:
    """One slot an extractor filled: its value and the message it cites."""

    field: str
    value: str
    message: int


def numbered(events: Sequence[Event]) -> list[tuple[int, str]]:
    """The conversation as the extractor reads it: (message number, line)."""
    lines = []
    for event in events:
        if isinstance(event, CustomerMessage):
            lines.append(f"customer: {event.text}")
        elif isinstance(event, AgentMessage):
            lines.append(f"agent: {event.text}")
        elif isinstance(event, ToolCall):
            result = json.dumps(event.result, ensure_ascii=False)[:400] if event.error is None else f"error: {event.error}"
            lines.append(f"agent called {event.name}({json.dumps(event.arguments, ensure_ascii=False)}) -> {result}")
    return list(enumerate(lines, start=1))


def _parse(text: str) -> JsonObject:
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    if not match:
        return {}
    try:
        data = json.loads(match.group())
    except json.JSONDecodeError:
        return {}
    slots = data.get("slots") if isinstance(data, dict) else None
    return slots if isinstance(slots, dict) else {}


async def extract_slots(
    client: LlmClient,
    model: str,
    bundle: DomainBundle,
    events: Sequence[Event],
    wanted: Sequence[str],
    api_base: str | None = None,
) -> list[Extracted]:
    """Ask the model for the `wanted` slots; keep only declared values citing a real message."""
    fields = bundle.user_fields()
    asked = [f for f in wanted if f in fields]
    if not asked:
        return []
    lines = numbered(events)
    described = "\n".join(f"- {f}: {bundle.graph.fields[f].description} (values: {', '.join(fields[f])})" for f in asked)
    prompt = PROMPT.format(fields=described, transcript="\n".join(f"[{n}] {line}" for n, line in lines))
    try:
        reply = await client.complete(model, [{"role": "user", "content": prompt}], api_base=api_base, temperature=0)
    except SageError:
        return []
    found = []
    for name, answer in _parse(reply.content or "").items():
        if name not in asked or not isinstance(answer, dict):
            continue
        value, message = answer.get("value"), answer.get("message")
        if value in fields[name] and isinstance(message, int) and 1 <= message <= len(lines):
            found.append(Extracted(name, value, message))
    return found
