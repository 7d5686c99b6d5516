"""Reading metric inputs from the store: conversations with their effective verdicts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sage_desk.core.metrics.aggregate import ConversationResult, Mark

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def results_for_runs(store: Store, run_ids: Iterable[str]) -> list[ConversationResult]:
    """Every conversation of the runs, with verdicts after human overrides.

    When several judges scored a criterion, their scores are averaged (a vote); pass/fail follows
    the majority. Rule verdicts have one source so they pass through unchanged.
    """
    results = []
    for run_id in run_ids:
        verdicts: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
        for v in store.effective_marks(run_id):
            verdicts[v.conversation_id][v.criterion].append(v)
        for c in store.conversations(run_id=run_id):
            if c.status.value not in ("finished", "errored"):
                continue
            marks = {k: _vote(vs) for k, vs in verdicts.get(c.id, {}).items()}
            results.append(ConversationResult(
                id=c.id, agent=c.agent, domain=c.domain, case_id=c.case_id, repeat=c.repeat,
                bucket=c.bucket or "", conflict=c.conflict or "", errored=c.status.value == "errored",
                agent_turns=getattr(c, "agent_turns", 0) or 0,
                agent_tokens=getattr(c, "agent_tokens", c.prompt_tokens + c.completion_tokens) or 0,
                agent_cost_usd=getattr(c, "agent_cost_usd", c.cost_usd) or 0.0, marks=marks))
    return results


def _vote(verdicts: list[Any]) -> Mark:
    scored = [v for v in verdicts if not v.unscored]
    if not scored:
        return Mark()
    scores = [v.score for v in scored if v.score is not None]
    passes = [v.passed for v in scored if v.passed is not None]
    passed = None if not passes else sum(passes) * 2 > len(passes) or (sum(passes) * 2 == len(passes) and passes[0])
    return Mark(passed=passed, score=sum(scores) / len(scores) if scores else None)


def unjudged_for_runs(store: Store, run_ids: Iterable[str]) -> dict[str, list[str]]:
    """Per run, its finished conversations still missing the verdicts of its rules or of one of its judges.

    Their marks are incomplete, so a report says how many there are rather than averaging over
    the rest; `sage-desk run --resume RUN_ID` judges them.
    """
    from sage_desk.core.rules.verdict import RULES_SOURCE
    from sage_desk.core.scoring.hooks import judge_sources

    out = {}
    for run_id in run_ids:
        sources = (RULES_SOURCE, *judge_sources(store.get_run(run_id).config.get("judges") or []))
        out[run_id] = [c.id for c in store.unjudged_conversations(run_id, sources)]
    return out
