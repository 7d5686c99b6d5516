"""The typed, versioned record of a conversation, at the bottom of core:
it imports nothing of ours, so every layer (cases, agents, engine, store, rules) can speak it.

Every step is one event, appended through a `Recorder` as it happens. Events are a pydantic
discriminated union on `type`; `EVENT_VERSION` is bumped when a shape changes, and old rows are
upgraded on read (`parse_event`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from sage_desk.core.jsonsafe import Json, JsonObject

EVENT_VERSION = 1


class TerminationReason(StrEnum):
    """Why a conversation ended: never a bare `break`."""

    CLOSED = "closed"  # the agent closed the ticket
    HANDED_OVER = "handed_over"  # the agent handed over to a human
    CUSTOMER_STOPPED = "customer_stopped"  # the simulated customer ended it
    TURN_LIMIT = "turn_limit"  # max customer turns reached
    TOOL_LOOP_LIMIT = "tool_loop_limit"  # the agent kept calling tools without replying
    ERROR = "error"  # a provider or harness error; excluded from denominators
    CANCELLED = "cancelled"  # the run was cancelled before it finished


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = EVENT_VERSION
    seq: int = 0  # position in the conversation, assigned by the engine
    turn: int = 0  # customer turn number (1 = the opening message)
    t: float = 0.0  # seconds since the conversation started


class CustomerMessage(_Event):
    """What the (simulated) customer wrote."""

    type: Literal["customer_message"] = "customer_message"
    text: str
    emotion: str | None = None
    satisfaction: float | None = None


class AgentMessage(_Event):
    """What the agent under test replied in text."""

    type: Literal["agent_message"] = "agent_message"
    text: str


class ToolCall(_Event):
    """One tool call by the agent, with its result or error."""

    type: Literal["tool_call"] = "tool_call"
    call_id: str = ""
    name: str
    arguments: JsonObject | str  # a str when the model sent JSON that did not parse
    result: Json = None
    error: str | None = None
    kind: str = "read"  # read | write | record | helpdesk
    guard_failed: bool = False
    latency_ms: float = 0.0


class TicketTagged(_Event):
    """The agent's classification (tag_ticket): SAGE's intent axis."""

    type: Literal["ticket_tagged"] = "ticket_tagged"
    intent: str | None
    slots: JsonObject = Field(default_factory=dict)


class Handover(_Event):
    """The agent handed the ticket to a human."""

    type: Literal["handover"] = "handover"
    reason: str = ""


class TicketClosed(_Event):
    """The agent closed the ticket."""

    type: Literal["ticket_closed"] = "ticket_closed"
    outcome: str
    summary: str = ""


class LlmUsage(_Event):
    """Tokens and cost of one model call."""

    type: Literal["llm_usage"] = "llm_usage"
    role: Literal["agent", "user", "judge"]
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0


class ErrorEvent(_Event):
    """Something failed: a provider error after retries, or a harness fault."""

    type: Literal["error"] = "error"
    where: str  # the role whose call failed (agent | customer | judge), or tool | harness | store
    message: str
    retryable: bool = False


class Ended(_Event):
    """The conversation ended, and why."""

    type: Literal["ended"] = "ended"
    reason: TerminationReason


Event = Annotated[
    CustomerMessage | AgentMessage | ToolCall | TicketTagged | Handover | TicketClosed | LlmUsage | ErrorEvent | Ended,
    Field(discriminator="type"),
]
_adapter: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: JsonObject) -> Event:
    """An event from its stored JSON form (upgrading older versions when shapes change)."""
    return _adapter.validate_python(data)


def event_to_dict(event: Event) -> JsonObject:
    return event.model_dump(mode="json")


class Recorder(Protocol):
    """Where the engine writes; `store` implements it, tests may keep events in memory."""

    def start_conversation(self, conversation_id: str) -> None:
        """A conversation (re)starts: forget any events an interrupted attempt left."""

    def append_many(self, conversation_id: str, events: list[Event]) -> None:
        """Append events in order (the engine flushes after every step of the conversation)."""

    def finish(
        self, conversation_id: str, reason: TerminationReason, error: str | None = None, events: list[Event] | None = None
    ) -> None:
        """Mark the conversation finished (or errored); `events` is the whole record, for totals."""
