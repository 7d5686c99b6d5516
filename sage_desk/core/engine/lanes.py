"""The machinery under a run's lanes: one shared `take()` over the rows, fewer garbage collections
while they play, and the end of the recorder's periodic writes.

Split from engine/runner.py, whose `Runner._play_rows` runs `concurrency` lanes over these.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator

from sage_desk.core.engine.ports import PlayRow, RunRecorder
from sage_desk.core.errors import RunError

log = logging.getLogger(__name__)


GC_THRESHOLDS = (20_000, 50, 1000)
"""The cyclic collector's thresholds while a run plays (Python's default: 700, 10, 10)."""


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect cyclic garbage less often while conversations play. Every completion allocates a few
    hundred short-lived objects (events, messages, replies), so with the default thresholds the
    collector ran 850 times in a 1,000-conversation LLM run and took 0.1 ms of the harness's
    0.8 ms of CPU per completion (benchmarks/bench_harness.py at concurrency 256); a first
    generation of 20,000 objects costs a few MB at most. The thresholds come back afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def taker(rows: Iterable[PlayRow] | AsyncIterator[PlayRow]) -> Callable[[], Awaitable[PlayRow | None]]:
    """One `take()` for every lane: the next row, or None at the end; an async source (claims) is read
    by one lane at a time."""
    if isinstance(rows, AsyncIterator):
        source, lock = rows, asyncio.Lock()

        async def take_async() -> PlayRow | None:
            async with lock:
                return await anext(source, None)

        return take_async
    pending = iter(rows)

    async def take() -> PlayRow | None:
        return next(pending, None)

    return take


async def stop_writing(flusher: asyncio.Future, writer: RunRecorder, store: object) -> None:
    """Stop the periodic flushes and write what is left; a store that refused writes is one plain RunError."""
    writer.stop_flushing()
    failures: list[Exception] = []
    try:
        await flusher  # lets a write on its way finish; re-raises what stopped the writes, if anything did
    except Exception as exc:  # reported below, once
        failures.append(exc)
    try:
        writer.close()
    except Exception as exc:  # reported below, once
        failures.append(exc)
    if failures:
        first = failures[0]
        orig = getattr(first, "orig", None)  # a database error's own words, without the SQL and its parameters
        log.warning("the run's writes failed: %s", first)
        reason = (str(orig if orig is not None else first).strip().splitlines() or [type(first).__name__])[0][:200]
        raise RunError(
            f"the run could not be recorded in {store} ({type(first).__name__}: {reason}); "
            "what was recorded is kept: finish the run with --resume"
        ) from first
