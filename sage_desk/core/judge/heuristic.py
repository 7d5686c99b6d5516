"""`baseline:heuristic`: a judge with no LLM, clearly a heuristic.

It scores the same criteria as the LLM judge from surface markers (apologies and thanks, the
customer's name, concrete facts such as order and tracking numbers, message length, tool errors,
word overlap with `say:` steps). It exists so the review and calibration screens have judge
scores offline; its rationales say how each score was reached, and calibration shows how far
humans disagree with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.engine.events import Event
from sage_desk.core.judge.rubric import PASS_THRESHOLD, say_criterion
from sage_desk.core.rules.verdict import Verdict

SOURCE = "baseline:heuristic"
_EMPATHY = ("sorry", "apolog", "understand", "frustrat", "thank", "appreciate", "i see", "happy to help")
_STOP = {"the", "a", "an", "and", "or", "to", "of", "that", "it", "is", "for", "be", "can", "its", "this", "with", "once", "so"}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in _STOP and len(w) > 2}


def _clip(x: float) -> float:
    return round(max(0.0, min(1.0, x)), 3)


class HeuristicJudge:
    """Scores dialogue criteria from text markers; deterministic, instant, offline."""

    source = SOURCE

    async def judge(self, case: Case, bundle: DomainBundle, events: Sequence[Event]) -> list[Verdict]:
        return self.judge_sync(case, bundle, events)

    def judge_sync(self, case: Case, bundle: DomainBundle, events: Sequence[Event]) -> list[Verdict]:
        agent = " ".join(e.text for e in events if e.type == "agent_message").strip()
        lower = agent.lower()
        calls = [e for e in events if e.type == "tool_call"]
        errors = sum(1 for c in calls if c.error)
        first = case.persona.name.split()[0].lower() if case.persona.name else ""
        facts = [str(v).lower() for v in [*case.grounding.values(), *case.facts.values()] if isinstance(v, str | int)]
        sats = [e.satisfaction for e in events if e.type == "customer_message" and e.satisfaction is not None]
        ending = next((e.type for e in reversed(events) if e.type in ("ticket_closed", "handover")), None)
        words = len(agent.split())
        scores = {
            "judge.linguistic_quality": (_clip(0.4 + 0.3 * (8 <= words <= 220) + 0.3 * (not re.search(r"[A-Z]{6,}", agent))),
                                         f"{words} words; shouting {'absent' if not re.search(r'[A-Z]{6,}', agent) else 'present'}"),
            "judge.empathy": (_clip(0.25 * sum(m in lower for m in _EMPATHY) + 0.25 * bool(first and first in lower)),
                              f"{sum(m in lower for m in _EMPATHY)} empathy markers; name {'used' if first and first in lower else 'not used'}"),
            "judge.content_utility": (_clip(0.3 + 0.35 * sum(f in lower for f in facts if f)),
                                      f"{sum(f in lower for f in facts if f)} concrete facts of the case mentioned"),
            "judge.user_satisfaction": (_clip(sats[-1] if sats else (0.7 if ending else 0.3)),
                                        "the simulated customer's last satisfaction" if sats else "no satisfaction reported; from how it ended"),
            "judge.instruction_compliance": (_clip(1.0 - 0.25 * errors), f"{errors} tool call(s) failed"),
            "judge.resolution_quality": (_clip(0.8 if ending else 0.2), f"ticket {'ended with ' + ending if ending else 'left open'}"),
        }
        verdicts = [Verdict(source=SOURCE, criterion=k, score=s, passed=s >= PASS_THRESHOLD, rationale=f"heuristic: {why}")
                    for k, (s, why) in scores.items()]
        say_scores = []
        for step in case.expected.actions:
            if step.say:
                want = _words(step.say)
                overlap = len(want & _words(agent)) / len(want) if want else 1.0
                say_scores.append(overlap)
                verdicts.append(Verdict(source=SOURCE, criterion=say_criterion(step.node, step.say).name, score=_clip(overlap),
                                        passed=overlap >= 0.4, node=step.node,
                                        rationale=f"heuristic: {overlap:.0%} of the step's words appear in the agent's replies"))
        policy = sum(say_scores) / len(say_scores) if say_scores else scores["judge.instruction_compliance"][0]
        verdicts.append(Verdict(source=SOURCE, criterion="judge.policy_adherence", score=_clip(policy), passed=policy >= PASS_THRESHOLD,
                                rationale="heuristic: coverage of the path's say steps" if say_scores else "heuristic: from tool errors"))
        return verdicts
