"""Fork replay (SupportAgentBench's repeated-decision sampling): the same conversation, re-played
from one turn many times, to see how often the agent takes each action there.

A stored conversation is cut just before the agent's answer in turn T: everything of the earlier
turns and the customer's message of turn T is kept, the world is brought to where it stood (the
stored tool calls are applied again to the case's private world, which is deterministic), and
the agent's message list is rebuilt from the events. The agent then plays its turn T, N times,
each on its own copy and with its own seed; nothing is written to the store.

An action is what the agent *did* in the turn, as the rules read it: its writes, a handover, a
close with its label, in order (reads are free and left out); `reply only` when it did none.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sage_desk.core.agents.base import ServiceAgent
from sage_desk.core.agents.protocol import AgentSettings
from sage_desk.core.cases.build import case_world
from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.tools import CLOSE, HANDOVER, ToolResult, call_tool
from sage_desk.core.engine.conversation import _agent_turn, _Conversation, system_prompt_of
from sage_desk.core.errors import RunError
from sage_desk.core.events import Event, TerminationReason
from sage_desk.core.jsonsafe import JsonObject

REPLY_ONLY = "reply only"


class _Discard:
    """A recorder that keeps nothing: a replay never touches the store."""

    def start_conversation(self, conversation_id: str) -> None:
        """Nothing to start."""

    def append_many(self, conversation_id: str, events: list[Event]) -> None:
        """Nothing kept."""

    def finish(
        self, conversation_id: str, reason: TerminationReason, error: str | None = None, events: list[Event] | None = None
    ) -> None:
        """Nothing to finish."""


def turns_of(events: Sequence[Event]) -> list[int]:
    """The turns in which the agent acted (said something or called a tool)."""
    return sorted({e.turn for e in events if e.type in ("agent_message", "tool_call")})


def action_of(events: Sequence[Event]) -> str:
    """The agent's acts among `events`: writes, handover, close with its label, in order; reads left out."""
    acts = []
    for e in events:
        if e.type != "tool_call" or (e.error and not e.guard_failed):
            continue  # not a call, or one refused for bad arguments: it did nothing
        if e.name == CLOSE and isinstance(e.arguments, dict):
            acts.append(f"close:{e.arguments.get('outcome')}")
        elif e.name == HANDOVER:
            acts.append("handover")
        elif e.kind not in ("read", "helpdesk"):  # reads are free; tag_ticket is classification, scored apart
            acts.append(e.name + (" (refused)" if e.guard_failed else ""))
    return " then ".join(acts) or REPLY_ONLY


def _messages(events: Sequence[Event], system: str) -> list[JsonObject]:
    """The agent's message list as it stood after `events` (each tool call its own assistant step)."""
    messages: list[JsonObject] = [{"role": "system", "content": system}]
    for e in events:
        if e.type == "customer_message":
            messages.append({"role": "user", "content": e.text})
        elif e.type == "agent_message" and e.text:
            messages.append({"role": "assistant", "content": e.text})
        elif e.type == "tool_call":
            args = e.arguments if isinstance(e.arguments, str) else json.dumps(e.arguments)
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": e.call_id, "type": "function", "function": {"name": e.name, "arguments": args}}],
                }
            )
            messages.append(
                {"role": "tool", "tool_call_id": e.call_id, "content": ToolResult(result=e.result, error=e.error).for_model()}
            )
    return messages


def fork(
    conversation_id: str,
    case: Case,
    bundle: DomainBundle,
    events: Sequence[Event],
    turn: int,
    seed: int,
    system: str | None = None,
) -> _Conversation:
    """The conversation as it stood when the agent was about to answer in `turn`; `system` is the
    agent's own system prompt (a prompt file), None for SAGE Desk's."""
    from sage_desk.core.agents.prompts import agent_system_prompt

    acted = turns_of(events)
    if turn not in acted:
        raise RunError(
            f"{conversation_id}: the agent did not act in turn {turn} (it acted in turns {', '.join(map(str, acted)) or 'none'})"
        )
    kept = [e for e in events if e.turn < turn or (e.turn == turn and e.type == "customer_message")]
    convo = _Conversation(conversation_id, case, bundle, _Discard(), seed)
    convo.world = case_world(bundle, case)
    for e in kept:
        if e.type == "tool_call" and e.kind != "helpdesk" and isinstance(e.arguments, dict):
            call_tool(bundle.domain, convo.world, e.name, e.arguments)  # brings the world to where it stood
    convo.events = [e.model_copy() for e in kept if e.type not in ("ended", "error")]
    convo.messages = _messages(kept, system if system is not None else agent_system_prompt(bundle))
    convo.turn = turn
    return convo


def wilson(k: int, n: int, z: float = 1.96) -> list[float]:
    """Wilson's 95 % interval of a proportion k/n (sound at 0 and n, unlike the normal one)."""
    if n == 0:
        return [0.0, 1.0]
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


@dataclass
class ReplayResult:
    """How often the agent took each action at the fork, with intervals, beside what it did originally."""

    conversation: str
    case_id: str
    agent: str
    from_turn: int
    times: int
    original: str
    samples: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def actions(self) -> list[JsonObject]:
        """One row per action taken, most frequent first: count, share and its Wilson interval."""
        counts = Counter(self.samples)
        n = len(self.samples)
        return [
            {"action": action, "count": k, "share": k / n, "interval": wilson(k, n), "original": action == self.original}
            for action, k in counts.most_common()
        ]

    def to_dict(self) -> JsonObject:
        return {
            "conversation": self.conversation,
            "case_id": self.case_id,
            "agent": self.agent,
            "from_turn": self.from_turn,
            "times": self.times,
            "original": self.original,
            "actions": self.actions(),
            "errors": self.errors,
        }


def agent_maker(model: str, api_base: str | None = None, settings: AgentSettings | None = None) -> Callable[[], ServiceAgent]:
    """A maker of fresh agents for the fork: a baseline by name, an HTTP or Python agent, or a model
    behind one shared client; `settings` are the run's prompt file, parameters and headers.

    An unknown baseline, a Python agent that does not import, a header variable that is not set or a
    provider with no API key fails here, once, before any sample is played.
    """
    from sage_desk.core.agents.base import is_offline_name, make_agent
    from sage_desk.core.agents.protocol import check_settings
    from sage_desk.core.llm.secrets import missing_keys, where_to_set

    if settings is not None:
        check_settings(settings, [model])
    if is_offline_name(model):
        make_agent(model, settings)
        return lambda: make_agent(model, settings)
    missing = missing_keys([model], api_base)
    if missing:
        raise RunError(f"no API key for agent {model}: {where_to_set(next(iter(missing.values())))}")
    from sage_desk.core.llm import LlmClient

    client = LlmClient(concurrency=1)
    return lambda: make_agent(model, settings, client=client, **({"api_base": api_base} if api_base else {}))


async def replay(
    conversation_id: str,
    case: Case,
    bundle: DomainBundle,
    events: Sequence[Event],
    turn: int,
    times: int,
    make: Callable[[], ServiceAgent],
    agent_name: str,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> ReplayResult:
    """Play the agent's turn `turn` again `times` times from the stored conversation; the store is not touched.

    `progress(done)` is called after each sample, played or failed (it may raise to stop the replay).
    """
    if times < 1:
        raise RunError("replay at least once (--times 1 or more)")
    system = system_prompt_of(make(), bundle)
    base = fork(conversation_id, case, bundle, events, turn, seed, system)
    original = action_of([e for e in events if e.turn == turn])
    result = ReplayResult(conversation_id, case.id, agent_name, turn, times, original)
    for i in range(times):
        convo = base if i == 0 else fork(conversation_id, case, bundle, events, turn, seed + i, system)  # a fresh world each time
        start = len(convo.events)
        try:
            await _agent_turn(convo, make())
        except Exception as exc:  # a failed sample is counted as such, the others go on
            result.errors.append(f"{type(exc).__name__}: {exc}")
        else:
            result.samples.append(action_of(convo.events[start:]))
        if progress is not None:
            progress(i + 1)
    return result
