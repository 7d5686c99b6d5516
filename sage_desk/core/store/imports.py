"""Writing and reading imported conversations: a whole import in one transaction.

An import is all or nothing: the run, its conversations (finished, with the log's id, a content
hash and the case the import built), their events and their rule verdicts are written together,
so a failure half-way leaves nothing behind to clean up.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection

from sage_desk.core.events import Event, TerminationReason, event_to_dict, parse_event
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.rules.verdict import RULES_SOURCE, Verdict
from sage_desk.core.store import reviews
from sage_desk.core.store.schema import ConversationRow, EventRow, RunRow, table_of, utcnow

_BATCH = 500  # SQLite's bound-parameter limit, comfortably


@dataclass
class ImportItem:
    """One conversation to store: its row values, events, ending and rule verdicts."""

    values: dict[str, Any]
    events: list[Event]
    reason: TerminationReason
    verdicts: list[Verdict] = field(default_factory=list)
    more_verdicts: dict[str, list[Verdict]] = field(default_factory=dict)  # other sources (judges), as exported


class ItemSpill:
    """Import items kept in a temporary file instead of memory, read back in order (as often as needed:
    a write the database refused for a moment is tried again from the start)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(mode="w+b")  # closed by close()
        self.count = 0

    def add(self, item: ImportItem) -> None:
        """Keep one item (written at once; nothing of it stays in memory)."""
        record = {
            "values": item.values,
            "events": [event_to_dict(e) for e in item.events],
            "reason": item.reason.value,
            "verdicts": [v.model_dump(mode="json") for v in item.verdicts],
            "more": {source: [v.model_dump(mode="json") for v in found] for source, found in item.more_verdicts.items()},
        }
        self._file.write(json.dumps(record, ensure_ascii=False).encode() + b"\n")
        self.count += 1

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[ImportItem]:
        self._file.flush()
        self._file.seek(0)
        for line in self._file:
            record = json.loads(line)
            yield ImportItem(
                record["values"],
                [parse_event(e) for e in record["events"]],
                TerminationReason(record["reason"]),
                [Verdict.model_validate(v) for v in record["verdicts"]],
                {source: [Verdict.model_validate(v) for v in found] for source, found in record["more"].items()},
            )

    def close(self) -> None:
        """Delete the file."""
        self._file.close()


def write_import(
    connection: Connection,
    run_id: str,
    domain: str,
    config: JsonObject,
    status: str,
    items: Iterable[ImportItem],
    finish_values: Any,
) -> None:
    """Insert the run, its conversations, events and verdicts (the caller holds the transaction).

    `items` is read a batch at a time (an import spilled to disk streams through here in flat memory)."""
    connection.execute(
        insert(table_of(RunRow)), [{"id": run_id, "domain": domain, "config": config, "status": status, "created_at": utcnow()}]
    )
    batch: list[ImportItem] = []
    for item in items:
        batch.append(item)
        if len(batch) == _BATCH:
            _write_batch(connection, run_id, domain, batch, finish_values)
            batch = []
    if batch:
        _write_batch(connection, run_id, domain, batch, finish_values)


def _write_batch(connection: Connection, run_id: str, domain: str, items: list[ImportItem], finish_values: Any) -> None:
    rows = [
        {
            **item.values,
            "run_id": run_id,
            "domain": domain,
            "started_at": utcnow(),
            **finish_values(item.reason, None, item.events),
        }
        for item in items
    ]
    connection.execute(insert(table_of(ConversationRow)), rows)
    events = [
        {"conversation_id": item.values["id"], "seq": e.seq, "type": e.type, "data": event_to_dict(e)}
        for item in items
        for e in item.events
    ]
    for start in range(0, len(events), _BATCH):
        connection.execute(insert(table_of(EventRow)), events[start : start + _BATCH])
    reviews.save_verdicts_many(connection, RULES_SOURCE, {item.values["id"]: item.verdicts for item in items})
    others: dict[str, dict[str, list[Verdict]]] = {}
    for item in items:
        for source, found in item.more_verdicts.items():
            others.setdefault(source, {})[item.values["id"]] = found
    for source, by_conversation in others.items():
        reviews.save_verdicts_many(connection, source, by_conversation)


def known_hashes(
    connection: Connection, hashes: Sequence[str], domains: Sequence[str] | None = None
) -> dict[str, tuple[str, str]]:
    """Content hash -> (conversation id, run id) of those already stored (onto one of `domains`, if given)."""
    table = table_of(ConversationRow)
    found: dict[str, tuple[str, str]] = {}
    wanted = sorted(set(hashes))
    for start in range(0, len(wanted), _BATCH):
        query = select(table.c.content_hash, table.c.id, table.c.run_id).where(
            table.c.content_hash.in_(wanted[start : start + _BATCH])
        )
        if domains is not None:
            query = query.where(table.c.domain.in_(list(domains)))
        for content_hash, cid, run_id in connection.execute(query):
            found.setdefault(content_hash, (cid, run_id))
    return found


def imported_cases(connection: Connection, run_id: str) -> dict[str, JsonObject]:
    """Conversation id -> the case its import built (only imported conversations have one)."""
    table = table_of(ConversationRow)
    query = select(table.c.id, table.c.case_data).where(table.c.run_id == run_id, table.c.case_data.is_not(None))
    return {cid: data for cid, data in connection.execute(query)}


def set_case_data(
    connection: Connection, conversation_id: str, data: JsonObject, bucket: str | None, rules_state: str | None = None
) -> None:
    table = table_of(ConversationRow)
    connection.execute(
        update(table).where(table.c.id == conversation_id).values(case_data=data, bucket=bucket, rules_state=rules_state)
    )
