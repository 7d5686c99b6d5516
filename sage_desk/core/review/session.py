"""Review's state outside Qt: the store it reads, the run and conversation on show, the verdict the
reviewer works on, the list's filters, and the review queue with its progress and reveals. Every
change is an event (psygnal), as the SOP Editor's document is (core/sop/document.py).

The Review screen's widgets (gui/review) hold one `ReviewSession`: they reach the store through it
(an import contract in pyproject.toml keeps gui.review from importing core.store), change what is
chosen through it, and connect its events. It is tested without a window
(tests/core/review/test_review_session.py).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from psygnal import Signal

from sage_desk.core.errors import SageError

# The store's types and queue actions Review's widgets use, named here: the one way in for them.
from sage_desk.core.store import Store
from sage_desk.core.store.browse import BrowseFilter, ConversationTable, ListKey, empty_table
from sage_desk.core.store.queues import (
    FLAG,
    SKIP,
    UNFLAG,
    QueueItem,
    QueueProgress,
    QueueRecord,
    get_queue,
    list_queues,
    mark,
    next_item,
    progress,
    queue_conversations,
    queue_runs,
    reveals,
)
from sage_desk.core.store.records import ConversationRecord, OverrideRecord, StoredVerdict
from sage_desk.core.store.reviews import NewOverride

VerdictKey = tuple[str, str]
"""A verdict as the reviewer points at it: (criterion, source)."""
_CHUNK = 500  # conversation ids per query: under SQLite's bound-parameter limit


@dataclass(frozen=True)
class HumanValue:
    """What a reviewer keyed on a verdict: pass/fail, a score, or both."""

    passed: bool | None
    score: float | None = None

    def text(self) -> str:
        """`0.75 · pass`, `fail` ..."""
        return value_text(self.passed, self.score)


def value_text(passed: bool | None, score: float | None, unscored: bool = False) -> str:
    """A verdict value as a reviewer reads it."""
    if unscored:
        return "unscored"
    parts = [] if score is None else [f"{score:.2f}"]
    if passed is not None:
        parts.append("pass" if passed else "fail")
    return " · ".join(parts) or "—"


class NoStoreError(SageError):
    """Review was asked for something before a database was open."""


class ReviewSession:
    """What the Review screen shows and works on, with an event for each change."""

    store_changed = Signal(object)  # the Store now read (None: closed)
    run_chosen = Signal(object)  # run id (None: none chosen)
    conversation_chosen = Signal(object)  # conversation id (None: none on show)
    verdict_chosen = Signal(object)  # VerdictKey the reviewer works on (None: none)
    filters_changed = Signal(object)  # BrowseFilter
    queue_changed = Signal(object)  # QueueRecord shown (None: back to a run's conversations)
    progress_changed = Signal(object)  # QueueProgress of the shown queue
    pending_changed = Signal(object)  # verdict id whose keyed label changed (None: all of them)

    def __init__(self, store: Store | None = None) -> None:
        self._store = store
        self.run_id: str | None = None
        self.conversation_id: str | None = None
        self.verdict_key: VerdictKey | None = None
        self.filters = BrowseFilter()
        self.queue: QueueRecord | None = None
        self.progress: QueueProgress | None = None
        self.queue_ids: frozenset[str] = frozenset()
        self.pending: dict[int, HumanValue] = {}
        """Labels keyed on the conversation on show and not saved yet: verdict id -> value."""

    # --- the store --------------------------------------------------------------------------

    @property
    def store(self) -> Store | None:
        """The run database Review reads (None until one is open)."""
        return self._store

    def open(self, store: Store | None) -> None:
        """Read this store from now on (None: none); what was chosen in another store is dropped."""
        if store is self._store:
            return
        self._store = store
        self.leave_queue()
        self.run_id = self.conversation_id = None
        self.store_changed.emit(store)

    def need_store(self) -> Store:
        """The open store; NoStoreError when none is."""
        if self._store is None:
            raise NoStoreError("no run database is open")
        return self._store

    # --- what is chosen ---------------------------------------------------------------------

    def choose_run(self, run_id: str | None) -> None:
        """The run whose conversations the list shows."""
        if run_id != self.run_id:
            self.run_id = run_id
            self.run_chosen.emit(run_id)

    def choose_conversation(self, conversation_id: str | None) -> None:
        """The conversation on show."""
        if conversation_id != self.conversation_id:
            self.conversation_id = conversation_id
            self.conversation_chosen.emit(conversation_id)

    def choose_verdict(self, key: VerdictKey | None) -> None:
        """The verdict the reviewer works on; it stays chosen from one conversation to the next."""
        if key != self.verdict_key:
            self.verdict_key = key
            self.verdict_chosen.emit(key)

    def set_filters(self, filters: BrowseFilter) -> None:
        """The list's filters and sort."""
        if filters != self.filters:
            self.filters = filters
            self.filters_changed.emit(filters)

    # --- labels keyed, not saved yet --------------------------------------------------------

    def key_label(self, verdict_id: int, value: HumanValue | None) -> None:
        """Key a label on a verdict (not saved yet); None clears it."""
        if value is None:
            self.pending.pop(verdict_id, None)
        else:
            self.pending[verdict_id] = value
        self.pending_changed.emit(verdict_id)

    def drop_pending(self) -> None:
        """Forget every keyed label (another conversation is shown)."""
        self.pending = {}
        self.pending_changed.emit(None)

    # --- a review queue ---------------------------------------------------------------------

    def queues(self) -> list[QueueRecord]:
        """The store's review queues."""
        return list_queues(self.need_store())

    def holds(self, conversation_id: str | None) -> bool:
        """Whether a conversation is one of the shown queue's."""
        return conversation_id in self.queue_ids

    def enter_queue(self, name: str) -> ConversationTable:
        """Show a queue: its record, and its conversations in its order (nothing changes when reading fails)."""
        store = self.need_store()
        record, table = get_queue(store, name), queue_table(store, name)
        self.queue, self.progress, self.queue_ids = record, None, frozenset(table.ids)
        self.queue_changed.emit(record)
        return table

    def leave_queue(self) -> None:
        """Back to a run's conversations."""
        if self.queue is None:
            return
        self.queue, self.progress, self.queue_ids = None, None, frozenset()
        self.queue_changed.emit(None)

    def queue_table(self) -> ConversationTable:
        """The shown queue's conversations read again."""
        table = queue_table(self.need_store(), self._queue().name)
        self.queue_ids = frozenset(table.ids)
        return table

    def read_progress(self) -> QueueProgress:
        """The shown queue's progress, read again."""
        self.progress = progress(self.need_store(), self._queue().name)
        self.progress_changed.emit(self.progress)
        return self.progress

    def next_item(self, reviewer: str) -> QueueItem | None:
        """The reviewer's next item of the shown queue, claimed for them (None: nothing left for them)."""
        return next_item(self.need_store(), self._queue().name, reviewer)

    def mark(self, conversation_id: str, reviewer: str, action: str, note: str = "") -> None:
        """Skip, flag or unflag an item of the shown queue for the reviewer."""
        mark(self.need_store(), self._queue().name, conversation_id, reviewer, action, note)

    def flagged_by(self, conversation_id: str | None, reviewer: str) -> bool:
        """Whether the reviewer's flag is on the item (as last read)."""
        return (
            self.progress is not None
            and conversation_id is not None
            and reviewer in self.progress.flagged.get(conversation_id, [])
        )

    def blind_for(self, conversation_id: str, reviewer: str) -> bool:
        """Whether the judge and others' labels stay hidden on this item for the reviewer (a blind
        queue's item they have not labelled). When that cannot be read, it stays hidden."""
        if self.queue is None or not self.queue.blind or not self.holds(conversation_id):
            return False
        try:
            return not reveals(self.need_store(), self.queue.name, reviewer, conversation_id)
        except SageError:
            return True

    def visible_overrides(self, conversation_id: str, reviewer: str, overrides: list[OverrideRecord]) -> list[OverrideRecord]:
        """The labels the reviewer may see on this item: only their own while it is blind for them."""
        if not self.blind_for(conversation_id, reviewer):
            return overrides
        return [o for o in overrides if o.author == reviewer]

    def _queue(self) -> QueueRecord:
        if self.queue is None:
            raise SageError("no review queue is shown")
        return self.queue


def queue_table(store: Store, name: str) -> ConversationTable:
    """The queue's conversations as one list (from every run they come from), in the queue's order."""
    ids = queue_conversations(store, name)
    order = {cid: n for n, cid in enumerate(ids)}
    parts = [
        store.conversation_table(run, ids[start : start + _CHUNK])
        for run in queue_runs(store, name)
        for start in range(0, len(ids), _CHUNK)
    ]
    rows = sorted(((part, row) for part in parts for row in range(len(part))), key=lambda pr: order[pr[0].ids[pr[1]]])
    domains = {part.domain for part in parts if len(part)}
    runs = {part.run_id for part in parts if len(part)}
    table = ConversationTable(runs.pop() if len(runs) == 1 else "", domains.pop() if len(domains) == 1 else "")
    for column in (
        f.name for f in fields(ConversationTable) if not f.name.startswith("_") and f.name not in ("run_id", "domain")
    ):
        values = getattr(table, column)
        for part, row in rows:
            values.append(getattr(part, column)[row])
    return table


def list_cells(state: QueueProgress, reviewer: str) -> tuple[dict[str, tuple[str, str]], frozenset[str]]:
    """Each item's cell in the list's Human column (text, tooltip), and the items whose judge score is hidden."""
    need, blind = state.queue.reviews_per_item, state.queue.blind
    skipped = set(state.skipped.get(reviewer, []))
    cells: dict[str, tuple[str, str]] = {}
    hidden = set()
    for cid, who in state.reviews.items():
        mine = reviewer in who
        text, tip = [], []
        if mine:
            text.append("✓")
            tip.append("you labelled it")
        if blind and not mine:
            hidden.add(cid)
            tip.append("others' labels hidden until you label it (blind)")
        else:
            text.append(f"{len(who)}/{need}")
            tip.append(f"{len(who)} of {need} review(s)" + (f": {', '.join(w or '(no name)' for w in who)}" if who else ""))
        if cid in skipped:
            text.append("skip")
            tip.append("you skipped it")
        if cid in state.flagged:
            text.insert(0, "⚑")
            notes = state.flag_notes.get(cid, {})
            tip.append(
                "flagged by " + ", ".join(f"{who} ({notes[who]!r})" if notes.get(who) else who for who in state.flagged[cid])
            )
        tips = "; ".join(tip)
        cells[cid] = (" ".join(text), tips[:1].upper() + tips[1:])  # names and notes keep their case
    return cells, frozenset(hidden)


__all__ = [
    "FLAG",
    "SKIP",
    "UNFLAG",
    "BrowseFilter",
    "ConversationRecord",
    "ConversationTable",
    "HumanValue",
    "ListKey",
    "NewOverride",
    "NoStoreError",
    "OverrideRecord",
    "QueueItem",
    "QueueProgress",
    "QueueRecord",
    "ReviewSession",
    "Store",
    "StoredVerdict",
    "VerdictKey",
    "empty_table",
    "list_cells",
    "queue_table",
    "value_text",
]
