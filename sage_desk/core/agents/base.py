"""Participants as step functions (tau2's pattern): the service agent and the customer.

The engine owns the loop; a participant only answers "what next?" given the conversation so far.
A service agent's step is either tool calls (the engine runs them and asks again, bounded) or a
text reply that ends its turn. A customer's step is a message, or None to stop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sage_desk.core.errors import RunError
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.llm.types import ToolCallRequest, Usage
from sage_desk.core.registry import Registry, UnknownNameError

if TYPE_CHECKING:
    from sage_desk.core.agents.protocol import AgentSettings
    from sage_desk.core.cases.model import Case
    from sage_desk.core.domain.loader import DomainBundle
    from sage_desk.core.events import Event


@dataclass
class AgentAction:
    """One agent step: tool calls to run, and/or text for the customer."""

    text: str | None = None
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    usage: Usage | None = None
    done_calls: list[DoneCall] = field(default_factory=list)  # calls already run elsewhere (serve-tools), in order


@dataclass
class DoneCall:
    """A tool call the agent made through `sage-desk serve-tools`, with what the sandboxed world answered."""

    request: ToolCallRequest
    result: Json = None
    error: str | None = None
    kind: str = "read"
    guard_failed: bool = False
    latency_ms: float = 0.0


@dataclass
class CustomerReply:
    """One customer step: a message, or `text=None` when the customer stops."""

    text: str | None
    emotion: str | None = None
    satisfaction: float | None = None
    usage: Usage | None = None


@dataclass
class ConversationView:
    """What participants may read: the case (baselines and simulators only), the domain,
    the OpenAI-style message list the agent sees, and the events so far."""

    case: Case
    bundle: DomainBundle
    messages: list[JsonObject]
    events: list[Event]
    turn: int
    seed: int
    conversation_id: str = ""

    def last_agent_text(self) -> str:
        for event in reversed(self.events):
            if event.type == "agent_message":
                return event.text
        return ""


class ServiceAgent(Protocol):
    """The agent under test."""

    name: str

    async def step(self, view: ConversationView) -> AgentAction:
        """The next step given everything so far."""
        ...


class Customer(Protocol):
    """The simulated customer."""

    name: str

    async def reply(self, view: ConversationView) -> CustomerReply:
        """The customer's next message, or a reply with `text=None` to stop."""
        ...


AgentFactory = Callable[..., ServiceAgent]


class AgentNameError(RunError, ValueError):
    """An agent name that names no agent, or options it does not take (a ValueError too, as it was)."""


class UnknownAgentError(UnknownNameError, AgentNameError):
    """A `baseline:` or customer name nobody registered; lists the registered ones."""


@dataclass(frozen=True)
class Baseline:
    """A registered no-LLM agent: its factory, and whether its name takes options."""

    factory: AgentFactory
    configurable: bool = False


def _shipped_baselines() -> None:
    import sage_desk.core.agents.baselines  # registers the shipped baselines
    import sage_desk.core.agents.imperfect  # noqa: F401


BASELINES: Registry[Baseline] = Registry("baseline agent", load=_shipped_baselines, error=UnknownAgentError)
CUSTOMERS: Registry[Callable[[], Customer]] = Registry("customer", error=UnknownAgentError)


def baseline(name: str, configurable: bool = False) -> Callable[[AgentFactory], AgentFactory]:
    """Register a no-LLM baseline agent as `baseline:<name>`; a duplicate name raises.

    A `configurable` baseline takes options in its name (`baseline:<name>?key=value&...`): its
    factory is called with the full name and the options as strings, and checks them itself.
    """

    def register(factory: AgentFactory) -> AgentFactory:
        BASELINES.add(f"baseline:{name}", Baseline(factory, configurable))
        return factory

    return register


def baseline_names() -> list[str]:
    """Every registered baseline agent."""
    return sorted(BASELINES.names())


def split_options(model: str) -> tuple[str, dict[str, str]]:
    """`baseline:imperfect?act=0.7&seed=3` -> (`baseline:imperfect`, {"act": "0.7", "seed": "3"})."""
    base, sep, query = model.partition("?")
    if not sep:
        return model, {}
    options: dict[str, str] = {}
    for part in query.split("&"):
        key, eq, value = part.partition("=")
        if not key.strip() or not eq:
            raise AgentNameError(f"agent {model!r}: options are written key=value and joined with '&' ({part!r} is not)")
        if key.strip() in options:
            raise AgentNameError(f"agent {model!r}: option {key.strip()!r} is given twice")
        options[key.strip()] = value.strip()
    return base, options


def make_agent(model: str, settings: AgentSettings | None = None, **options: Any) -> ServiceAgent:
    """An agent from its spec: `baseline:<name>[?options]`, `http(s)://…` (an HTTP agent),
    `python:module:factory` (a Python agent) or any litellm model; `settings` are the run's
    prompt file, parameters, headers and tools server (protocol.py)."""
    from sage_desk.core.agents.protocol import agent_kind

    kind = agent_kind(model)
    if kind == "http":
        from sage_desk.core.agents.http_agent import HttpAgent
        from sage_desk.core.agents.mcp_agent import McpAgent

        if settings is not None and settings.tools_server:
            return McpAgent(model, settings, **options)
        return HttpAgent(model, settings, **options)
    if kind == "python":
        from sage_desk.core.agents.python_agent import PythonAgent

        return PythonAgent(model, settings, **options)
    if model.startswith("baseline:"):
        base, named = split_options(model)
        entry = BASELINES.get(base)
        if entry.configurable:
            return entry.factory(model, named)
        if named:
            takes = sorted(name for name in BASELINES if BASELINES.get(name).configurable)
            raise AgentNameError(f"{base} takes no options (only {', '.join(takes)} does)")
        return entry.factory()
    from sage_desk.core.agents.llm_agent import LlmServiceAgent

    return LlmServiceAgent(model, settings=settings, **options)


def _scripted() -> Customer:
    from sage_desk.core.agents.scripted_user import ScriptedCustomer

    return ScriptedCustomer()


CUSTOMERS.add("scripted", _scripted)


def is_offline_name(model: str) -> bool:
    """Whether a model name asks for one of ours (`baseline:...`, `scripted`, an HTTP or Python agent)
    rather than a litellm model."""
    return model.startswith(("baseline:", "http://", "https://", "python:")) or model in CUSTOMERS


def make_customer(model: str, **options: Any) -> Customer:
    """A customer simulator: `scripted` (no LLM) or any litellm model; an unknown `baseline:` name raises."""
    if model in CUSTOMERS or model.startswith("baseline:"):
        return CUSTOMERS.get(model)()
    from sage_desk.core.agents.llm_user import LlmCustomer

    return LlmCustomer(model, **options)
