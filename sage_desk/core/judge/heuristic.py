"""`baseline:heuristic`: a judge with no LLM, clearly a heuristic.

It scores the same criteria as the LLM judge from surface markers (apologies and thanks, the
customer's name, concrete facts such as order and tracking numbers, message length, tool errors,
word overlap with `say:` steps), and resolution quality and policy adherence from whether the
path's tool steps were called and the ticket ended as the SOP ends it. It never rewards doing
nothing: an agent that says nothing scores 0 everywhere, a ticket left open or closed at once
scores low on resolution. It exists so the review and calibration screens have judge
scores offline; its rationales say how each score was reached, and calibration shows how far
humans disagree with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.events import Event, ToolCall
from sage_desk.core.judge.factory import BASELINE_JUDGES
from sage_desk.core.judge.rubric import PASS_THRESHOLD, say_criterion
from sage_desk.core.rules.verdict import Verdict

SOURCE = "baseline:heuristic"
_EMPATHY = ("sorry", "apolog", "understand", "frustrat", "thank", "appreciate", "i see", "happy to help")
_STOP = {"the", "a", "an", "and", "or", "to", "of", "that", "it", "is", "for", "be", "can", "its", "this", "with", "once", "so"}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in _STOP and len(w) > 2}


def _clip(x: float) -> float:
    return round(max(0.0, min(1.0, x)), 3)


@BASELINE_JUDGES.register(SOURCE)
class HeuristicJudge:
    """Scores dialogue criteria from text markers; deterministic, instant, offline."""

    source = SOURCE

    async def judge(self, case: Case, bundle: DomainBundle, events: Sequence[Event]) -> list[Verdict]:
        return self.judge_sync(case, bundle, events)

    def judge_sync(self, case: Case, bundle: DomainBundle, events: Sequence[Event]) -> list[Verdict]:
        agent = " ".join(e.text for e in events if e.type == "agent_message").strip()
        if not agent:
            return self._silent(case)
        lower = agent.lower()
        calls = [e for e in events if isinstance(e, ToolCall)]  # the "tool_call" events
        errors = sum(1 for c in calls if c.error)
        first = case.persona.name.split()[0].lower() if case.persona.name else ""
        facts = [str(v).lower() for v in [*case.grounding.values(), *case.facts.values()] if isinstance(v, str | int)]
        sats = [e.satisfaction for e in events if e.type == "customer_message" and e.satisfaction is not None]
        ending = next((e.type for e in reversed(events) if e.type in ("ticket_closed", "handover")), None)
        words = len(agent.split())
        done, ending_ok = _work_done(case, calls, ending)
        scores = {
            "judge.linguistic_quality": (
                _clip(0.4 + 0.3 * (8 <= words <= 220) + 0.3 * (not re.search(r"[A-Z]{6,}", agent))),
                f"{words} words; shouting {'absent' if not re.search(r'[A-Z]{6,}', agent) else 'present'}",
            ),
            "judge.empathy": (
                _clip(0.25 * sum(m in lower for m in _EMPATHY) + 0.25 * bool(first and first in lower)),
                f"{sum(m in lower for m in _EMPATHY)} empathy markers; name {'used' if first and first in lower else 'not used'}",
            ),
            "judge.content_utility": (
                _clip(0.3 + 0.35 * sum(f in lower for f in facts if f)),
                f"{sum(f in lower for f in facts if f)} concrete facts of the case mentioned",
            ),
            "judge.user_satisfaction": (
                _clip(sats[-1] if sats else (0.6 if ending_ok else 0.3)),
                "the simulated customer's last satisfaction" if sats else "no satisfaction reported; from how it ended",
            ),
            "judge.instruction_compliance": (_clip(1.0 - 0.25 * errors), f"{errors} tool call(s) failed"),
            "judge.resolution_quality": _resolution(done, ending, ending_ok),
        }
        verdicts = [
            Verdict(source=SOURCE, criterion=k, score=s, passed=s >= PASS_THRESHOLD, rationale=f"heuristic: {why}")
            for k, (s, why) in scores.items()
        ]
        parts = [done, float(ending_ok)]
        for step in case.expected.actions:
            if step.say:
                want = _words(step.say)
                overlap = len(want & _words(agent)) / len(want) if want else 1.0
                parts.append(overlap)
                verdicts.append(
                    Verdict(
                        source=SOURCE,
                        criterion=say_criterion(step.node, step.say).name,
                        score=_clip(overlap),
                        passed=overlap >= 0.4,
                        node=step.node,
                        rationale=f"heuristic: {overlap:.0%} of the step's words appear in the agent's replies",
                    )
                )
        policy = sum(parts) / len(parts)
        verdicts.append(
            Verdict(
                source=SOURCE,
                criterion="judge.policy_adherence",
                score=_clip(policy),
                passed=policy >= PASS_THRESHOLD,
                rationale=f"heuristic: mean of the path's tool steps called ({done:.0%}), the ending "
                f"({'as the SOP says' if ending_ok else 'not the SOP' + chr(39) + 's'}) and the say steps' words",
            )
        )
        return verdicts

    def _silent(self, case: Case) -> list[Verdict]:
        """An agent that never wrote a word scores nothing: silence is not quality."""
        names = [
            *_CRITERIA,
            "judge.policy_adherence",
            *(say_criterion(s.node, s.say).name for s in case.expected.actions if s.say),
        ]
        return [
            Verdict(source=SOURCE, criterion=name, score=0.0, passed=False, rationale="heuristic: the agent said nothing")
            for name in names
        ]


_CRITERIA = (
    "judge.linguistic_quality",
    "judge.empathy",
    "judge.content_utility",
    "judge.user_satisfaction",
    "judge.instruction_compliance",
    "judge.resolution_quality",
)


def _work_done(case: Case, calls: Sequence[ToolCall], ending: str | None) -> tuple[float, bool]:
    """Share of the path's tool steps (by tool name) the agent called, and whether it ended as the SOP does."""
    wanted = [a.tool for a in case.expected.actions if a.tool]
    if case.expected.outcome == "escalated":
        wanted.append("handover_to_human")
    called = [c.name for c in calls if not c.error]
    done = sum(1 for tool in wanted if tool in called) / len(wanted) if wanted else 1.0
    ending_ok = (ending == "handover") == (case.expected.outcome == "escalated") and ending is not None
    return done, ending_ok


def _resolution(done: float, ending: str | None, ending_ok: bool) -> tuple[float, str]:
    if ending is None:
        return 0.1, "ticket left open"
    if not ending_ok:
        return 0.2, f"ended with {ending}, not as the SOP ends this case"
    return _clip(0.2 + 0.7 * done), f"ended as the SOP does after {done:.0%} of its tool steps"
