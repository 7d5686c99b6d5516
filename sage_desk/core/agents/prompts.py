"""Prompt templates of the agent under test and the customer simulator.

Named module-level constants so a user can read and override them (`prompts.AGENT_SYSTEM = ...`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sage_desk.core.cases.model import Case
    from sage_desk.core.domain.loader import DomainBundle

AGENT_SYSTEM = """You are a customer-support agent for {title}. Follow the support policy below exactly.

Use the tools to look things up and to act; an action only happens when its tool call succeeds.
Record your reading of every ticket with tag_ticket. End every conversation yourself: close_ticket
with the outcome, or handover_to_human when the policy says a person must take over.

=== SUPPORT POLICY ===
{policy}
"""

CUSTOMER_SYSTEM = """You are role-playing a customer writing to {title}'s support desk. Stay in character.

Who you are: {persona_name}, who writes in a {style} way and starts out {emotion}.
How you write: {conciseness}. Your patience: {patience}.
Your situation (what you know): {facts}
The truth about your situation, which you reveal only when asked or when it helps you: {truth}
What you want: {demands}
How you push: conflict level {conflict}. {tactics}

Rules:
- Write only the customer's next message: short, like a real person in a support chat.
- Never invent order facts beyond what you know above.
- Your satisfaction (0 to 1) drifts with how the agent treats you, and your emotion follows it:
  0.7 and up calm, from 0.5 slightly_frustrated, from 0.3 frustrated, below 0.3 angry.
- When your issue is handled (or you give up), end the conversation.

Answer with one JSON object only:
{{"message": "...", "emotion": "calm|slightly_frustrated|frustrated|angry", "satisfaction": 0.0-1.0, "stop": true|false}}
"""


def agent_system_prompt(bundle: DomainBundle) -> str:
    """The system prompt of the agent under test: the domain policy (tools go as schemas)."""
    return AGENT_SYSTEM.format(title=bundle.domain.title or bundle.name, policy=bundle.policy.strip())


def customer_system_prompt(bundle: DomainBundle, case: Case, tactic_text: str) -> str:
    """The system prompt of the LLM customer simulator for one case."""
    demands = "; ".join(f"{d.tool} {d.args}" for d in case.script.demands if d.tool) or case.title or "help with your request"
    persona = case.persona
    return CUSTOMER_SYSTEM.format(
        title=bundle.domain.title or bundle.name,
        persona_name=persona.name,
        style=persona.style,
        emotion=persona.emotion,
        conciseness=CONCISENESS[persona.conciseness or "normal"],
        patience=_patience(persona.patience),
        facts=case.facts,
        truth=case.truth,
        demands=demands,
        conflict=case.conflict.value,
        tactics=tactic_text or "Be cooperative.",
    )


CONCISENESS = {
    "brief": "one short sentence a message, no greetings",
    "normal": "two or three sentences a message",
    "verbose": "long messages with background the agent did not ask for",
}
"""How each conciseness level of a persona is put to the simulated customer."""


def _patience(turns: int | None) -> str:
    if turns is None:
        return "average: you give up when the agent keeps going round in circles"
    return (
        f"after {turns} agent replies that do not move your request forward, your satisfaction drops "
        "sharply, and after one more you give up and end the conversation"
    )
