"""`Store`: the run database behind the engine, the GUI and the CLI.

One `Store` may be shared by threads: every method opens its own short session. Writes begin
`IMMEDIATE` on SQLite and reads begin deferred (see `engine.py`), so the GUI reads while a run
writes. The store implements the engine's `Recorder`; verdicts, overrides, the Review list and
calibration examples are mixed in from `reviewing.py`, conversation reads from `conversations.py`
and run ownership from `ownership.py`.
"""

from __future__ import annotations

import re
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DatabaseError, IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from sage_desk.core.events import Event, LlmUsage, TerminationReason, event_to_dict, parse_event
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.llm.redact import redact
from sage_desk.core.store import batch as batch_module
from sage_desk.core.store import imports, snapshots, summaries
from sage_desk.core.store.batch import WriteBatch
from sage_desk.core.store.conversations import ConversationReads
from sage_desk.core.store.engine import database_url, make_engine, read_engine, share_guard
from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.migrate import upgrade
from sage_desk.core.store.ownership import Ownership
from sage_desk.core.store.records import (
    ConversationStatus,
    RunRecord,
    RunStatus,
)
from sage_desk.core.store.retry import retry_transient
from sage_desk.core.store.reviewing import Reviewing
from sage_desk.core.store.schema import ConversationRow, EventRow, RunRow, VerdictRow, table_of, utcnow
from sage_desk.core.store.sqlite_guard import ShareGuard

_CONVERSATION_KEYS = frozenset({"id", "case_id", "agent", "repeat", "bucket", "conflict", "tactics", "seed"})
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


class Store(Ownership, ConversationReads, Reviewing):
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

    # -- events of many conversations ---------------------------------------------------------

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


def _first_line(exc: SQLAlchemyError) -> str:
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip()
    return (text.splitlines() or [type(exc).__name__])[0]


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
