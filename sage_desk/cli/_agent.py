"""The options of the agent under test that `run` and `replay` share: a prompt file, parameters, headers."""

from __future__ import annotations

import argparse
from typing import Any

from sage_desk.core.agents.options import AgentOptionError, spec_fields

__all__ = ["AgentOptionError", "add_agent_options", "agent_fields", "apply_agent_options", "given"]


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """--agent-prompt, --agent-param and --agent-header."""
    parser.add_argument(
        "--agent-prompt",
        metavar="FILE",
        help="system prompt sent to the agent instead of SAGE Desk's; the domain's policy goes "
        "where the file says {policy} (nowhere without it)",
    )
    parser.add_argument(
        "--agent-param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter for the agent's calls, repeatable: any litellm/OpenAI one for a model "
        "(temperature=0.2, max_tokens=800), a body field for an HTTP agent (model=NAME); "
        "timeout and max_retries tune the calls",
    )
    parser.add_argument(
        "--agent-header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for an HTTP agent, repeatable; $VARS are read from the environment "
        "at each call and never stored ('Authorization: Bearer $TOKEN')",
    )


def given(args: argparse.Namespace) -> bool:
    """Whether any of the agent options was given."""
    return bool(args.agent_prompt or args.agent_param or args.agent_header)


def agent_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The RunSpec fields the options give; raises ValueError (`AgentOptionError` for a file) in one line."""
    return spec_fields(args.agent_prompt, args.agent_param, args.agent_header)


def apply_agent_options(spec: Any, args: argparse.Namespace) -> None:
    """Set the options on a RunSpec."""
    for key, value in agent_fields(args).items():
        setattr(spec, key, value)
