"""How a process takes the conversations it plays: claims in the store, a few at a time (issues 34, 38).

Every process that plays a run (a new run, a resume, a joiner, worker processes, the app's child)
takes its conversations this way, so no conversation is played by two of them (store/owners.py
holds the rules: owners, heartbeats, `FOR UPDATE SKIP LOCKED`, take-over of a dead owner's claims).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

from sage_desk.core.engine.ports import PlayRow, RunStore

CLAIM_POLL_S = 0.25  # how often a process looks again for conversations other live owners hold (its exit waits on it)
CLAIM_MIN, CLAIM_MAX = 8, 32  # conversations claimed at a time: one per lane, within these bounds
CLAIM_HOLD_S, CLAIM_FAST_MAX = 0.25, 256  # a claim holds about this long of the lanes' work (at most this many)


def claim_batch(concurrency: int) -> int:
    """How many conversations a process claims at once: about what its lanes take in one round, so
    claims are a small part of its writes (one transaction each) and, at the end of a run, a process
    holds at most a round it has not started while another has nothing left (store/owners.py)."""
    return max(CLAIM_MIN, min(CLAIM_MAX, concurrency))


async def claimed_rows(
    store: RunStore,
    run_id: str,
    owner_id: int,
    statuses: tuple[str, ...],
    sources: tuple[str, ...],
    batch: int,
    cancelled: Callable[[], bool],
) -> AsyncIterator[PlayRow]:
    """The conversations `owner_id` plays: claimed `batch` at a time (more when they play in
    milliseconds, so a claim holds about CLAIM_HOLD_S of the lanes' work) in the run's list order, each
    claim going on from the last (one walk of the list index per pass, as keyset pages); at the end
    of a pass, once more from the start (claims a dead owner handed back, rows another process had
    locked); when none is free but live owners still hold some, wait and look again (one may die)."""
    after: tuple[str, str, int, str] | None = None
    size, previous, claims = batch, 0.0, 0
    while not cancelled():
        if after is not None and claims > 1:  # the last claim is used up: it held what the lanes take in this long
            held_s = max(time.monotonic() - previous, 1e-3)  # (the first met idle lanes: it tells nothing)
            size = max(batch, min(CLAIM_FAST_MAX, int(size * CLAIM_HOLD_S / held_s)))
        previous, claims = time.monotonic(), claims + 1
        rows, elsewhere = store.claim_conversations(run_id, owner_id, statuses, sources, n=size, after=after)
        for row in rows:
            yield row
        if rows:
            last = rows[-1]
            after = (last.case_id, last.agent, last.repeat, last.id)
        elif after is not None:
            after = None
        elif not elsewhere:
            return
        else:
            await asyncio.sleep(CLAIM_POLL_S)
