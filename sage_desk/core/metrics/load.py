"""Reading metric inputs from the store: conversations with their effective verdicts."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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
    decoded: dict[str, Marks] = {}  # marks text -> its Marks, shared: read-only, and many conversations score alike
    with paused_gc():
        for run_id in run_ids:
            for (cid, agent, domain, case_id, repeat, bucket, conflict, status, turns, tokens, cost), marks \
                    in store.conversation_marks(run_id):
                results.append(ConversationResult(
                    id=cid, agent=agent, domain=domain, case_id=case_id, repeat=repeat, bucket=bucket or "",
                    conflict=conflict or "", errored=status == "errored", agent_turns=turns or 0,
                    agent_tokens=tokens or 0, agent_cost_usd=float(cost or 0.0), marks=_marks(marks, decoded)))
    return results


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection meanwhile (reference counting goes on): for building many objects at once.

    Each of the collector's full passes walks every object alive, and a run's results add a few
    hundred thousand: reading 50,000 conversations spent a sixth of its time in them. Nothing
    built here forms a cycle. When it was paused already (nested), it stays paused.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _marks(stored: str | None, decoded: dict[str, Marks]) -> Marks:
    """The summary's JSON marks (store/summaries.py), decoded once per distinct text.

    Conversations that ended alike have the same marks (four in five of the sample runs' share
    their text with another), so each text is decoded once and its read-only `Marks` shared.
    """
    if not stored:
        return _NO_MARKS
    marks = decoded.get(stored)
    if marks is None:
        found = json.loads(stored)
        marks = decoded[stored] = Marks(found["passed"], found["score"])
    return marks


_NO_MARKS = Marks({}, {})


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
