"""Participants as step functions (tau2's pattern): the service agent and the customer.

The engine owns the loop; a participant only answers "what next?" given the conversation so far.
A service agent's step is either tool calls (the engine runs them and asks again, bounded) or a
text reply that ends its turn. A customer's step is a message, or None to stop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sage_desk.core.cases.model import Case
    from sage_desk.core.domain.loader import DomainBundle
    from sage_desk.core.engine.events import Event


@dataclass
class Usage:
    """Tokens, cost and latency of one model call."""

    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0


@dataclass
class ToolRequest:
    """A tool call the agent asked for; `arguments` is None when its JSON did not parse."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    arguments_raw: str = ""
    parse_error: str | None = None


@dataclass
class AgentAction:
    """One agent step: tool calls to run, and/or text for the customer."""

    text: str | None = None
    tool_calls: list[ToolRequest] = field(default_factory=list)
    usage: Usage | None = None


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
    messages: list[dict[str, Any]]
    events: list[Event]
    turn: int
    seed: int

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
_BASELINES: dict[str, AgentFactory] = {}


def baseline(name: str) -> Callable[[AgentFactory], AgentFactory]:
    """Register a no-LLM baseline agent as `baseline:<name>`; a duplicate name raises."""

    def register(factory: AgentFactory) -> AgentFactory:
        key = f"baseline:{name}"
        if key in _BASELINES:
            raise ValueError(f"baseline agent {key!r} is already registered")
        _BASELINES[key] = factory
        return factory

    return register


def baseline_names() -> list[str]:
    """Every registered baseline agent."""
    import sage_desk.core.agents.baselines  # noqa: F401  (registers the shipped baselines)

    return sorted(_BASELINES)


def make_agent(model: str, **options: Any) -> ServiceAgent:
    """An agent from its model string: `baseline:<name>` or any litellm model."""
    if model.startswith("baseline:"):
        names = baseline_names()
        if model not in _BASELINES:
            raise ValueError(f"unknown baseline agent {model!r} (known: {', '.join(names)})")
        return _BASELINES[model]()
    from sage_desk.core.agents.llm_agent import LlmServiceAgent

    return LlmServiceAgent(model, **options)


def make_customer(model: str, **options: Any) -> Customer:
    """A customer simulator: `scripted` (no LLM) or any litellm model."""
    if model == "scripted":
        from sage_desk.core.agents.scripted_user import ScriptedCustomer

        return ScriptedCustomer()
    from sage_desk.core.agents.llm_user import LlmCustomer

    return LlmCustomer(model, **options)
