"""Reading metric inputs from the store: conversations with their effective verdicts."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sage_desk.core.metrics.aggregate import ConversationResult, Marks

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def results_for_runs(store: Store, run_ids: Iterable[str]) -> list[ConversationResult]:
    """Every finished or errored conversation of the runs, with its marks after human overrides.

    When several judges scored a criterion, their scores are averaged (a vote); pass/fail follows
    the majority (store/summaries.py `vote`). The store keeps each conversation's marks in its
    summary, so this reads one row per conversation, not every verdict.
    """
    results: list[ConversationResult] = []
    for run_id in run_ids:
        for c, marks in store.conversation_marks(run_id):
            results.append(ConversationResult(
                id=c.id, agent=c.agent, domain=c.domain, case_id=c.case_id, repeat=c.repeat,
                bucket=c.bucket or "", conflict=c.conflict or "", errored=c.status == "errored",
                agent_turns=c.agent_turns or 0, agent_tokens=c.agent_tokens or 0,
                agent_cost_usd=float(c.agent_cost_usd or 0.0), marks=_marks(marks)))
    return results


def _marks(stored: str | None) -> Marks:
    """The summary's JSON marks (store/summaries.py), taken as they decode."""
    if not stored:
        return Marks({}, {})
    found = json.loads(stored)
    return Marks(found["passed"], found["score"])


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
