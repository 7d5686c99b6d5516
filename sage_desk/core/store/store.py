"""`Store`: the run database behind the engine, the GUI and the CLI.

One `Store` may be shared by threads: every method opens its own short session. Writes begin
`IMMEDIATE` on SQLite and reads begin deferred (see `engine.py`), so the GUI reads while a run
writes. The store implements the engine's `Recorder`; verdicts, overrides and calibration
examples live in `reviews.py` and are exposed here as methods.
"""

from __future__ import annotations

import re
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, insert, or_, select, tuple_, update
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DatabaseError, IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from sage_desk.core.engine.status import UNFINISHED
from sage_desk.core.events import Event, LlmUsage, TerminationReason, event_to_dict, parse_event
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.llm.redact import redact
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import batch as batch_module
from sage_desk.core.store import browse, imports, reviews, snapshots, summaries
from sage_desk.core.store.batch import WriteBatch
from sage_desk.core.store.engine import database_url, make_engine, read_engine, share_guard
from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.migrate import upgrade
from sage_desk.core.store.ownership import Ownership
from sage_desk.core.store.records import (
    ConversationRecord,
    ConversationStatus,
    JudgeExample,
    MarkedConversation,
    OverrideRecord,
    RunRecord,
    RunStatus,
    StoredVerdict,
)
from sage_desk.core.store.retry import retry_transient
from sage_desk.core.store.schema import ConversationRow, EventRow, RunRow, VerdictRow, table_of, utcnow
from sage_desk.core.store.sqlite_guard import ShareGuard

CONVERSATION_FILTERS = frozenset(
    {"agent", "bucket", "conflict", "status", "case_id", "domain", "repeat", "termination", "source_id"}
)
_CONVERSATION_KEYS = frozenset({"id", "case_id", "agent", "repeat", "bucket", "conflict", "tactics", "seed"})
JUDGE_FAILED = "judge"  # the criterion of the one unscored verdict scoring/hooks.py stores when a judge's call failed
PLAY_PAGE = 500  # conversations a run reads at a time (conversations_to_play)
CREATE_CHUNK = 2000  # conversation rows a new run inserts per statement
_SECRET_QUERY = re.compile(
    r"([?&;](?:[\w.-]*[_-])?(?:api[_-]?keys?|key|secret|password|passwd|token|access_token|auth|sig|signature)=)[^&#;]*",
    re.IGNORECASE,
)
_SECRET_KEY = re.compile(r"(^|_)(api_?keys?|secret|password|passwd|token|access_token|authorization)$", re.IGNORECASE)


def new_run_id(now: datetime | None = None) -> str:
    """A short, sortable, readable run id: `r-20261120-ab12cd`."""
    return f"r-{(now or utcnow()):%Y%m%d}-{secrets.token_hex(3)}"


def scrub_config(value: Json) -> Json:
    """A copy of a run configuration with API keys dropped, and URL passwords, key-like query
    parameters (`?api_key=...`) and anything shaped like a key masked."""
    if isinstance(value, dict):
        # Keys too: a per-endpoint table is keyed by the endpoint's URL, which may carry ?api_key=.
        return {
            (scrub_config(k) if isinstance(k, str) else k): scrub_config(v)
            for k, v in value.items()
            if not (isinstance(k, str) and _SECRET_KEY.search(k))
        }
    if isinstance(value, list | tuple):
        return [scrub_config(v) for v in value]
    if isinstance(value, str):
        if "://" in value:
            value = re.sub(r"(://[^:/@]+:)[^@/]+@", r"\1***@", value)
            value = _SECRET_QUERY.sub(r"\1***", value)
        return redact(value)
    return value


class Store(Ownership):
    """The run database: runs, conversations, events, verdicts, overrides, judge examples."""

    def __init__(self, url: str | URL | None = None) -> None:
        self._url = database_url(url)
        self._engine = make_engine(self._url)
        try:
            upgrade(self._engine, self._url.render_as_string(hide_password=True))
        except SQLAlchemyError as exc:  # not a database, unreadable, unreachable: one line, no traceback
            self._engine.dispose()
            where = self._url.render_as_string(hide_password=True)
            raise StoreError(f"cannot open the database {where}: {_first_line(exc)}") from None
        self._write_sessions = sessionmaker(self._engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(read_engine(self._engine), expire_on_commit=False)
        self._guard = self._share_guard()

    def _share_guard(self) -> ShareGuard | None:
        """On a SQLite file in WAL mode, the lock that keeps other processes from deleting its log (sqlite_guard.py)."""
        guard = share_guard(self._engine)
        if guard is None:
            return None
        with self._engine.connect() as connection:
            if str(connection.exec_driver_sql("PRAGMA journal_mode").scalar()).lower() != "wal":
                return None  # a rollback journal (read-only media): a held SHARED range would block every writer
        return guard if guard.enable() else None

    @property
    def url(self) -> URL:
        """The database URL; its `str()` masks any password."""
        return self._url

    def __repr__(self) -> str:
        return f"Store({self._url.render_as_string(hide_password=True)!r})"

    def __str__(self) -> str:
        """Where the runs live, in plain words for messages: "the SQLite file /path" or "the database URL"."""
        if self._url.get_backend_name() == "sqlite" and self._url.database not in (None, "", ":memory:"):
            from sage_desk.core.store.engine import is_read_only, sqlite_path

            return f"the {'read-only ' if is_read_only(self._url) else ''}SQLite file {sqlite_path(self._url)}"
        return f"the database {self._url.render_as_string(hide_password=True)}"

    def _no_run(self, run_id: str) -> StoreError:
        """ "no run X in WHERE", with the run ids nearest to X (a typo), or what there is."""
        import difflib

        with self._reading() as session:
            ids = list(session.scalars(select(RunRow.id).order_by(RunRow.created_at.desc())))
        near = difflib.get_close_matches(run_id, ids, n=3, cutoff=0.5)
        known = f"; nearest: {', '.join(near)}" if near else f"; newest: {', '.join(ids[:3])}" if ids else "; it has no runs"
        known += f" ({len(ids)} runs in all)" if len(ids) > 3 else ""
        return StoreError(f"no run {run_id!r} in {self}{known}; `sage-desk runs` lists them")

    def close(self) -> None:
        """Release every pooled connection, then the log's guard (sqlite_guard.py)."""
        self._engine.dispose()
        if self._guard is not None:
            self._guard.close()  # a store used again after close() (before forking workers) keeps the WAL check

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def _writing(self) -> Iterator[Session]:
        with self._write_sessions.begin() as session:
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        try:
            with self._read_sessions() as session:
                yield session
        except DatabaseError as exc:  # a corrupted or vanished file: one line for the user, not a traceback
            where = self._url.render_as_string(hide_password=True)
            raise StoreError(f"cannot read the database {where}: {_first_line(exc)}") from None

    # -- runs ---------------------------------------------------------------------------------

    def create_run(
        self,
        domain: str,
        config: JsonObject,
        conversations: Sequence[dict[str, Any]],
        run_id: str | None = None,
        sop_graph: str | None = None,
    ) -> str:
        """Record a new run and its pending conversations (and the SOP graph text it plays); returns the run id."""
        run_id = run_id or new_run_id()
        rows = [self._conversation_values(run_id, domain, c) for c in conversations]
        repeated = sorted(cid for cid, n in Counter(r["id"] for r in rows).items() if n > 1)
        if repeated:
            raise StoreError(f"conversation ids must be unique; repeated: {repeated[:5]}")

        def write() -> None:
            with self._writing() as session:
                session.add(RunRow(id=run_id, domain=domain, config=scrub_config(config), status=RunStatus.RUNNING.value))
                session.flush()
                for start in range(0, len(rows), CREATE_CHUNK):  # in chunks: the driver's copy of a big run's rows stays small
                    session.execute(insert(ConversationRow), rows[start : start + CREATE_CHUNK])
                if sop_graph is not None:
                    snapshots.keep(session, run_id, domain, sop_graph)

        try:
            retry_transient(write, "new run")
        except IntegrityError as exc:
            raise StoreError(f"run {run_id!r} or one of its conversation ids is already in {self}") from exc
        return run_id

    @staticmethod
    def _conversation_values(run_id: str, domain: str, conv: dict[str, Any]) -> dict[str, Any]:
        unknown = set(conv) - _CONVERSATION_KEYS
        if unknown:
            raise StoreError(f"unknown conversation field(s) {sorted(unknown)}; known: {sorted(_CONVERSATION_KEYS)}")
        missing = {"case_id", "agent"} - set(conv)
        if missing:
            raise StoreError(f"conversation needs {sorted(missing)}")
        values = {"repeat": 0, "tactics": [], "bucket": None, "conflict": None, "seed": None, **conv}
        values.setdefault("id", f"c-{secrets.token_hex(5)}")
        values["tactics"] = [str(t) for t in values["tactics"] or []]
        for key in ("bucket", "conflict"):
            values[key] = None if values[key] is None else str(values[key])
        return {**values, "run_id": run_id, "domain": domain, "status": ConversationStatus.PENDING.value}

    def sop_snapshot(self, run_id: str) -> tuple[str, str] | None:
        """(hash, text) of the SOP graph the run was played with; None for runs made before it was kept, and imports."""
        with self._reading() as session:
            return snapshots.read(session, run_id)

    def get_run(self, run_id: str) -> RunRecord:
        """One run; StoreError when it does not exist."""
        with self._reading() as session:
            row = session.get(RunRow, run_id)
            if row is not None:
                return self._run_record(row, self._counts(session, [run_id]).get(run_id, {}))
        raise self._no_run(run_id)

    def list_runs(self) -> list[RunRecord]:
        """Every run, newest first."""
        with self._reading() as session:
            rows = session.scalars(select(RunRow).order_by(RunRow.created_at.desc(), RunRow.id.desc())).all()
            counts = self._counts(session, [r.id for r in rows])
            return [self._run_record(r, counts.get(r.id, {})) for r in rows]

    def latest_run_id(self) -> str | None:
        """The newest run's id, or None in an empty database."""
        with self._reading() as session:
            return session.scalar(select(RunRow.id).order_by(RunRow.created_at.desc(), RunRow.id.desc()).limit(1))

    def set_run_status(self, run_id: str, status: RunStatus | str) -> None:
        """Mark a run running, finished, cancelled, interrupted or failed (retried while the database is locked)."""
        status = RunStatus(status)

        def write() -> int:
            with self._writing() as session:
                result = session.execute(update(RunRow).where(RunRow.id == run_id).values(status=status.value))
                return int(result.rowcount)  # type: ignore[attr-defined]

        if retry_transient(write, "run status") == 0:
            raise self._no_run(run_id)

    def update_run_config(self, run_id: str, key: str, update_value: Callable[[Json], Json]) -> None:
        """Set `config[key]` of a run to `update_value(its current value or None)` in one transaction, so two
        processes adding their figures (the endpoints' requests and latencies, balance.py) both count."""

        def write() -> None:
            with self._writing() as session:
                row = session.scalars(select(RunRow).where(RunRow.id == run_id).with_for_update()).one_or_none()
                if row is None:
                    raise self._no_run(run_id)
                row.config = {**row.config, key: scrub_config(update_value(row.config.get(key)))}  # no key in a URL

        retry_transient(write, "run config")

    @staticmethod
    def _counts(session: Session, run_ids: list[str]) -> dict[str, dict[str, int]]:
        if not run_ids:
            return {}
        query = (
            select(ConversationRow.run_id, ConversationRow.status, func.count())
            .where(ConversationRow.run_id.in_(run_ids))
            .group_by(ConversationRow.run_id, ConversationRow.status)
        )
        counts: dict[str, dict[str, int]] = {}
        for run_id, status, n in session.execute(query):
            counts.setdefault(run_id, {})[status] = n
        return counts

    @staticmethod
    def _run_record(row: RunRow, counts: dict[str, int]) -> RunRecord:
        status = RunStatus(row.status)
        if status == RunStatus.FINISHED and counts and set(counts) == {ConversationStatus.ERRORED.value}:
            status = RunStatus.FAILED  # it ran to the end, but every conversation errored: nothing was measured
        return RunRecord(
            id=row.id,
            created_at=row.created_at,
            status=status,
            domain=row.domain,
            config=row.config,
            counts=counts,
        )

    # -- conversations ------------------------------------------------------------------------

    def conversations(self, run_id: str | None = None, **filters: Any) -> list[ConversationRecord]:
        """Conversations, optionally of one run, filtered by column (a list value means any of)."""
        unknown = set(filters) - CONVERSATION_FILTERS
        if unknown:
            raise StoreError(f"cannot filter conversations by {sorted(unknown)}; filters: {sorted(CONVERSATION_FILTERS)}")
        query = select(ConversationRow)
        if run_id is not None:
            query = query.where(ConversationRow.run_id == run_id)
        for name, value in filters.items():
            column = getattr(ConversationRow, name)
            if isinstance(value, list | tuple | set | frozenset):
                query = query.where(column.in_([str(v) if name != "repeat" else v for v in value]))
            else:
                query = query.where(column == (value if name == "repeat" else str(value)))
        query = query.order_by(ConversationRow.case_id, ConversationRow.agent, ConversationRow.repeat, ConversationRow.id)
        with self._reading() as session:
            return [_conversation_record(r) for r in session.scalars(query)]

    def conversation(self, conversation_id: str) -> ConversationRecord:
        """One conversation; StoreError when it does not exist."""
        with self._reading() as session:
            row = session.get(ConversationRow, conversation_id)
            if row is None:
                raise StoreError(f"no conversation {conversation_id!r} in {self}")
            return _conversation_record(row)

    def unfinished_conversations(self, run_id: str) -> list[ConversationRecord]:
        """Pending, running (cut off) and cancelled conversations (a resume also retries errored ones)."""
        return self.conversations(run_id, status=[s.value for s in UNFINISHED])

    def unjudged_conversations(self, run_id: str, sources: Sequence[str]) -> list[ConversationRecord]:
        """Finished conversations of a run missing the verdicts of any of `sources` (rules, judge:<model> ...).

        A run records a conversation's finish with all its verdicts, so these come from runs
        recorded before it did, from judges added to the run's configuration since, or from a
        judge whose calls failed (its only verdict is the `JUDGE_FAILED` marker): a resume
        judges them again.
        """
        wanted = sorted(set(sources))
        if not wanted:
            return []
        query = select(ConversationRow).where(ConversationRow.run_id == run_id, _unjudged(wanted)).order_by(*_LIST_ORDER)
        with self._reading() as session:
            return [_conversation_record(r) for r in session.scalars(query)]

    def conversations_to_play(
        self, run_id: str, statuses: Sequence[str], sources: Sequence[str] = (), page: int = PLAY_PAGE
    ) -> Iterator[list[ConversationRecord]]:
        """A run's conversations in `statuses`, and its finished ones missing verdicts of `sources`, a
        page at a time in the Review list's order: a run of any size is read in flat memory.

        Pages are keyset pages on the list's index (0008), so each is one short walk of it; a
        conversation played between two pages is behind the next one and changes nothing.
        """
        where = _to_play(run_id, statuses, sources)
        if where is None:
            return
        after: tuple[Any, ...] | None = None
        while True:
            query = select(ConversationRow).where(where)
            if after is not None:
                query = query.where(tuple_(*_LIST_ORDER) > tuple_(*after))
            with self._reading() as session:
                rows = [_conversation_record(r) for r in session.scalars(query.order_by(*_LIST_ORDER).limit(page))]
            if rows:
                yield rows
            if len(rows) < page:
                return
            last = rows[-1]
            after = (last.case_id, last.agent, last.repeat, last.id)

    def count_to_play(self, run_id: str, statuses: Sequence[str], sources: Sequence[str] = ()) -> int:
        """How many conversations `conversations_to_play` gives, in one query."""
        where = _to_play(run_id, statuses, sources)
        if where is None:
            return 0
        with self._reading() as session:
            return int(session.scalar(select(func.count()).select_from(ConversationRow).where(where)) or 0)

    # -- the Recorder protocol ----------------------------------------------------------------

    def start_conversation(self, conversation_id: str) -> None:
        """Mark a conversation running and forget what an interrupted attempt left."""

        def write() -> None:
            with self._engine.begin() as session:  # Core on a connection: once per conversation of a run
                session.execute(delete(table_of(EventRow)).where(table_of(EventRow).c.conversation_id == conversation_id))
                session.execute(delete(table_of(VerdictRow)).where(table_of(VerdictRow).c.conversation_id == conversation_id))
                summaries.refresh(session, [conversation_id])  # its verdicts are gone: so is its summary
                self._update_conversation(session, conversation_id, self.start_values())

        retry_transient(write, "conversation start")

    @staticmethod
    def start_values() -> dict[str, Any]:
        """A (re)started conversation's column values."""
        return {
            "status": ConversationStatus.RUNNING.value, "started_at": utcnow(), "finished_at": None, "termination": None,
            "error": None, "turns": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0,
            "agent_turns": 0, "agent_tokens": 0, "agent_cost_usd": 0.0,
        }  # fmt: skip

    def append(self, conversation_id: str, event: Event) -> None:
        """Store one event under the `seq` the engine gave it."""
        self.append_many(conversation_id, [event])

    def append_many(self, conversation_id: str, events: Sequence[Event]) -> None:
        """Store several events in one transaction (the engine flushes once per step, not per event)."""
        if not events:
            return
        rows = [{"conversation_id": conversation_id, "seq": e.seq, "type": e.type, "data": event_to_dict(e)} for e in events]

        def write() -> None:
            with self._engine.begin() as connection:  # Core, not the ORM: this is the run's hot path
                connection.execute(insert(table_of(EventRow)), rows)

        try:
            retry_transient(write, "event")
        except IntegrityError as exc:
            seqs = ", ".join(str(e.seq) for e in events)
            raise StoreError(
                f"cannot append event seq {seqs} to {conversation_id!r}: a seq is taken or the conversation does not exist"
            ) from exc

    def finish(
        self, conversation_id: str, reason: TerminationReason, error: str | None = None, events: Sequence[Event] | None = None
    ) -> None:
        """Mark a conversation ended and total its turns, tokens and cost from its events.

        The engine passes the events it already holds; otherwise they are read back.
        """

        def write() -> None:
            with self._engine.begin() as session:
                found = events
                if found is None:
                    query = select(EventRow.data).where(EventRow.conversation_id == conversation_id)
                    found = [parse_event(d) for d in session.scalars(query)]
                self._update_conversation(session, conversation_id, self.finish_values(reason, error, found))

        retry_transient(write, "conversation finish")

    @staticmethod
    def finish_values(reason: TerminationReason, error: str | None, events: Iterable[Event]) -> dict[str, Any]:
        """An ended conversation's column values: status, termination and totals from its events."""
        reason = TerminationReason(reason)
        status = {
            TerminationReason.ERROR: ConversationStatus.ERRORED,
            TerminationReason.CANCELLED: ConversationStatus.CANCELLED,
        }.get(reason, ConversationStatus.FINISHED)
        return {"status": status.value, "termination": reason.value, "error": error, "finished_at": utcnow(), **_totals(events)}

    def write_batch(self, batch: WriteBatch) -> None:
        """Apply a run's queued writes in one transaction (see batch.py), retried while the database is locked."""

        def write() -> None:
            with self._engine.begin() as connection:
                batch_module.apply(connection, batch)

        retry_transient(write, f"batch of {len(batch)} writes")

    def events(self, conversation_id: str, after_seq: int | None = None) -> list[Event]:
        """A conversation's events in `seq` order (only those after `after_seq`, for a live view)."""
        query = select(EventRow.data).where(EventRow.conversation_id == conversation_id)
        if after_seq is not None:
            query = query.where(EventRow.seq > after_seq)
        with self._reading() as session:
            return [parse_event(d) for d in session.scalars(query.order_by(EventRow.seq))]

    def _update_conversation(self, session: Session | Connection, conversation_id: str, values: dict[str, Any]) -> None:
        table = table_of(ConversationRow)
        result = session.execute(update(table).where(table.c.id == conversation_id).values(**values))
        if result.rowcount == 0:  # type: ignore[attr-defined]
            raise StoreError(f"no conversation {conversation_id!r} in {self}")

    # -- verdicts, overrides, calibration examples (reviews.py) -------------------------------

    def events_many(self, conversation_ids: Sequence[str]) -> dict[str, list[Event]]:
        """The events of several conversations in one query (for re-verdicting stored runs)."""
        out: dict[str, list[Event]] = {cid: [] for cid in conversation_ids}
        query = (
            select(EventRow.conversation_id, EventRow.data)
            .where(EventRow.conversation_id.in_(list(conversation_ids)))
            .order_by(EventRow.conversation_id, EventRow.seq)
        )
        with self._reading() as session:
            for cid, data in session.execute(query):
                out[cid].append(parse_event(data))
        return out

    # -- imported conversations (store/imports.py) ------------------------------------------

    def import_run(self, domain: str, config: JsonObject, items: Iterable[imports.ImportItem]) -> str:
        """Record an imported run with its finished conversations, events and rule verdicts, all at once."""
        run_id = new_run_id()

        def write() -> None:
            with self._engine.begin() as connection:
                imports.write_import(
                    connection, run_id, domain, scrub_config(config), RunStatus.FINISHED.value, items, self.finish_values
                )

        retry_transient(write, "import")
        return run_id

    def known_content_hashes(self, hashes: Sequence[str], domains: Sequence[str] | None = None) -> dict[str, tuple[str, str]]:
        """Content hash -> (conversation id, run id) for conversations already imported (onto one of `domains`, if given)."""
        with self._reading() as session:
            return imports.known_hashes(session.connection(), hashes, domains)

    def imported_cases(self, run_id: str) -> dict[str, JsonObject]:
        """Conversation id -> the case its import built, for a run's imported conversations."""
        with self._reading() as session:
            return imports.imported_cases(session.connection(), run_id)

    def set_case_data(self, conversation_id: str, data: JsonObject, bucket: str | None, rules_state: str | None = None) -> None:
        """Replace an imported conversation's case (a reviewer set a slot), its bucket and its rules' state."""

        def write() -> None:
            with self._engine.begin() as connection:
                imports.set_case_data(connection, conversation_id, data, bucket, rules_state)

        retry_transient(write, "case")

    def save_verdicts_many(self, source: str, verdicts: dict[str, list[Verdict]]) -> None:
        """`save_verdicts` for several conversations in one transaction."""

        def write() -> None:
            with self._engine.begin() as connection:
                reviews.save_verdicts_many(connection, source, verdicts)

        retry_transient(write, "verdicts")

    def save_verdicts(self, conversation_id: str, source: str, verdicts: Iterable[Verdict]) -> None:
        """Replace this conversation's verdicts from `source` (rules, judge:<model> ...)."""
        found = list(verdicts)

        def write() -> None:
            with self._engine.begin() as connection:
                reviews.save_verdicts(connection, conversation_id, source, found)

        retry_transient(write, "verdicts")

    def verdicts(
        self, conversation_id: str | None = None, run_id: str | None = None, source: str | None = None
    ) -> list[StoredVerdict]:
        """Verdicts as their sources gave them, filtered by conversation, run and source."""
        with self._reading() as session:
            return reviews.verdicts(session, conversation_id, run_id, source)

    def verdicts_many(self, conversation_ids: Sequence[str], criteria: Sequence[str] | None = None) -> list[StoredVerdict]:
        """Verdicts as given of several conversations (and only these criteria), a few queries however many."""
        ids, found = sorted(set(conversation_ids)), []
        with self._reading() as session:
            for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
                query = select(VerdictRow).where(VerdictRow.conversation_id.in_(ids[start : start + 500]))
                if criteria is not None:
                    query = query.where(VerdictRow.criterion.in_(sorted(set(criteria))))
                rows = session.scalars(query.order_by(VerdictRow.conversation_id, VerdictRow.id))
                found += [StoredVerdict.model_validate(r, from_attributes=True) for r in rows]
        return found

    def effective_verdicts(
        self, conversation_id: str | None = None, run_id: str | None = None, source: str | None = None
    ) -> list[StoredVerdict]:
        """Verdicts with the latest human override applied; the judge's value kept in `original_*`."""
        with self._reading() as session:
            return reviews.effective_verdicts(session, conversation_id, run_id, source)

    def conversation_marks(self, run_id: str) -> list[MarkedConversation]:
        """A run's finished and errored conversations with their effective marks (JSON), as metrics read them."""
        with self._reading() as session:
            return summaries.conversation_marks(session, run_id)

    def effective_marks(self, run_id: str) -> list[reviews.VerdictMark]:
        """A run's verdicts as metrics read them (pass, score, unscored), human overrides applied."""
        with self._reading() as session:
            return reviews.effective_marks(session, run_id)

    def add_override(
        self,
        conversation_id: str,
        criterion: str,
        source: str,
        human_passed: bool | None = None,
        human_score: float | None = None,
        reason: str = "",
        author: str = "",
        verdict_id: int | None = None,
        human_value: str | None = None,
    ) -> int:
        """Append a human override (never updates or deletes one); returns its id."""
        override = reviews.NewOverride(
            conversation_id, criterion, source, human_passed, human_score, human_value, reason, author, verdict_id
        )
        with self._writing() as session:
            return reviews.add_override(session, override)

    def add_overrides(self, overrides: Sequence[reviews.NewOverride]) -> list[int]:
        """Append several overrides in one transaction: all of them, or none when one is refused."""
        with self._writing() as session:
            return reviews.add_overrides(session, overrides)

    def overrides(self, run_id: str | None = None, conversation_id: str | None = None) -> list[OverrideRecord]:
        """Every override, oldest first, of a run and/or a conversation."""
        with self._reading() as session:
            return reviews.overrides(session, run_id, conversation_id)

    def conversation_table(
        self,
        run_id: str,
        conversation_ids: Sequence[str] | None = None,
        after: browse.ListKey | None = None,
        limit: int | None = None,
    ) -> browse.ConversationTable:
        """The Review list of a run (or of some of its conversations, or the page after `after`): rows
        with verdict summaries, one query, in the list's order."""
        with self._reading() as session:
            return browse.conversation_table(session, run_id, conversation_ids, after, limit)

    def search_transcripts(self, run_id: str, text: str) -> set[str]:
        """Conversations of a run whose customer or agent messages contain `text`."""
        with self._reading() as session:
            return browse.search_transcripts(session, run_id, text)

    def add_judge_examples(self, examples: Iterable[JudgeExample | JsonObject]) -> list[int]:
        """Store labelled calibration examples; returns their ids."""
        with self._writing() as session:
            return reviews.add_judge_examples(session, [JudgeExample.model_validate(e) for e in examples])

    def judge_examples(self, domain: str, criterion: str | None = None, split: str | None = None) -> list[JudgeExample]:
        """Calibration examples of a domain (and criterion, and split), oldest first."""
        with self._reading() as session:
            return reviews.judge_examples(session, domain, criterion, split)


_LIST_ORDER = (ConversationRow.case_id, ConversationRow.agent, ConversationRow.repeat, ConversationRow.id)


def _unjudged(wanted: Sequence[str]) -> ColumnElement[bool]:
    """Finished, and missing the verdicts of one of `wanted` (a failed judge's marker does not count)."""
    verdicts = table_of(VerdictRow)
    failed = and_(verdicts.c.criterion == JUDGE_FAILED, verdicts.c.unscored.is_(True))
    # One index probe per source (does it have a verdict?) rather than counting a conversation's
    # verdicts of every source: a third of the time on a 50,000-conversation run.
    lacks = [
        ~select(verdicts.c.id)
        .where(verdicts.c.conversation_id == ConversationRow.id, verdicts.c.source == source, ~failed)
        .exists()
        for source in wanted
    ]
    return and_(ConversationRow.status == ConversationStatus.FINISHED.value, or_(*lacks))


def _to_play(run_id: str, statuses: Sequence[str], sources: Sequence[str]) -> ColumnElement[bool] | None:
    """A run's conversations in `statuses` or unjudged by `sources`; None when that is nothing."""
    wanted = sorted(set(sources))
    conditions: list[ColumnElement[bool]] = [ConversationRow.status.in_([str(s) for s in statuses])] if statuses else []
    if wanted:
        conditions.append(_unjudged(wanted))
    return and_(ConversationRow.run_id == run_id, or_(*conditions)) if conditions else None


def _first_line(exc: SQLAlchemyError) -> str:
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip()
    return (text.splitlines() or [type(exc).__name__])[0]


def _conversation_record(row: ConversationRow) -> ConversationRecord:
    return ConversationRecord.model_validate(row, from_attributes=True)


def _totals(events: Iterable[Event]) -> dict[str, Any]:
    # Turns are customer turns (the engine's `turn` counter); tokens and cost add up every role
    # (agent, simulated user, judge), which is what the run cost its owner.
    # Agent-only figures feed the cost tier and turns-per-conversation metrics.
    turns = prompt = completion = agent_turns = agent_tokens = 0
    cost = agent_cost = 0.0
    for event in events:
        turns = max(turns, event.turn)
        if event.type == "agent_message":
            agent_turns += 1
        if isinstance(event, LlmUsage):
            prompt += event.prompt_tokens
            completion += event.completion_tokens
            cost += event.cost_usd
            if event.role == "agent":
                agent_tokens += event.prompt_tokens + event.completion_tokens
                agent_cost += event.cost_usd
    return {
        "turns": turns,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost_usd": cost,
        "agent_turns": agent_turns,
        "agent_tokens": agent_tokens,
        "agent_cost_usd": agent_cost,
    }
