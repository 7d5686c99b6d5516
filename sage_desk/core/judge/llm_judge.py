"""The LLM judge: rubric-driven, structured output validated by pydantic, unscored on bad replies.

It scores what rules cannot: SAGE's five dialogue dimensions, resolution quality, policy
adherence and the graph's `say:` steps on the expected path. Scores are 0-10 (SAGE uses 3/6/9
anchors), stored as 0-1. A reply that does not parse, or misses a criterion, leaves that
criterion *unscored* with the raw reply kept: never a fail. Human-labelled examples (from
calibration) can be injected as few-shot guidance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.events import Event
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.judge.rubric import CRITERIA, PASS_THRESHOLD, Criterion, say_criterion
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.transcript import render_transcript

if TYPE_CHECKING:
    from sage_desk.core.llm import LlmClient

JUDGE_SYSTEM = """You are a meticulous quality reviewer of customer-support conversations for {title}.
You grade the AGENT (not the customer) against the support policy and the rubric below.
Score each criterion from 0 to 10: 3 = poor, 6 = acceptable, 9 = excellent. Be strict and specific.

=== SUPPORT POLICY ===
{policy}
"""

JUDGE_USER = """{examples}=== WHAT THE PROCEDURE EXPECTED ===
Expected outcome: {outcome}. Steps on the expected path: {steps}

=== CONVERSATION ===
{transcript}

=== RUBRIC ===
{rubric}

Answer with one JSON object only, no prose around it:
{{"scores": {{"<criterion>": {{"score": <0-10>, "rationale": "<one or two sentences>"}}, ...}}}}
Use exactly these criterion names: {names}
"""

EXAMPLES_HEADER = "=== HUMAN-VERIFIED EXAMPLES (follow how these were graded) ===\n"


class CriterionScore(BaseModel):
    """One criterion's grade in the judge's answer."""

    score: float = Field(ge=0, le=10)
    rationale: str = ""


class JudgeAnswer(BaseModel):
    """The judge's whole answer."""

    scores: dict[str, CriterionScore]


def criteria_for(case: Case) -> list[Criterion]:
    """The fixed criteria plus one per `say:` step on the case's expected path."""
    return [*CRITERIA, *(say_criterion(a.node, a.say) for a in case.expected.actions if a.say)]


def parse_answer(raw: str | None) -> tuple[JudgeAnswer | None, str | None]:
    """The validated answer, or None with the reason it could not be read."""
    text = (raw or "").strip()
    match = re.search(r"\{.*\}", text, re.S)
    if not match:
        return None, "no JSON object in the reply"
    try:
        return JudgeAnswer.model_validate(json.loads(match.group(0))), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON: {exc.msg}"
    except ValidationError as exc:
        return None, f"unexpected shape: {exc.errors()[0]['msg']}"


def answer_verdicts(
    source: str, criteria: list[Criterion], answer: JudgeAnswer | None, raw: str | None, problem: str | None
) -> list[Verdict]:
    """Verdicts from a parsed answer; criteria it does not grade are unscored with the raw reply."""
    verdicts = []
    for criterion in criteria:
        graded = answer.scores.get(criterion.name) if answer else None
        node = criterion.name.split(".", 2)[2] if criterion.name.startswith("judge.say.") else None
        if graded is None:
            why = problem or "the judge did not grade this criterion"
            verdicts.append(
                Verdict(source=source, criterion=criterion.name, unscored=True, raw=raw, rationale=f"unscored: {why}", node=node)
            )
            continue
        score = round(graded.score / 10, 3)
        verdicts.append(
            Verdict(
                source=source,
                criterion=criterion.name,
                score=score,
                passed=score >= PASS_THRESHOLD,
                rationale=graded.rationale,
                node=node,
            )
        )
    return verdicts


def format_examples(examples: Sequence[JsonObject]) -> str:
    """Few-shot calibration examples as prompt text."""
    if not examples:
        return ""
    parts = [EXAMPLES_HEADER]
    for i, ex in enumerate(examples, 1):
        label = ex.get("score")
        label_text = f"score {round(float(label) * 10)}/10" if label is not None else ("PASS" if ex.get("passed") else "FAIL")
        parts.append(f"Example {i} ({ex['criterion']}: {label_text}; reason: {ex.get('rationale', '')})\n{ex['transcript']}\n")
    return "\n".join(parts) + "\n"


class LlmJudge:
    """A judge played by any litellm model."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        client: LlmClient | None = None,
        examples: Sequence[JsonObject] = (),
        timeout: float = 90.0,
        max_retries: int = 4,
        **extra: Any,
    ):
        from sage_desk.core.llm import LlmClient

        self.model = model
        self.source = f"judge:{model}"
        self.client = client or LlmClient()
        self.examples = list(examples)
        self.options = {
            "api_base": api_base,
            "api_key": api_key,
            "timeout": timeout,
            "max_retries": max_retries,
            "temperature": 0.0,
            **extra,
        }

    def messages(self, case: Case, bundle: DomainBundle, events: Sequence[Event]) -> list[JsonObject]:
        criteria = criteria_for(case)
        steps = "; ".join(a.say or f"call {a.tool}" for a in case.expected.actions) or "none"
        user = JUDGE_USER.format(
            examples=format_examples(self.examples),
            outcome=case.expected.outcome,
            steps=steps,
            transcript=render_transcript(events),
            rubric="\n".join(f"- {c.name}: {c.rubric}" for c in criteria),
            names=", ".join(c.name for c in criteria),
        )
        system = JUDGE_SYSTEM.format(title=bundle.domain.title or bundle.name, policy=bundle.policy.strip())
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    async def judge(self, case: Case, bundle: DomainBundle, events: Sequence[Event]) -> list[Verdict]:
        """Grade one conversation; provider failures propagate as LlmError (the caller records them)."""
        reply = await self.client.complete(self.model, self.messages(case, bundle, events), **self.options)
        answer, problem = parse_answer(reply.content)
        verdicts = answer_verdicts(self.source, criteria_for(case), answer, reply.content, problem)
        for v in verdicts:
            v.details["cost_usd"] = reply.usage.cost_usd
            v.details["tokens"] = reply.usage.prompt_tokens + reply.usage.completion_tokens
        return verdicts
