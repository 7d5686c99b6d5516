"""The agent-under-test options as a user gives them (a prompt file, NAME=VALUE parameters, 'Name: $VAR'
headers, a tools server) turned into a run spec's fields; shared by `sage-desk run`, `replay`,
`doctor --agent` and the Runs screen."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

PROMPT_LIMIT = 1_000_000  # characters: a prompt file is text a person wrote, not a data dump


class AgentOptionError(ValueError):
    """A bad prompt file, parameter or header, in one line; `code` is the CLI's exit code (1 a file, 2 usage)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def read_prompt(path_text: str) -> tuple[str, str]:
    """A prompt file's text and its path; raises `AgentOptionError` naming the file and the problem."""
    path = Path(path_text).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else f"{type(exc).__name__}: not UTF-8 text"
        raise AgentOptionError(f"--agent-prompt {path_text}: cannot read it ({reason})", code=1) from None
    if not text.strip():
        raise AgentOptionError(f"--agent-prompt {path_text}: the file is empty", code=1)
    if len(text) > PROMPT_LIMIT:
        raise AgentOptionError(f"--agent-prompt {path_text}: over {PROMPT_LIMIT:,} characters", code=1)
    return text, str(path)


def spec_fields(
    prompt: str | None = None, params: Sequence[str] = (), headers: Sequence[str] = (), tools_server: str | None = None
) -> dict[str, Any]:
    """The RunSpec fields these options give (only those given); raises ValueError in one line."""
    from sage_desk.core.agents.http_agent import header_template
    from sage_desk.core.agents.protocol import parse_param

    fields: dict[str, Any] = {}
    if prompt:
        fields["agent_prompt"], fields["agent_prompt_file"] = read_prompt(prompt)
    parsed = dict(parse_param(p) for p in params)
    if parsed:
        fields["agent_params"] = parsed
    if headers:
        fields["agent_headers"] = [header_template(h) for h in headers]
    if tools_server:
        if "://" not in tools_server:
            raise AgentOptionError(f"--tools-server {tools_server!r} is not a URL (e.g. http://127.0.0.1:8765)")
        fields["tools_server"] = tools_server.strip()
    return fields
