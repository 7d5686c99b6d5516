"""`sage-desk replay CONVERSATION --from-turn T --times N`: how often the agent takes each action at turn T."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from sage_desk.cli._agent import add_agent_options, agent_fields, given
from sage_desk.cli._common import OK, USAGE, fail, fail_error
from sage_desk.cli._store import add_db_option, open_store
from sage_desk.core.errors import SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("conversation", metavar="CONVERSATION_ID")
    parser.add_argument(
        "--from-turn",
        type=int,
        required=True,
        metavar="T",
        help="the customer turn whose agent answer is played again (1 = the answer to the opening)",
    )
    parser.add_argument("--times", type=int, default=20, metavar="N", help="how many times to play it (default 20)")
    parser.add_argument("--agent", metavar="MODEL", help="another agent to put at the fork (default: the conversation's own)")
    parser.add_argument("--api-base", metavar="URL", help="OpenAI-compatible server for the agent (default: the run's)")
    add_agent_options(parser)
    parser.add_argument("--seed", type=int, default=None, help="first sample's seed (default: the conversation's); +1 per sample")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def _settings(args: argparse.Namespace, spec: Any) -> Any:
    """The agent's prompt, parameters and headers: those given here, else the run's own."""
    if not given(args):
        return spec.agent_settings()
    from sage_desk.core.engine.runner import RunSpec

    return RunSpec(domain=spec.domain, agents=[], tools_server=spec.tools_server, **agent_fields(args)).agent_settings()


def run(args: argparse.Namespace) -> int:
    if args.times < 1 or args.times > 1000:
        return fail("--times must be between 1 and 1000", USAGE)
    from sage_desk.core.engine.replay import agent_maker, replay
    from sage_desk.core.session import run_cases

    try:
        store = open_store(args)
        convo = store.conversation(args.conversation)
        bundle, cases, spec = run_cases(store, convo.run_id)
        case = cases.get(convo.case_id)
        if case is None:
            return fail(f"case {convo.case_id!r} of {convo.id} is no longer in the run's suite")
        model = args.agent or convo.agent
        if spec.imported is not None and not args.agent:
            return fail(f"{convo.id} was imported: name the agent to replay it with (--agent MODEL)", USAGE)
        settings = _settings(args, spec)
        make = agent_maker(model, args.api_base or spec.api_base_for("agent"), settings)
        seed = args.seed if args.seed is not None else (convo.seed or 0)
        result = asyncio.run(
            replay(convo.id, case, bundle, store.events(convo.id), args.from_turn, args.times, make, model, seed)
        )
    except ValueError as exc:  # a bad --agent-prompt, --agent-param or --agent-header
        return fail(str(exc), getattr(exc, "code", USAGE))
    except SageError as exc:
        return fail_error(exc)
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=2))
        return OK
    print(
        f"{result.conversation}  case {result.case_id}  agent {result.agent}: turn {result.from_turn} played "
        f"{result.times} times (originally: {result.original})"
    )
    for row in result.actions():
        lo, hi = row["interval"]
        mark = "  <- original" if row["original"] else ""
        print(f"  {row['share']:>4.0%}  ({lo:.0%}-{hi:.0%})  {row['count']:>4}x  {row['action']}{mark}")
    for error in result.errors:
        print(f"  failed: {error}")
    return OK
