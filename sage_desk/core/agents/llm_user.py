"""The LLM customer simulator: persona, goal, hidden truth, conflict level and tactics.

The model answers with a small JSON object (message, emotion, satisfaction, stop), so satisfaction
drifts turn by turn and the customer can end the conversation. As in SAGE, the emotion follows the
satisfaction score (`emotion_for`): a reply with a score gets the emotion of its band, whatever
word the model chose; a reply without one keeps the model's word. A reply that is not JSON is taken
as the message itself, so a weaker model still plays.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sage_desk.core.agents.base import ConversationView, CustomerReply
from sage_desk.core.agents.prompts import customer_system_prompt
from sage_desk.core.cases.model import EMOTIONS
from sage_desk.core.jsonsafe import Json, JsonObject

EMOTION_BANDS = ((0.7, "calm"), (0.5, "slightly_frustrated"), (0.3, "frustrated"), (0.0, "angry"))
"""Lowest satisfaction of each emotion, from calm down: the simulated user's emotion follows its score."""


def emotion_for(satisfaction: float) -> str:
    """The emotion a satisfaction score (0-1) stands for: 0.7 and up calm, 0.5 slightly frustrated,
    0.3 frustrated, below angry."""
    return next(emotion for floor, emotion in EMOTION_BANDS if satisfaction >= floor)


def tactic_text(tactics: list[str]) -> str:
    """The simulator's instructions for the case's tactics (a tactic the taxonomy does not know: its id)."""
    from sage_desk.core.cases.taxonomy import UnknownTacticError, get_tactic

    parts = []
    for tid in tactics:
        try:
            parts.append(get_tactic(tid).instruction)
        except UnknownTacticError:
            parts.append(tid)
    return " ".join(parts)


def parse_customer(text: str | None) -> tuple[CustomerReply, bool]:
    """The customer's reply from the model's text (JSON when it can be read, else the text
    itself), and whether the customer wants to stop after it."""
    raw = (text or "").strip()
    match = re.search(r"\{.*\}", raw, re.S)
    data: Json = None
    if match:
        try:
            data = json.loads(match.group(0))
        except json.JSONDecodeError:
            data = None
    if not isinstance(data, dict) or not isinstance(data.get("message"), str):
        return CustomerReply(text=raw or None), False
    emotion = data.get("emotion") if data.get("emotion") in EMOTIONS else None
    try:
        satisfaction = max(0.0, min(1.0, float(data["satisfaction"])))
    except (KeyError, TypeError, ValueError):  # missing, null or not a number: unknown
        satisfaction = None
    if satisfaction is not None:
        emotion = emotion_for(satisfaction)
    stop = data.get("stop") is True
    message = data["message"].strip()
    return CustomerReply(text=message or None, emotion=emotion, satisfaction=satisfaction), stop


class LlmCustomer:
    """A simulated customer played by a model; one instance per conversation."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float | None = 0.7,
        timeout: float = 60.0,
        max_retries: int = 4,
        client: Any = None,
    ):
        from sage_desk.core.llm import LlmClient

        self.name = model
        self.model = model
        self.client = client or LlmClient()
        self.options: dict[str, Any] = {
            "api_base": api_base,
            "api_key": api_key,
            "temperature": temperature,
            "timeout": timeout,
            "max_retries": max_retries,
        }
        self._stopping = False

    def _messages(self, view: ConversationView) -> list[JsonObject]:
        """The conversation from the customer's side: its own messages are the assistant's."""
        system = customer_system_prompt(view.bundle, view.case, tactic_text(view.case.tactics))
        messages: list[JsonObject] = [{"role": "system", "content": system}]
        for event in view.events:
            if event.type == "customer_message":
                messages.append({"role": "assistant", "content": event.text})
            elif event.type == "agent_message" and event.text:
                messages.append({"role": "user", "content": event.text})
        return messages

    async def reply(self, view: ConversationView) -> CustomerReply:
        if self._stopping:
            return CustomerReply(text=None)
        reply = await self.client.complete(self.model, self._messages(view), seed=view.seed, **self.options)
        parsed, self._stopping = parse_customer(reply.content)
        parsed.usage = reply.usage
        return parsed
