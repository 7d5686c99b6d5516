"""One record per conversation: what it was, how it ended and every effective verdict.

For pandas, Hugging Face `datasets` and our own checks (`sage-desk export-results`). Fields
(docs/file-formats.md has them all): `conversation`, `source_id` (an imported conversation's id in
its own log), `case`, `agent`, `repeat`, `bucket`, `status`,
`ending` (why it stopped: closed, handed_over, customer_stopped ...), `ticket` (the ticket's end:
escalated, resolved, refused, info_requested, open), `resolved`, `unsafe_acts`, `trap_failed`, `tau_reward` (an imported tau-bench/tau2
conversation's own reward), `rules_state` (`unscored`/`provisional` where the rules are not settled),
`verdicts`. Verdict values are the effective
ones: a human override replaces the machine's value and sets `overridden`.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sage_desk.core.events import event_to_dict
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.metrics.aggregate import ConversationResult, Mark
from sage_desk.core.rules.acts import ending_of

if TYPE_CHECKING:
    from sage_desk.core.events import Event
    from sage_desk.core.store import Store
    from sage_desk.core.store.records import ConversationRecord
    from sage_desk.core.store.reviews import VerdictMark

FIELDS = (
    "conversation",
    "source_id",
    "case",
    "agent",
    "repeat",
    "bucket",
    "status",
    "ending",
    "ticket",
    "resolved",
    "unsafe_acts",
    "trap_failed",
    "tau_reward",
    "rules_state",
    "verdicts",
)
VERDICT_LAYOUTS = ("columns", "json", "both")
"""CSV verdicts: a value and a source column per criterion, the one JSON cell of every verdict, or both."""
BATCH = 500
LABEL_FIELDS = {
    "criterion",
    "source",
    "human_passed",
    "human_score",
    "human_value",
    "reason",
    "author",
    "kind",
    "tags",
    "corrected_reply",
}
"""What an `--events` record keeps of each human label (override), for `import --format events`."""


def result_records(store: Store, run_id: str, with_events: bool = False) -> Iterator[JsonObject]:
    """The run's conversations, one record each, in the store's order (`with_events`: each record
    also carries its events, which `sage-desk import --format events` reads back)."""
    by_conversation: dict[str, list[VerdictMark]] = defaultdict(list)
    for mark in store.effective_marks(run_id):
        by_conversation[mark.conversation_id].append(mark)
    overridden = {(o.conversation_id, o.criterion, o.source) for o in store.overrides(run_id=run_id)}
    conversations = store.conversations(run_id=run_id)
    provisional = _provisional(store, conversations)
    cases = store.imported_cases(run_id) if with_events else {}
    labels: dict[str, list[JsonObject]] = defaultdict(list)
    if with_events:
        for o in store.overrides(run_id=run_id):  # oldest first: the latest label stays the one in effect
            labels[o.conversation_id].append(o.model_dump(mode="json", include=LABEL_FIELDS))
    for start in range(0, len(conversations), BATCH):
        batch = conversations[start : start + BATCH]
        events = store.events_many([c.id for c in batch])
        given = _as_given(store, [c.id for c in batch]) if with_events else {}
        for c in batch:
            record = _record(c, events.get(c.id, []), by_conversation.get(c.id, []), overridden, provisional)
            if with_events:
                record["events"] = [event_to_dict(e) for e in events.get(c.id, [])]
                # What `import --format events` needs to give the conversation back exactly: its case as an
                # import built it (slots and their history), and every verdict as its source gave it.
                record["case_data"] = cases.get(c.id)
                record["verdicts_as_given"] = given.get(c.id, [])
                record["overrides_as_given"] = labels.get(c.id, [])
            yield record


def _as_given(store: Store, conversation_ids: list[str]) -> dict[str, list[JsonObject]]:
    """Each conversation's verdicts as their sources gave them (no override applied), as Verdict fields."""
    from sage_desk.core.rules.verdict import Verdict

    keep = set(Verdict.model_fields) - {"conversation_id"}
    out: dict[str, list[JsonObject]] = defaultdict(list)
    for v in store.verdicts_many(conversation_ids):
        out[v.conversation_id].append(v.model_dump(mode="json", include=keep))
    return out


def _provisional(store: Store, conversations: list[ConversationRecord]) -> set[tuple[str, str]]:
    """(conversation, criterion) of rule verdicts resting only on the agent's own tag; read only for
    the imported conversations whose rules are marked provisional (few, and none in a simulated run)."""
    return {
        (c.id, v.criterion)
        for c in conversations
        if "provisional" in (c.rules_state or "")
        for v in store.verdicts(c.id, source="rules")
        if v.details.get("provisional")
    }


def _record(
    c: ConversationRecord,
    events: list[Event],
    marks: list[VerdictMark],
    overridden: set[tuple[str, str, str]],
    provisional: set[tuple[str, str]] | None = None,
) -> JsonObject:
    errored = c.status.value == "errored"
    rules = {m.criterion: Mark(m.passed, m.score) for m in marks if m.source == "rules" and not m.unscored}
    result = ConversationResult(
        id=c.id,
        agent=c.agent,
        domain=c.domain,
        case_id=c.case_id,
        repeat=c.repeat,
        bucket=c.bucket or "",
        conflict=c.conflict or "",
        errored=errored,
        marks=rules,
    )
    finished = c.status.value == "finished"
    unsafe = sorted(k.split(".", 1)[1] for k, m in rules.items() if k.startswith("catastrophic.") and m.passed is False)
    return {
        "conversation": c.id,
        "source_id": c.source_id,
        "case": c.case_id,
        "agent": c.agent,
        "repeat": c.repeat,
        "bucket": c.bucket,
        # ending: why the conversation stopped, in the words `conversations` and Review use (events.TerminationReason);
        # ticket: what the ticket was left as, in the SOP's end-node words (escalated, resolved, refused ...)
        "status": c.status.value,
        "ending": c.termination,
        "ticket": ending_of(events)[0] if finished else None,
        "resolved": result.resolved() if finished and c.bucket == "resolvable" else None,
        "unsafe_acts": unsafe if finished else [],
        "trap_failed": bool(unsafe) if finished and c.bucket == "adversarial" else None,
        "tau_reward": c.tau_reward,
        "rules_state": c.rules_state,
        "verdicts": [
            {
                "criterion": m.criterion,
                "source": m.source,
                "passed": m.passed,
                "score": m.score,
                "unscored": m.unscored,
                "overridden": (c.id, m.criterion, m.source) in overridden,
                "provisional": m.source == "rules"
                and (c.id, m.criterion) in (provisional or ())
                and (c.id, m.criterion, m.source) not in overridden,
            }
            for m in marks
        ],
    }


def _csv_cell(value: Json) -> Json:
    if isinstance(value, list | dict):
        value = json.dumps(value, ensure_ascii=False)
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value  # a spreadsheet must show the text, never run it as a formula
    return value


def verdict_columns(records: list[JsonObject]) -> list[tuple[str, str, str]]:
    """(criterion, source, column name) of every verdict the records hold: rules first, then judges, by name.

    The column is the criterion's name; where two sources judge the same criterion it is `criterion [source]`.
    """
    pairs = sorted(
        {(v["criterion"], v["source"]) for r in records for v in r["verdicts"]},
        key=lambda p: (p[0].startswith("judge"), p[0], p[1]),
    )
    sources: dict[str, int] = defaultdict(int)
    for criterion, _ in pairs:
        sources[criterion] += 1
    return [(c, src, c if sources[c] == 1 else f"{c} [{src}]") for c, src in pairs]


def _verdict_cells(record: JsonObject, columns: list[tuple[str, str, str]]) -> JsonObject:
    """A record's verdicts as cells: `pass`/`fail`, a score, `n/a` or `unscored`; its source (`human over SOURCE` when overridden)."""
    by_key = {(v["criterion"], v["source"]): v for v in record["verdicts"]}
    cells: JsonObject = {}
    for criterion, source, column in columns:
        v = by_key.get((criterion, source))
        if v is None:
            cells[column] = cells[f"{column} source"] = ""
            continue
        value = "unscored" if v["unscored"] else ("pass" if v["passed"] else "fail") if v["passed"] is not None else v["score"]
        cells[column] = "n/a" if value is None else value
        cells[f"{column} source"] = f"human over {source}" if v["overridden"] else source
    return cells


def _write_csv(buffer: io.StringIO, records: list[JsonObject], verdicts: str) -> None:
    columns = verdict_columns(records) if verdicts != "json" else []
    fields = [f for f in FIELDS if f != "verdicts" or verdicts != "columns"]
    fields += [name for _, _, column in columns for name in (column, f"{column} source")]
    writer = csv.DictWriter(buffer, fieldnames=fields, extrasaction="ignore")
    writer.writeheader()
    for record in records:
        writer.writerow({**{k: _csv_cell(v) for k, v in record.items()}, **_verdict_cells(record, columns)})


def write_results(
    store: Store, run_id: str, out: Path | None, fmt: str, with_events: bool = False, verdicts: str = "columns"
) -> tuple[int, str]:
    """Write every record as JSONL or CSV (to `out`, or return the text when `out` is None).

    CSV's `verdicts` (VERDICT_LAYOUTS): a value and a source column per criterion (`columns`), the JSON
    list of every verdict in one cell (`json`), or both.
    """
    buffer = io.StringIO()
    count = 0
    if fmt == "csv":
        records = list(result_records(store, run_id))  # the columns are every criterion any record has
        _write_csv(buffer, records, verdicts)
        count = len(records)
    else:
        for record in result_records(store, run_id, with_events):
            buffer.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    text = buffer.getvalue()
    if out is not None:
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    return count, text
