"""The one agent interface: OpenAI-format messages and tool schemas in, one assistant message out.

Models, HTTP agents (`http://…`), Python agents (`python:module:factory`) and agents with their own
tool layer (through `sage-desk serve-tools`) all answer the same call. This module holds what they
share: the run's settings for the agent under test (`AgentSettings`: a prompt file's text, model
parameters, HTTP headers, a tools server), the reading of a reply into an `AgentAction`, and
`AgentError`, the one plain line that errors a conversation when the engine cannot talk to an agent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sage_desk.core.errors import SageError
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.llm.client import parse_tool_call
from sage_desk.core.llm.types import ToolCallRequest

if TYPE_CHECKING:
    from sage_desk.core.domain.loader import DomainBundle

RESERVED_PARAMS = frozenset({"messages", "tools", "conversation_id", "tools_url", "seed"})
"""Parameters the conversation sets, never --agent-param (`model` too, for a model agent)."""
POLICY_MARK = "{policy}"
"""Where a prompt file wants the domain's policy; a file without it gets no policy."""
KINDS = ("model", "http", "python", "baseline")
SECRET_NAME = re.compile(r"(^|[_-])(api_?keys?|keys?|secrets?|password|passwd|token|access_token|authorization)$", re.IGNORECASE)
"""A parameter name that holds a secret (api_key, token ...), never one that counts tokens (max_tokens)."""


class AgentError(SageError):
    """The engine cannot talk to the agent under test: one plain line naming the agent and the problem."""

    where = "agent"
    retryable = False

    def __init__(self, agent: str, problem: str, retryable: bool = False) -> None:
        super().__init__(f"agent {agent}: {problem}")
        self.agent, self.problem, self.retryable = agent, problem, retryable


def agent_kind(spec: str) -> str:
    """What kind of agent a spec names: baseline, http (a URL), python (`python:mod:factory`) or model."""
    if spec.startswith("baseline:"):
        return "baseline"
    if spec.startswith(("http://", "https://")):
        return "http"
    if spec.startswith("python:"):
        return "python"
    return "model"


@dataclass
class AgentSettings:
    """How the run talks to its agents under test; kept in the run's spec (never a secret: headers
    are templates whose `$VARS` are read from the environment at call time)."""

    prompt: str | None = None  # the prompt file's text (sent instead of ours); `{policy}` marks the policy
    params: JsonObject = field(default_factory=dict)  # model or HTTP body parameters
    headers: list[str] = field(default_factory=list)  # "Name: value with $VAR", for HTTP agents
    tools_server: str | None = None  # a serve-tools URL: the agent calls its tools there

    def system_prompt(self, bundle: DomainBundle) -> str | None:
        """The prompt file's text with the policy where it says `{policy}`; None without a file."""
        if self.prompt is None:
            return None
        return self.prompt.replace(POLICY_MARK, bundle.policy.strip())


def check_settings(settings: AgentSettings, agents: list[str]) -> None:
    """Refuse settings a run cannot use, before it starts (or resumes): a header whose variable is
    unset, a tools server without an HTTP agent. Raises `RunError` in one line."""
    from sage_desk.core.agents.http_agent import missing_header_variables
    from sage_desk.core.errors import RunError

    kinds = {agent_kind(a) for a in agents}
    if "model" in kinds and "model" in settings.params:
        raise RunError("--agent-param model: a model agent's model is its --agent name (model=NAME is for HTTP agents)")
    missing = missing_header_variables(settings.headers)
    if missing and "http" in kinds:
        raise RunError(
            f"--agent-header reads ${missing[0]}, which is not set in this environment: "
            f"set it (export {missing[0]}=...) and run again; its value is never stored"
        )
    taken = sorted(RESERVED_PARAMS & set(settings.params))
    if taken:
        raise RunError(
            f"--agent-param {taken[0]}: SAGE Desk sets it itself (the model is --agent's name; "
            "the messages, tools and conversation id are the conversation's)"
        )
    if settings.tools_server and "http" not in kinds:
        raise RunError(
            "--tools-server goes with an HTTP agent (--agent http://…): the agent SAGE Desk "
            "plays the customer to, which calls its tools through that server"
        )


def parse_param(text: str) -> tuple[str, Json]:
    """`temperature=0.2` -> ("temperature", 0.2): the value read as JSON when it is JSON (numbers,
    true/false, null, lists, objects), else kept as text."""
    key, eq, raw = text.partition("=")
    key = key.strip()
    if not eq or not re.fullmatch(r"[A-Za-z_][\w.-]*", key):
        raise ValueError(f"--agent-param {text!r}: write it as name=value (e.g. temperature=0.2)")
    if SECRET_NAME.search(key):
        raise ValueError(
            f"--agent-param {key}: a secret is never a parameter (it would be kept with the run); "
            "models read keys from the environment or keyring, HTTP agents from --agent-header '$VAR's"
        )
    try:
        return key, json.loads(raw)
    except ValueError:
        return key, raw


def action_of_reply(agent: str, reply: Json, bundle: DomainBundle) -> tuple[str | None, list[ToolCallRequest]]:
    """The text and tool calls of one OpenAI-format assistant message (or a chat completion holding
    one); anything else, or a tool the domain lacks, raises `AgentError`."""
    message = _message_of(agent, reply)
    content = message.get("content")
    if isinstance(content, list):  # content parts: the text ones, joined
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    if content is not None and not isinstance(content, str):
        raise AgentError(agent, f"its reply's 'content' is a JSON {type(content).__name__}, not text")
    calls = _tool_calls(agent, message.get("tool_calls"))
    known = {s["function"]["name"] for s in bundle.tool_schemas()}
    for call in calls:
        if call.name not in known:
            raise AgentError(
                agent, f"called a tool the domain {bundle.name} lacks: {call.name!r} (it has {', '.join(sorted(known))})"
            )
    return content, calls


def _message_of(agent: str, reply: Json) -> JsonObject:
    if isinstance(reply, dict) and isinstance(reply.get("choices"), list):
        choices = reply["choices"]
        if not choices or not isinstance(choices[0], dict) or not isinstance(choices[0].get("message"), dict):
            raise AgentError(agent, "its reply is a chat completion without a message in choices[0]")
        reply = choices[0]["message"]
    if not isinstance(reply, dict):
        raise AgentError(
            agent,
            f"its reply is a JSON {type(reply).__name__}, not an assistant message "
            '({"role": "assistant", "content": ..., "tool_calls": [...]})',
        )
    role = reply.get("role", "assistant")
    if role != "assistant":
        raise AgentError(agent, f"its reply is a {role!r} message, not an assistant message")
    if "content" not in reply and "tool_calls" not in reply:
        keys = ", ".join(sorted(map(str, reply))) or "none"
        raise AgentError(agent, f"its reply is not an assistant message: no 'content' or 'tool_calls' (keys: {keys})")
    return reply


def _tool_calls(agent: str, raw: Json) -> list[ToolCallRequest]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise AgentError(agent, f"its reply's 'tool_calls' is a JSON {type(raw).__name__}, not a list")
    calls = []
    for i, call in enumerate(raw):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
            raise AgentError(
                agent,
                f"tool call {i + 1} of its reply has no function name "
                '({"id": ..., "type": "function", "function": {"name": ..., "arguments": "{...}"}})',
            )
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments)  # an object instead of its JSON text: accepted
        calls.append(parse_tool_call(str(call.get("id") or f"call_{i + 1}"), function["name"], arguments))
    return calls
