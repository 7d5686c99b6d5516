"""Score a run's stored conversations again with other judges, without playing anything again.

`sage-desk rejudge` comes here: each finished conversation of the run is read back (its case from
the run's suite or import, its stored events) and every judge's verdicts replace that judge's
earlier ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.judge.factory import Judge
from sage_desk.core.scoring.hooks import judge_conversation

if TYPE_CHECKING:
    from sage_desk.core.store import Store


async def rejudge(
    store: Store, run_id: str, judges: Sequence[Judge], bundle: DomainBundle, cases: dict[str, Case], concurrency: int = 8
) -> int:
    """Judge every finished conversation of a run again against its `cases` (as `session.run_cases`
    opens them); returns how many were judged."""
    limit = asyncio.Semaphore(concurrency)
    rows = [c for c in store.conversations(run_id=run_id, status="finished") if c.case_id in cases]

    async def one(row: Any) -> None:
        async with limit:
            events = store.events(row.id)
            for judge in judges:
                verdicts = await judge_conversation(judge, row.id, cases[row.case_id], bundle, events)
                store.save_verdicts(row.id, judge.source, verdicts)

    await asyncio.gather(*(one(r) for r in rows))
    return len(rows)
