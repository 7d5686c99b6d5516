"""Baseline agents with no LLM (DESIGN.md section 5).

They make the whole pipeline run offline and prove the rule engine right: the oracle replays the
case's expected path and must score perfectly; the complier does whatever the customer asks; the
escalator hands every ticket over. Each finishes in the customer's first turn: one step of tool
calls, then one step with its reply and the ticket's ending.
"""

from __future__ import annotations

import itertools
from typing import Any

from sage_desk.core.agents.base import AgentAction, ConversationView, ToolRequest, baseline
from sage_desk.core.domain.tools import CLOSE, HANDOVER, TAG

_ids = itertools.count(1)


def _call(name: str, args: dict) -> ToolRequest:
    import json

    return ToolRequest(id=f"call_{next(_ids)}", name=name, arguments=dict(args), arguments_raw=json.dumps(args))


def _acted_this_turn(view: ConversationView) -> bool:
    for event in reversed(view.events):
        if event.type == "customer_message":
            return False
        if event.type == "tool_call":
            return True
    return False


def _ending(outcome: str, summary: str, reason: str) -> ToolRequest:
    if outcome == "escalated":
        return _call(HANDOVER, {"reason": reason})
    return _call(CLOSE, {"outcome": outcome, "summary": summary})


@baseline("oracle")
class OracleAgent:
    """Replays the expected path: its tool actions, its `say:` steps, the right tag and ending."""

    name = "baseline:oracle"

    async def step(self, view: ConversationView) -> AgentAction:
        case, domain = view.case, view.bundle.domain
        if not _acted_this_turn(view):
            calls = [_call(a.tool, a.args) for a in case.expected.actions if a.tool]
            slots = {k: v for k, v in case.truth.items() if k != domain.intent_field}
            tag: dict[str, Any] = {"intent": case.truth.get(domain.intent_field, "")}
            if slots:
                tag["slots"] = slots
            return AgentAction(tool_calls=[*calls, _call(TAG, tag)])
        says = [a.say for a in case.expected.actions if a.say]
        name = case.persona.name.split()[0]
        text = " ".join([f"Hi {name},", *[f"{s}." for s in says], "Thank you for contacting Northline support." if domain.name == "northline" else "Thank you for getting in touch."])
        reason = case.escalation_reason or "the policy requires a human for this request"
        return AgentAction(text=text, tool_calls=[_ending(case.expected.outcome, f"path {case.expected.path}", reason)])


def _lookups(view: ConversationView) -> list[ToolRequest]:
    """Read calls for the rows the case is grounded in (what any agent would look up first)."""
    domain = view.bundle.domain
    calls = []
    for name, key in view.case.grounding.items():
        ctx = domain.context.get(name)
        tool = next((t for t, spec in domain.tools.items() if ctx and spec.kind.value == "read" and spec.table == ctx.table), None)
        if tool:
            calls.append(_call(tool, {domain.tools[tool].key: key}))
    return calls


@baseline("complier")
class ComplierAgent:
    """Looks the case up, does whatever the customer asks (the case's demands), closes as resolved."""

    name = "baseline:complier"

    async def step(self, view: ConversationView) -> AgentAction:
        if not _acted_this_turn(view):
            calls = _lookups(view) + [_call(d.tool, d.args) for d in view.case.script.demands if d.tool]
            return AgentAction(tool_calls=calls or [_call(TAG, {"intent": ""})])
        if any(d.tool == HANDOVER for d in view.case.script.demands):
            return AgentAction(text="I've passed this to a colleague as you asked.")
        return AgentAction(text="Done! I've taken care of everything you asked for.",
                           tool_calls=[_call(CLOSE, {"outcome": "resolved", "summary": "did what the customer asked"})])


@baseline("escalator")
class EscalatorAgent:
    """Hands every ticket to a human at once."""

    name = "baseline:escalator"

    async def step(self, view: ConversationView) -> AgentAction:
        return AgentAction(text="Thanks for reaching out. I'm passing your ticket to a colleague who will reply shortly.",
                           tool_calls=[_call(HANDOVER, {"reason": "the escalator baseline hands every ticket over"})])
