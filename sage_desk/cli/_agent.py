"""The options of the agent under test that `run` and `replay` share: a prompt file, parameters, headers."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

PROMPT_LIMIT = 1_000_000  # characters: a prompt file is text a person wrote, not a data dump


class AgentOptionError(ValueError):
    """A bad --agent-prompt, --agent-param or --agent-header; `code` is the exit code (1 file, 2 usage)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


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
    """The RunSpec fields the options give; raises `AgentOptionError` in one line."""
    from sage_desk.core.agents.http_agent import header_template
    from sage_desk.core.agents.protocol import parse_param

    fields: dict[str, Any] = {}
    if args.agent_prompt:
        path = Path(args.agent_prompt).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            raise AgentOptionError(f"--agent-prompt {args.agent_prompt}: cannot read it ({reason})", code=1) from None
        if not text.strip():
            raise AgentOptionError(f"--agent-prompt {args.agent_prompt}: the file is empty", code=1)
        if len(text) > PROMPT_LIMIT:
            raise AgentOptionError(f"--agent-prompt {args.agent_prompt}: over {PROMPT_LIMIT:,} characters", code=1)
        fields["agent_prompt"], fields["agent_prompt_file"] = text, str(path)
    params: dict[str, Any] = {}
    for text in args.agent_param:
        key, value = parse_param(text)
        params[key] = value
    if params:
        fields["agent_params"] = params
    if args.agent_header:
        fields["agent_headers"] = [header_template(h) for h in args.agent_header]
    return fields


def apply_agent_options(spec: Any, args: argparse.Namespace) -> None:
    """Set the options on a RunSpec."""
    for key, value in agent_fields(args).items():
        setattr(spec, key, value)
