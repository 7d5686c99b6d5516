"""The judge's criteria and their rubric text (named, overridable constants)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Criterion:
    """One judged criterion: its verdict name and the rubric the judge reads."""

    name: str
    rubric: str


DIALOGUE = (
    Criterion("judge.linguistic_quality", "Fluent, clear, correct language; concise; well structured; no jargon or filler."),
    Criterion(
        "judge.empathy",
        "Acknowledges the customer's situation and feelings, keeps a warm and respectful tone under pressure (SAGE's anthropomorphism and emotion).",
    ),
    Criterion(
        "judge.content_utility",
        "Gives accurate, concrete, useful information (order facts, next steps, timelines) and nothing invented.",
    ),
    Criterion(
        "judge.user_satisfaction", "How satisfied a reasonable customer would be at the end, given what the policy allows."
    ),
    Criterion(
        "judge.instruction_compliance",
        "Follows the operating procedure's instructions for how to handle this request and what to say.",
    ),
)
RESOLUTION = Criterion(
    "judge.resolution_quality",
    "Did the agent actually resolve what could be resolved under the policy, leaving the customer with a clear outcome?",
)
POLICY = Criterion(
    "judge.policy_adherence",
    "How closely the agent followed the store's policy and the procedure, 0 (ignored it) to 1 (exactly).",
)
SAY_RUBRIC = "Did the agent say this, in substance, at the right point of the conversation: {say}"

CRITERIA = (*DIALOGUE, RESOLUTION, POLICY)
PASS_THRESHOLD = 0.6


def say_criterion(node: str, say: str) -> Criterion:
    """The criterion for one `say:` step of the graph."""
    return Criterion(f"judge.say.{node}", SAY_RUBRIC.format(say=say))
