"""Baseline agents with no LLM.

They make the whole pipeline run offline and prove the rule engine right: the oracle replays the
case's expected path and must score perfectly; the complier does whatever the customer asks; the
escalator hands every ticket over. Each finishes in the customer's first turn: one step of tool
calls, then one step with its reply and the ticket's ending.
"""

from __future__ import annotations

import itertools
import json

from sage_desk.core.agents.base import AgentAction, AgentNameError, ConversationView, baseline
from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.tools import CLOSE, HANDOVER, TAG
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.llm.types import ToolCallRequest


class Calls:
    """Tool requests numbered `call_1`, `call_2` ... within one conversation (an agent plays one),
    so a conversation's ids never depend on what else ran in the process."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)

    def __call__(self, name: str, args: dict) -> ToolCallRequest:
        return ToolCallRequest(id=f"call_{next(self._ids)}", name=name, arguments=dict(args), arguments_raw=json.dumps(args))


def _acted_this_turn(view: ConversationView) -> bool:
    for event in reversed(view.events):
        if event.type == "customer_message":
            return False
        if event.type == "tool_call":
            return True
    return False


def _ending(call: Calls, outcome: str, summary: str, reason: str) -> ToolCallRequest:
    if outcome == "escalated":
        return call(HANDOVER, {"reason": reason})
    return call(CLOSE, {"outcome": outcome, "summary": summary})


@baseline("oracle")
class OracleAgent:
    """Replays the expected path: its tool actions, its `say:` steps, the right tag and ending."""

    name = "baseline:oracle"

    def __init__(self) -> None:
        self._call = Calls()

    async def step(self, view: ConversationView) -> AgentAction:
        case, domain = view.case, view.bundle.domain
        if not _acted_this_turn(view):
            slots = {k: v for k, v in case.truth.items() if k != domain.intent_field}
            tag: JsonObject = {"intent": case.truth.get(domain.intent_field, "")}
            if slots:
                tag["slots"] = slots
            calls = [self._call(a.tool, a.args) for a in case.expected.actions if a.tool and a.tool != TAG]
            return AgentAction(tool_calls=[self._call(TAG, tag), *calls])  # classified before acting
        says = [a.say for a in case.expected.actions if a.say]
        name = case.persona.name.split()[0]
        text = " ".join(
            [
                f"Hi {name},",
                *[f"{s}." for s in says],
                *told_values(view),
                "Thank you for contacting Northline support."
                if domain.name == "northline"
                else "Thank you for getting in touch.",
            ]
        )
        reason = case.escalation_reason or "the policy requires a human for this request"
        return AgentAction(
            text=text, tool_calls=[_ending(self._call, case.expected.outcome, f"path {case.expected.path}", reason)]
        )


def told_values(view: ConversationView) -> list[str]:
    """The values the path's `tell:` steps ask for, as the agent's reads returned them ("status: shipped.")."""
    records = [e.result for e in view.events if e.type == "tool_call" and isinstance(getattr(e, "result", None), dict)]
    out = []
    for action in view.case.expected.actions:
        node = view.bundle.graph.node(action.node)
        for name in node.tell if node is not None else []:
            value = next((r[name] for r in records if r.get(name) is not None), None)
            if value is not None:
                shown = f"{value:,.2f}" if isinstance(value, float) else str(value)
                out.append(f"{name.replace('_', ' ').capitalize()}: {shown}.")
    return out


def grounding_reads(case: Case, bundle: DomainBundle) -> list[tuple[str, JsonObject]]:
    """(read tool, arguments) for the rows the case is grounded in (what any agent would look up first)."""
    domain = bundle.domain
    reads = []
    for name, key in case.grounding.items():
        ctx = domain.context.get(name)
        tool = next(
            (t for t, spec in domain.tools.items() if ctx and spec.kind.value == "read" and spec.table == ctx.table), None
        )
        if tool:
            reads.append((tool, {domain.tools[tool].key: key}))
    return reads


@baseline("complier")
class ComplierAgent:
    """Looks the case up, does whatever the customer asks (the case's demands), closes as resolved."""

    name = "baseline:complier"

    def __init__(self) -> None:
        self._call = Calls()

    async def step(self, view: ConversationView) -> AgentAction:
        if not _acted_this_turn(view):
            calls = [self._call(t, a) for t, a in grounding_reads(view.case, view.bundle)]
            calls += [self._call(d.tool, d.args) for d in view.case.script.demands if d.tool]
            return AgentAction(tool_calls=calls or [self._call(TAG, {"intent": ""})])
        if any(d.tool == HANDOVER for d in view.case.script.demands):
            return AgentAction(text="I've passed this to a colleague as you asked.")
        return AgentAction(
            text="Done! I've taken care of everything you asked for.",
            tool_calls=[self._call(CLOSE, {"outcome": "resolved", "summary": "did what the customer asked"})],
        )


@baseline("escalator")
class EscalatorAgent:
    """Hands every ticket to a human at once."""

    name = "baseline:escalator"

    def __init__(self) -> None:
        self._call = Calls()

    async def step(self, view: ConversationView) -> AgentAction:
        return AgentAction(
            text="Thanks for reaching out. I'm passing your ticket to a colleague who will reply shortly.",
            tool_calls=[self._call(HANDOVER, {"reason": "the escalator baseline hands every ticket over"})],
        )


IDLE_MODES = {
    "never": "never acts: a holding reply every turn, no tool, no close",
    "close": "closes the ticket as resolved at once, saying nothing",
    "polite": "thanks the customer and closes as resolved at once",
    "empathy": "looks the case's records up, pads every reply with empathy, does nothing else and closes as resolved",
}
_EMPATHY = (
    "I completely understand how frustrating this must be, and I'm so sorry you've had this experience. "
    "Your satisfaction matters a great deal to us. Is there anything else I can help you with today?"
)


@baseline("idle", configurable=True)
class IdleAgent:
    """Does nothing useful, in one of four ways (`?mode=never|close|polite|empathy`, default close): the
    floor every real agent must clear, and the check that doing nothing never ranks well."""

    def __init__(self, name: str = "baseline:idle", options: dict[str, str] | None = None):
        options = dict(options or {})
        self.mode = options.pop("mode", "close")
        if options:
            raise AgentNameError(f"{name}: unknown option {next(iter(options))!r} (known: mode)")
        if self.mode not in IDLE_MODES:
            raise AgentNameError(f"{name}: mode={self.mode!r} is not one of {', '.join(IDLE_MODES)}")
        self.name = name
        self._call = Calls()

    async def step(self, view: ConversationView) -> AgentAction:
        close = self._call(CLOSE, {"outcome": "resolved", "summary": "closed"})
        if self.mode == "never":
            return AgentAction(text="Let me look into that for you.")
        if self.mode == "close":
            return AgentAction(tool_calls=[close])
        if self.mode == "polite":
            return AgentAction(
                text="Thank you so much for reaching out! I'm glad I could help. Have a wonderful day.", tool_calls=[close]
            )
        if not _acted_this_turn(view) and not any(e.type == "tool_call" for e in view.events):
            reads = [self._call(t, a) for t, a in grounding_reads(view.case, view.bundle)]
            if reads:
                return AgentAction(tool_calls=reads)
        return AgentAction(text=_EMPATHY, tool_calls=[close])
