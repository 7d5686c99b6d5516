"""`sage-desk show CONVERSATION_ID`: a transcript with its tool calls and verdicts.

`show --case C [--run R] [--agent A] [--repeat N]` finds the conversation instead (the latest run
when --run is left out); when several match, it lists them (as `conversations` does) and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from sage_desk.cli._common import OK, USAGE, fail, output_width
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "conversation",
        metavar="CONVERSATION_ID",
        nargs="?",
        help="a conversation id (`sage-desk conversations` lists them) or an imported conversation's id "
        "in its file (task34-t0), or leave it out and name --case",
    )
    parser.add_argument("--case", metavar="CASE_ID", help="the conversation of this case (in --run, default the latest run)")
    parser.add_argument("--run", metavar="RUN_ID", help="with --case: the run (default: the latest)")
    parser.add_argument("--agent", metavar="MODEL", help="with --case: the agent, when the run has several")
    parser.add_argument("--repeat", metavar="N", type=int, help="with --case: the repeat, when the run has several")
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


def _header(convo) -> str:
    """The conversation's one-line header; what an imported conversation does not know yet is left out, never "None"."""
    kinds = "/".join(k for k in (convo.bucket, convo.conflict) if k)
    ending = f"{convo.status.value} ({convo.termination})" if convo.termination else convo.status.value
    source = f"source {convo.source_id}" if getattr(convo, "source_id", None) else ""  # its id in the imported file
    parts = [convo.id, source, f"case {convo.case_id}", f"agent {convo.agent}", f"repeat {convo.repeat}", kinds, ending]
    if convo.tau_reward is not None:  # imported from tau-bench/tau2: its own score beside ours
        parts.append(f"tau reward {convo.tau_reward:g}")
    if convo.rules_state:
        parts.append(f"rules not settled: {convo.rules_state.replace('+', ' and ')}")
    return "  ".join(p for p in parts if p)


def _find(store, args: argparse.Namespace) -> str | None:
    """The id of the one conversation --case (with --run, --agent, --repeat) names; None after listing several."""
    from sage_desk.cli.conversations import listing, render_text

    run_id = pick_run(store, args.run)
    filters = {k: v for k, v in (("agent", args.agent), ("repeat", args.repeat)) if v is not None}
    found = store.conversations(run_id, case_id=args.case, **filters)
    if len(found) == 1:
        return found[0].id
    if not found:
        narrowed = "".join(f" {k} {v}" for k, v in filters.items())
        raise SageError(
            f"no conversation of case {args.case!r}{narrowed} in run {run_id}; list them with: "
            f"sage-desk conversations --run {run_id}"
        )
    ids = {c.id for c in found}
    records = [r for r in listing(store, run_id, [args.case], [args.agent] if args.agent else None) if r["id"] in ids]
    print(render_text(records, output_width()), end="", file=sys.stderr)
    print(
        f"sage-desk: {len(found)} conversations of case {args.case!r} in run {run_id}: give one id, "
        "or narrow with --agent and --repeat",
        file=sys.stderr,
    )
    return None


def _by_id_or_source(store, name: str) -> str:
    """A conversation id, or an imported conversation's id in its file (`task34-t0`) when it names one conversation."""
    from sage_desk.core.store.errors import StoreError

    try:
        return store.conversation(name).id
    except StoreError:
        found = store.conversations(source_id=name)
        if len(found) == 1:
            return found[0].id
        if not found:
            raise
        runs = ", ".join(f"{c.id} (run {c.run_id}, {c.domain})" for c in found)
        raise SageError(f"{len(found)} imported conversations have the source id {name!r}: {runs}; give one id") from None


def run(args: argparse.Namespace) -> int:
    if bool(args.conversation) == bool(args.case):
        what = "a CONVERSATION_ID or --case CASE_ID, not both" if args.case else "a CONVERSATION_ID, or --case CASE_ID"
        return fail(f"name {what} (`sage-desk conversations` lists a run's ids)", USAGE)
    if args.conversation and (args.run or args.agent or args.repeat is not None):
        return fail("--run, --agent and --repeat go with --case", USAGE)
    try:
        store = open_store(args)
        conversation_id = _by_id_or_source(store, args.conversation) if args.conversation else _find(store, args)
        if conversation_id is None:
            return USAGE
        convo = store.conversation(conversation_id)
        events = store.events(conversation_id)
        verdicts = store.effective_verdicts(conversation_id=conversation_id)
    except SageError as exc:
        return fail(str(exc))
    if args.format == "json":
        print(
            json.dumps(
                {
                    "conversation": convo.model_dump(mode="json"),
                    "events": [e.model_dump(mode="json") for e in events],
                    "verdicts": [v.model_dump(mode="json") for v in verdicts],
                },
                indent=2,
            )
        )
        return OK
    print(_header(convo))
    print("-" * 100)
    for event in events:
        line = _line(event)
        if line:
            print(line)
    if verdicts:
        print("-" * 100)
        for v in verdicts:
            mark = "n/a " if v.passed is None else ("PASS" if v.passed else "FAIL")
            mark += "?" if v.details.get("provisional") and not v.overridden else ""  # rests on the agent's own tag
            score = f" {v.score:.2f}" if v.score is not None else ""
            human = " (human)" if v.overridden else ""
            print(f"{mark}{score}  {v.source:<20} {v.criterion:<40} {v.rationale}{human}")
    return OK
