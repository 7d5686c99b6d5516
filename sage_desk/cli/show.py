"""`sage-desk show CONVERSATION_ID`: a transcript with its tool calls and verdicts."""

from __future__ import annotations

import argparse
import json

from sage_desk.cli._common import OK, fail
from sage_desk.cli._store import add_db_option, open_store
from sage_desk.core.errors import SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("conversation", metavar="CONVERSATION_ID")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def _line(event) -> str | None:
    kind = event.type
    if kind == "customer_message":
        return f"[{event.turn}] CUSTOMER: {event.text}"
    if kind == "agent_message":
        return f"[{event.turn}] AGENT:    {event.text}"
    if kind == "tool_call":
        args = json.dumps(event.arguments, ensure_ascii=False) if isinstance(event.arguments, dict) else event.arguments
        money = "  $ money-moving" if event.kind == "record" else ""
        result = f"ERROR {event.error}" if event.error else json.dumps(event.result, ensure_ascii=False, default=str)[:200]
        return f"         tool  {event.name}({args}) -> {result}{money}"
    if kind == "ended":
        return f"         ended: {event.reason.value}"
    if kind == "error":
        return f"         ERROR ({event.where}): {event.message}"
    return None


def run(args: argparse.Namespace) -> int:
    try:
        store = open_store(args)
        convo = store.conversation(args.conversation)
        events = store.events(args.conversation)
        verdicts = store.effective_verdicts(conversation_id=args.conversation)
    except SageError as exc:
        return fail(str(exc))
    if args.format == "json":
        print(json.dumps({"conversation": convo.model_dump(mode="json"), "events": [e.model_dump(mode="json") for e in events],
                          "verdicts": [v.model_dump(mode="json") for v in verdicts]}, indent=2))
        return OK
    print(f"{convo.id}  case {convo.case_id}  agent {convo.agent}  repeat {convo.repeat}  "
          f"{convo.bucket}/{convo.conflict}  {convo.status.value} ({convo.termination})")
    print("-" * 100)
    for event in events:
        line = _line(event)
        if line:
            print(line)
    if verdicts:
        print("-" * 100)
        for v in verdicts:
            mark = "n/a " if v.passed is None else ("PASS" if v.passed else "FAIL")
            score = f" {v.score:.2f}" if v.score is not None else ""
            human = " (human)" if v.overridden else ""
            print(f"{mark}{score}  {v.source:<20} {v.criterion:<40} {v.rationale}{human}")
    return OK
