"""Group commit for a run: the engine's writes from every conversation, applied together.

A conversation writes about seven times (start, one flush per step, finish, verdicts), each a
transaction of its own when it goes straight to the `Store`. At 64 conversations in flight that
bookkeeping cost more CPU than the model calls (benchmarks/bench_harness.py), and it runs on
the event loop, so every millisecond of it delays every conversation's next turn.

`BatchWriter` takes the same calls (it is a `Recorder`, and has `save_verdicts` for the post-hook)
but only queues them; `flush` applies everything queued in one transaction, grouped into a few
statements: restarts, then events, then finishes, then verdicts. That order is the order of a
conversation's own writes, so grouping never reorders them. A runner flushes every `interval`
seconds (`flush_every`), or as soon as `flush_at` conversations have finished, and closes the
writer at the end, which flushes the rest.

A run never gets ahead of its writes: before a conversation starts the runner waits for `room`,
which holds it while `max_pending` finished conversations are still queued or being written.
Without that, a run of conversations that never wait (offline baselines) finished them faster
than one writer thread committed them, each batch bigger and slower than the last: a
20,000-conversation run held most of itself in memory (900 MB) and wrote nothing for seconds.
Now what a run holds is bounded by `max_pending` and the concurrency, whatever its size, and
other readers of the database see conversations as they finish.

The transactions run on one writer thread, in the order the batches were taken: the event loop
only queues, and keeps answering the model's replies while SQLite commits.

A conversation's verdicts are held back until its finish is queued, and go in the same batch:
one transaction marks it finished *and* stores every verdict, so a kill while a judge is still
answering leaves it unfinished (a resume plays it again), never finished without its verdicts.

What a crash costs: the writes of at most one interval (or of `max_pending` conversations), all
of conversations not yet finished in the store, which a resume plays again anyway. A database locked by another process is waited
for (store/retry.py); a batch it still refuses after that stops the run, resumable. A batch the
database refuses for a reason of its own (a harness bug, say) is applied again conversation by
conversation, so only the conversation at fault is lost, recorded as errored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection

from sage_desk.core.events import Event, TerminationReason, event_to_dict
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import reviews
from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.retry import is_transient
from sage_desk.core.store.schema import ConversationRow, EventRow, VerdictRow, table_of

if TYPE_CHECKING:
    from sage_desk.core.store.store import Store

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_S = 0.05
DEFAULT_FLUSH_AT = 256
"""Finished conversations queued that start a flush before the interval is up."""
DEFAULT_MAX_PENDING = 512
"""Finished conversations queued or being written beyond which no conversation starts (`room`)."""


@dataclass
class WriteBatch:
    """Queued writes, in the shape `apply` executes them."""

    starts: dict[str, dict[str, Any]] = field(default_factory=dict)  # conversation -> column values
    events: list[dict[str, Any]] = field(default_factory=list)  # event rows
    finishes: dict[str, dict[str, Any]] = field(default_factory=dict)  # conversation -> column values
    verdicts: dict[str, dict[str, list[Verdict]]] = field(default_factory=dict)  # source -> conversation -> verdicts
    touched: set[str] = field(default_factory=set)  # conversations with a write in this batch
    owner_id: int | None = None  # the run owner writing it (owners.py): only its own conversations are written

    def __len__(self) -> int:
        return len(self.starts) + len(self.events) + len(self.finishes) + sum(len(v) for v in self.verdicts.values())


def apply(connection: Connection, batch: WriteBatch) -> None:
    """Execute `batch` on `connection` (inside the caller's transaction)."""
    if batch.owner_id is not None:
        batch = _only_ours(connection, batch)
    if batch.starts:
        ids = list(batch.starts)
        connection.execute(delete(table_of(EventRow)).where(table_of(EventRow).c.conversation_id.in_(ids)))
        connection.execute(delete(table_of(VerdictRow)).where(table_of(VerdictRow).c.conversation_id.in_(ids)))
        _update_each(connection, batch.starts)
    if batch.events:
        connection.execute(insert(table_of(EventRow)), batch.events)
    if batch.finishes:
        _update_each(connection, batch.finishes)
    for source, by_conversation in batch.verdicts.items():
        reviews.save_verdicts_many(connection, source, by_conversation)


def _only_ours(connection: Connection, batch: WriteBatch) -> WriteBatch:
    """The part of `batch` for conversations nobody else holds, claimed for its owner.

    A conversation another owner started since (the run was taken over after this process's
    heartbeat stopped) is left alone: its events, finish and verdicts are that owner's to write,
    so a stale process can never finish it with half a transcript. Rows are locked (PostgreSQL)
    so a claim cannot slip in between this check and the writes.
    """
    table = table_of(ConversationRow)
    ids = sorted(set(_split(batch)))
    theirs: set[str] = set()
    for start in range(0, len(ids), 500):  # SQLite's bound-parameter limit
        query = select(table.c.id, table.c.owner_id).where(table.c.id.in_(ids[start : start + 500])).with_for_update()
        theirs.update(cid for cid, owner in connection.execute(query) if owner not in (None, batch.owner_id))
    if theirs:
        log.warning(
            "%d conversation(s) are now played by another process; this one's writes for them are dropped: %s",
            len(theirs),
            ", ".join(sorted(theirs)[:5]),
        )
        batch = _without(batch, theirs)
    return batch


def _update_each(connection: Connection, values: dict[str, dict[str, Any]]) -> None:
    """One executemany UPDATE of conversations, each with its own values (all with the same columns)."""
    table = table_of(ConversationRow)
    columns = sorted(next(iter(values.values())))
    statement = update(table).where(table.c.id == bindparam("_id")).values({c: bindparam(f"_{c}") for c in columns})
    rows = [{"_id": cid, **{f"_{c}": v[c] for c in columns}} for cid, v in values.items()]
    result = connection.execute(statement, rows)
    # Only drivers that count an executemany's rows reliably are held to it (not every PostgreSQL one).
    if connection.dialect.supports_sane_multi_rowcount and result.rowcount not in (-1, len(rows)):
        raise StoreError(f"{len(rows) - result.rowcount} of {len(rows)} conversations are not in the store")


class BatchWriter:
    """A `Recorder` (plus `save_verdicts`) that queues writes for `flush` to apply in one transaction."""

    def __init__(
        self, store: Store, interval: float | None = None, max_pending: int | None = None, flush_at: int | None = None
    ) -> None:
        self.store = store
        self.interval = interval if interval is not None else DEFAULT_INTERVAL_S
        self.max_pending = max(1, max_pending if max_pending is not None else DEFAULT_MAX_PENDING)
        self.flush_at = max(1, min(flush_at if flush_at is not None else DEFAULT_FLUSH_AT, self.max_pending))
        self._writing = 0  # finished conversations in the batch on its way to the database
        self._due = asyncio.Event()  # a flush is wanted before the interval is up
        self._drained = asyncio.Event()  # a batch was written (or the flushes ended)
        self._batch = WriteBatch()
        self._lost: set[str] = set()  # conversations a refused batch could not save
        self._held: dict[str, dict[str, list[Verdict]]] = {}  # conversation in play -> source -> verdicts, until its finish
        self._stopping = asyncio.Event()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sage-desk-writer")  # one: batches stay in order
        self.owner_id: int | None = None  # set by the runner: the run owner this process registered (owners.py)

    # -- the Recorder protocol, queued ----------------------------------------------------------

    def start_conversation(self, conversation_id: str) -> None:
        """Queue a (re)start: the conversation's earlier events and verdicts go, it is marked running."""
        if conversation_id in self._batch.touched:
            self.flush()  # a restart within one batch would be grouped out of order
        self._batch.starts[conversation_id] = {**self.store.start_values(), "owner_id": self.owner_id}
        self._batch.touched.add(conversation_id)
        self._held[conversation_id] = {}

    def hold_verdicts(self, conversation_id: str) -> None:
        """Hold this (already finished) conversation's verdicts until its next `finish`, as for a played one."""
        self._held.setdefault(conversation_id, {})

    def append(self, conversation_id: str, event: Event) -> None:
        """Queue one event."""
        self.append_many(conversation_id, [event])

    def append_many(self, conversation_id: str, events: Sequence[Event]) -> None:
        """Queue events, as rows now (an event changed later does not change what is written)."""
        self._batch.events.extend(
            {"conversation_id": conversation_id, "seq": e.seq, "type": e.type, "data": event_to_dict(e)} for e in events
        )
        self._batch.touched.add(conversation_id)

    def finish(
        self, conversation_id: str, reason: TerminationReason, error: str | None = None, events: Sequence[Event] | None = None
    ) -> None:
        """Queue the end with its totals and the verdicts held for it, in one batch (without `events`
        it flushes first and reads them back)."""
        if events is None:
            self.flush()
            events = self.store.events(conversation_id)
        self._batch.finishes[conversation_id] = self.store.finish_values(reason, error, events)
        self._batch.touched.add(conversation_id)
        for source, verdicts in self._held.pop(conversation_id, {}).items():
            self._batch.verdicts.setdefault(source, {})[conversation_id] = verdicts
        if len(self._batch.finishes) >= self.flush_at:
            self._due.set()

    def save_verdicts(self, conversation_id: str, source: str, verdicts: Iterable[Verdict]) -> None:
        """Queue a replacement of this conversation's verdicts from `source` (held until its finish, if in play)."""
        held = self._held.get(conversation_id)
        if held is not None:
            held[source] = list(verdicts)
            return
        self._batch.verdicts.setdefault(source, {})[conversation_id] = list(verdicts)
        self._batch.touched.add(conversation_id)

    # -- applying ---------------------------------------------------------------------------------

    def flush(self) -> None:
        """Apply everything queued, after any batch already on its way; returns once it is committed."""
        batch = self._take()
        if batch is not None:
            self._writer.submit(self._write, batch).result()

    async def flush_every(self) -> None:
        """Flush every `interval` seconds, or at once when `flush_at` conversations finished, until
        `stop_flushing` (a runner's background task).

        A write on its way is always waited for, never cancelled: its failure must reach the runner.
        """
        loop = asyncio.get_running_loop()
        try:
            while not self._stopping.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._due.wait(), self.interval)
                self._due.clear()
                batch = self._take()
                if batch is not None:
                    self._writing = len(batch.finishes)
                    try:
                        await loop.run_in_executor(self._writer, self._write, batch)
                    finally:
                        self._writing = 0
                        self._drained.set()
        finally:
            self._stopping.set()  # flushes ended, for good or not: nobody waits for room any more
            self._drained.set()

    def stop_flushing(self) -> None:
        """End `flush_every` after its current write (call it on the loop that runs it)."""
        self._stopping.set()
        self._due.set()

    @property
    def pending(self) -> int:
        """Finished conversations not yet committed: queued, or in the batch being written."""
        return len(self._batch.finishes) + self._writing

    async def room(self) -> None:
        """Return once fewer than `max_pending` finished conversations wait to be written (at once
        when the flushes have ended: the runner then stops anyway, or writes the rest at `close`)."""
        while self.pending >= self.max_pending and not self._stopping.is_set():
            self._due.set()
            self._drained.clear()
            await self._drained.wait()

    def close(self) -> None:
        """Flush what is left and stop the writer thread."""
        try:
            self.flush()
        finally:
            self._writer.shutdown(wait=True)

    def _take(self) -> WriteBatch | None:
        batch, self._batch = self._batch, WriteBatch()
        batch.owner_id = self.owner_id
        return batch if len(batch) else None

    def _write(self, batch: WriteBatch) -> None:
        """On the writer thread: one transaction; a refused batch is retried one conversation at a time."""
        if self._lost:
            batch = _without(batch, self._lost)  # a lost conversation stays as recorded: errored
        try:
            self.store.write_batch(batch)
        except Exception as exc:  # the database refused the batch; find the write at fault
            if is_transient(exc):
                raise  # locked past the retry window: no write is at fault, and one by one would wait as long each
            log.warning(
                "a batch of %d writes was refused (%s: %s); applying them one conversation at a time",
                len(batch),
                type(exc).__name__,
                exc,
            )
            self._apply_one_by_one(batch)

    def _apply_one_by_one(self, batch: WriteBatch) -> None:
        for cid, part in _split(batch).items():
            try:
                self.store.write_batch(part)
            except Exception as exc:  # recorded on the conversation, never dropped silently
                if is_transient(exc):
                    raise
                self._lost.add(cid)
                message = f"the store refused this conversation's record ({type(exc).__name__}: {exc})"
                log.error("%s: %s", cid, message)
                self.store.start_conversation(cid)
                self.store.finish(cid, TerminationReason.ERROR, message)

    @property
    def lost(self) -> set[str]:
        """Conversations whose writes the store refused (recorded as errored instead)."""
        return set(self._lost)


def _without(batch: WriteBatch, lost: set[str]) -> WriteBatch:
    kept = WriteBatch(owner_id=batch.owner_id)
    for cid, part in _split(batch).items():
        if cid not in lost:
            kept.starts.update(part.starts)
            kept.events.extend(part.events)
            kept.finishes.update(part.finishes)
            for source, by_conversation in part.verdicts.items():
                kept.verdicts.setdefault(source, {}).update(by_conversation)
    return kept


def _split(batch: WriteBatch) -> dict[str, WriteBatch]:
    """The batch as one batch per conversation."""
    parts: dict[str, WriteBatch] = defaultdict(lambda: WriteBatch(owner_id=batch.owner_id))
    for cid, values in batch.starts.items():
        parts[cid].starts[cid] = values
    for row in batch.events:
        parts[row["conversation_id"]].events.append(row)
    for cid, values in batch.finishes.items():
        parts[cid].finishes[cid] = values
    for source, by_conversation in batch.verdicts.items():
        for cid, verdicts in by_conversation.items():
            parts[cid].verdicts.setdefault(source, {})[cid] = verdicts
    return parts


@dataclass(frozen=True)
class StoreLink:
    """The engine's `StoreLink` (engine/ports.py) over a `Store`: each run's recorder is a
    `BatchWriter`, and a worker process opens its own `Store` from the URL (picklable)."""

    url: str | None = field(default=None, repr=False)  # None: in memory, no other process can open it
    interval: float = DEFAULT_INTERVAL_S
    max_pending: int = DEFAULT_MAX_PENDING
    flush_at: int = DEFAULT_FLUSH_AT

    @classmethod
    def of(cls, store: Store, **settings: Any) -> StoreLink:
        """The link to `store`'s database (its URL keeps its password: workers need it, and it stays in memory)."""
        url = store.url
        in_memory = url.drivername.startswith("sqlite") and url.database in (None, "", ":memory:")
        return cls(None if in_memory else url.render_as_string(hide_password=False), **settings)

    @property
    def shareable(self) -> bool:
        """Whether another process can open the database."""
        return self.url is not None

    def open_store(self) -> Any:
        """A `Store` of this process's own (a worker's)."""
        from sage_desk.core.store.store import Store  # store.py imports this module

        if self.url is None:
            raise StoreError("an in-memory database cannot be opened by another process")
        return Store(self.url)

    def recorder(self, store: Store) -> BatchWriter:
        """A run's batched recorder over `store`."""
        return BatchWriter(store, self.interval, self.max_pending, self.flush_at)
