"""A conversation as plain text, beside the events it reads: for judges, calibration exports and the command line."""

from __future__ import annotations

import json
from collections.abc import Iterable

from sage_desk.core.events import Event


def render_transcript(events: Iterable[Event], results: bool = True, max_result: int = 400) -> str:
    """Customer and agent turns with the agent's tool calls (and their results) in between."""
    lines = []
    for event in events:
        if event.type == "customer_message":
            lines.append(f"CUSTOMER: {event.text}")
        elif event.type == "agent_message" and event.text:
            lines.append(f"AGENT: {event.text}")
        elif event.type == "tool_call":
            args = json.dumps(event.arguments, ensure_ascii=False) if isinstance(event.arguments, dict) else str(event.arguments)
            line = f"  [tool] {event.name}({args})"
            if results:
                outcome = f"ERROR: {event.error}" if event.error else json.dumps(event.result, ensure_ascii=False, default=str)
                line += f" -> {outcome[:max_result]}"
            lines.append(line)
        elif event.type == "error":
            lines.append(f"  [error] {event.message}")
    return "\n".join(lines)
