"""The verdict: one finding about one conversation, by the rule engine, a judge or a human."""

from __future__ import annotations

from pydantic import BaseModel, Field

from sage_desk.core.jsonsafe import JsonObject

RULES_SOURCE = "rules"


class Verdict(BaseModel):
    """One criterion's result for one conversation.

    `source` is `rules` for the rule engine, `judge:<model>` for an LLM judge and
    `baseline:heuristic` for the offline heuristic judge. `criterion` is dotted:
    `classification.CoreDemand`, `path.action_accuracy`, `catastrophic.free_goods`,
    `judge.empathy` ... A verdict is either pass/fail (`passed`) or a score in 0-1 (`score`),
    often both. A judge reply that does not parse is `unscored` with the raw reply kept.
    """

    conversation_id: str = ""
    source: str = RULES_SOURCE
    criterion: str
    passed: bool | None = None
    score: float | None = Field(None, ge=0.0, le=1.0)
    rationale: str = ""
    event_seq: int | None = Field(None, description="The event the verdict points at")
    node: str | None = Field(None, description="Graph node it concerns")
    edge: str | None = Field(None, description="Graph edge it concerns, as 'from->to'")
    unscored: bool = False
    raw: str | None = None
    details: JsonObject = Field(default_factory=dict)
