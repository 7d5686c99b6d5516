"""What the runner needs from a run store, as protocols: the engine never imports the store.

`store.Store` is a `RunStore`; `store.batch.StoreLink` is a `StoreLink`, which gives the runner a
batched `RunRecorder` (group commit, flushed during the run) and lets worker processes open
their own store. The CLI and the app pass both in (`session.build_runner`). Without a link the
runner records straight into the store (`DirectRecorder`): every write its own transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from sage_desk.core.events import Event, Recorder, TerminationReason
from sage_desk.core.jsonsafe import JsonObject


class PlayRow(Protocol):
    """One conversation row as the runner reads it."""

    @property
    def id(self) -> str: ...
    @property
    def case_id(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def repeat(self) -> int: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def status(self) -> str: ...
    @property
    def termination(self) -> str | None: ...
    @property
    def error(self) -> str | None: ...


class RunInfo(Protocol):
    """A stored run: its configuration (a `RunSpec.to_config`) and its conversations by status."""

    @property
    def config(self) -> JsonObject: ...
    @property
    def counts(self) -> dict[str, int]: ...


class RunStore(Protocol):
    """Where runs are created, listed to play and marked."""

    def create_run(
        self,
        domain: str,
        config: JsonObject,
        conversations: Sequence[JsonObject],
        run_id: str | None = None,
        sop_graph: str | None = None,
    ) -> str:
        """Record a run and its pending conversations (and the SOP graph text it plays); returns the run id."""
        ...

    def get_run(self, run_id: str) -> RunInfo: ...

    def set_run_status(self, run_id: str, status: str) -> None: ...

    def conversations_to_play(
        self, run_id: str, statuses: Sequence[str], sources: Sequence[str] = ()
    ) -> Iterator[Sequence[PlayRow]]:
        """Pages of the run's conversations in `statuses`, and of finished ones missing verdicts of `sources`."""
        ...

    def count_to_play(self, run_id: str, statuses: Sequence[str], sources: Sequence[str] = ()) -> int: ...

    def events(self, conversation_id: str) -> list[Event]: ...

    def close(self) -> None:
        """Close connections (they reopen on use): none may cross a fork to a worker process."""
        ...

    def update_run_config(self, run_id: str, key: str, update_value: Callable[[Any], Any]) -> None:
        """Set `config[key]` to `update_value(its current value)` in one transaction (figures several processes add to)."""
        ...

    def claim_conversations(
        self,
        run_id: str,
        owner_id: int,
        statuses: Sequence[str],
        sources: Sequence[str] = (),
        n: int = 8,
        after: tuple[Any, ...] | None = None,
    ) -> tuple[Sequence[PlayRow], int]:
        """Claim up to `n` free conversations to play for `owner_id` (after the list-order key `after`);
        with how many other live owners still hold."""
        ...

    def claim_run(self, run_id: str, join: bool = False) -> int:
        """Register this process as playing the run (refused while another live process does); its owner id."""
        ...

    def beat_owner(self, owner_id: int) -> bool:
        """Refresh the owner's heartbeat; False when another process took the run over."""
        ...

    def release_owner(self, owner_id: int) -> None:
        """This process stops playing the run."""
        ...


class VerdictRecorder(Recorder, Protocol):
    """A `Recorder` that also keeps verdicts (what a post-hook writes through; rules' `Verdict`s,
    which sit above the engine)."""

    def save_verdicts(self, conversation_id: str, source: str, verdicts: Iterable[Any]) -> None: ...


class RunRecorder(VerdictRecorder, Protocol):
    """What a run writes through while it plays."""

    owner_id: int | None  # the run owner whose conversations it writes (store/owners.py); None: any

    def hold_verdicts(self, conversation_id: str) -> None:
        """Keep a finished conversation's next verdicts until its next `finish` (judging it again)."""
        ...

    async def flush_every(self) -> None:
        """Write what is queued, periodically, until `stop_flushing` (the run's background task)."""
        ...

    def stop_flushing(self) -> None: ...

    async def room(self) -> None:
        """Return once another conversation may start: a run never gets ahead of its writes."""
        ...

    def close(self) -> None:
        """Write what is left."""
        ...


class StoreLink(Protocol):
    """The store's side of the runner: picklable, so a worker process opens its own store with it."""

    @property
    def shareable(self) -> bool:
        """Whether another process can open the same database (not an in-memory one)."""
        ...

    def open_store(self) -> RunStore:
        """A store of its own, for a worker process."""
        ...

    def recorder(self, store: Any) -> RunRecorder:
        """A run's batched recorder over `store`."""
        ...


class DirectRecorder:
    """A `RunRecorder` that writes straight into a store (which is a `VerdictRecorder`): nothing is queued."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.owner_id: int | None = None  # unused: each write is its own transaction, straight to the store

    def start_conversation(self, conversation_id: str) -> None:
        self.store.start_conversation(conversation_id)

    def append_many(self, conversation_id: str, events: list[Event]) -> None:
        self.store.append_many(conversation_id, events)

    def finish(
        self, conversation_id: str, reason: TerminationReason, error: str | None = None, events: list[Event] | None = None
    ) -> None:
        self.store.finish(conversation_id, reason, error, events=events)

    def save_verdicts(self, conversation_id: str, source: str, verdicts: Iterable[Any]) -> None:
        self.store.save_verdicts(conversation_id, source, verdicts)

    def hold_verdicts(self, conversation_id: str) -> None:
        """Nothing to hold: each write is already committed."""

    async def flush_every(self) -> None:
        """Nothing is ever queued."""

    def stop_flushing(self) -> None:
        """Nothing to stop."""

    async def room(self) -> None:
        """Always room: every write happened before the conversation ended."""

    def close(self) -> None:
        """Nothing left to write."""
