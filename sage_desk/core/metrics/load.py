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
            rows = store.conversation_marks(run_id)
            _decode([row.marks for row in rows], decoded)
            for row in rows:
                results.append(
                    ConversationResult(
                        id=row.id,
                        agent=row.agent,
                        domain=row.domain,
                        case_id=row.case_id,
                        repeat=row.repeat,
                        bucket=row.bucket or "",
                        conflict=row.conflict or "",
                        errored=row.status == "errored",
                        agent_turns=row.agent_turns or 0,
                        agent_tokens=row.agent_tokens or 0,
                        agent_cost_usd=float(row.agent_cost_usd or 0.0),
                        marks=decoded[row.marks] if row.marks else _NO_MARKS,
                    )
                )
    return results


_NO_MARKS = Marks({}, {})
_BATCH = 1000


def _decode(texts: list[str | None], decoded: dict[str, Marks]) -> None:
    """Add to `decoded` the `Marks` of each summary's JSON marks (store/summaries.py) not in it yet.

    Conversations that ended alike have the same marks (the sample runs' 10,131 judged
    conversations have 2,118 distinct ones), so each distinct text is decoded once. They are
    decoded a thousand to a `json.loads`: one document shares its keys' strings, and takes a
    quarter less time than a `json.loads` each.
    """
    new = [t for t in dict.fromkeys(texts) if t and t not in decoded]
    for start in range(0, len(new), _BATCH):
        batch = new[start : start + _BATCH]
        for text, found in zip(batch, json.loads(f"[{','.join(batch)}]"), strict=True):
            decoded[text] = Marks(found["passed"], found["score"])


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
