"""Calibration sets: one flat record per labelled judge verdict, as JSONL or CSV.

Each record holds the conversation (id, run, case, domain, agent, bucket), the criterion and its
rubric text, the transcript twice (as text, and as `messages`: one entry per customer message,
agent message or tool call, every entry with the same string fields), the judge's value, rationale
and model, the human's value, reason, author and time (the effective label: adjudicated, else
agreed; see `store/consensus.py`), its tags and corrected reply, and a `split` (train/dev/test by hashing the
case id, the same split calibration uses). Every record has the same keys, and each key one type
(or null), so the JSONL loads as a Hugging Face `datasets` JSON file.

Nothing from the run's configuration or the environment is written; text fields pass through
`redact`, so a key pasted into a conversation or a rationale does not leave either. In CSV, a
cell that starts like a formula (`=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading
`'`, so a label reason typed as `=HYPERLINK(...)` opens in a spreadsheet as text, not as a formula.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sage_desk.core.calibration.fewshot import split_of
from sage_desk.core.calibration.labels import LabelledItem, calibration_report
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.judge.rubric import CRITERIA
from sage_desk.core.llm.redact import redact

if TYPE_CHECKING:
    from sage_desk.core.cases.model import Case
    from sage_desk.core.events import Event
    from sage_desk.core.store import Store

FIELDS = (
    "id",
    "conversation_id",
    "run_id",
    "case_id",
    "domain",
    "agent",
    "bucket",
    "criterion",
    "rubric",
    "transcript",
    "messages",
    "judge_model",
    "judge_label",
    "judge_passed",
    "judge_score",
    "judge_rationale",
    "human_label",
    "human_passed",
    "human_score",
    "human_reason",
    "human_author",
    "labelled_at",
    "human_status",
    "human_tags",
    "corrected_reply",
    "split",
)
MESSAGE_FIELDS = ("role", "content", "tool_name", "tool_arguments", "tool_result", "tool_error")
FORMATS = ("jsonl", "csv")
EVENT_BATCH = 200  # conversations whose events are read in one query


def _json_text(value: Json) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def messages_of(events: Sequence[Event]) -> list[dict[str, str]]:
    """Customer and agent messages and tool calls, each with every `MESSAGE_FIELDS` key as a string."""
    out = []
    for e in events:
        entry = dict.fromkeys(MESSAGE_FIELDS, "")
        if e.type in ("customer_message", "agent_message"):
            entry.update(role="customer" if e.type == "customer_message" else "agent", content=redact(e.text))
        elif e.type == "tool_call":
            entry.update(
                role="tool",
                tool_name=e.name,
                tool_arguments=redact(_json_text(e.arguments)),
                tool_result=redact(_json_text(e.result)) if e.result is not None else "",
                tool_error=redact(e.error or ""),
            )
        else:
            continue
        out.append(entry)
    return out


class _Rubrics:
    """Rubric text per (case, criterion): the fixed criteria, and `say:` steps from the case."""

    def __init__(self, store: Store, run_id: str):
        self.cases: dict[str, Case] = {}
        try:
            from sage_desk.core.session import run_cases

            _bundle, self.cases, _spec = run_cases(store, run_id)
        except Exception:  # a domain gone from disk only loses the say-step rubrics
            self.cases = {}
        self.fixed = {c.name: c.rubric for c in CRITERIA}

    def text(self, case_id: str, criterion: str) -> str:
        if criterion in self.fixed:
            return self.fixed[criterion]
        case = self.cases.get(case_id)
        if case is None:
            return ""
        from sage_desk.core.judge.llm_judge import criteria_for

        return next((c.rubric for c in criteria_for(case) if c.name == criterion), "")


def _label(passed: bool | None) -> str:
    return "unscored" if passed is None else "pass" if passed else "fail"


def _record(item: LabelledItem, run_id: str, bucket: str, rubric: str, events: Sequence[Event]) -> JsonObject:
    from sage_desk.core.transcript import render_transcript

    label = item.label
    return {
        "id": f"{item.conversation_id}|{item.criterion}|{item.source}",
        "conversation_id": item.conversation_id,
        "run_id": run_id,
        "case_id": item.case_id,
        "domain": item.domain,
        "agent": item.agent,
        "bucket": bucket,
        "criterion": item.criterion,
        "rubric": rubric,
        "transcript": redact(render_transcript(events)),
        "messages": messages_of(events),
        "judge_model": item.source,
        "judge_label": _label(item.judge_passed),
        "judge_passed": item.judge_passed,
        "judge_score": None if item.judge_score is None else float(item.judge_score),
        "judge_rationale": redact(item.judge_rationale or ""),
        "human_label": _label(label.passed),
        "human_passed": label.passed,
        "human_score": None if label.score is None else float(label.score),
        "human_reason": redact(label.reason or ""),
        "human_author": label.author or "",
        "labelled_at": label.created_at.isoformat(),
        "human_status": label.status,
        "human_tags": list(label.tags),
        "corrected_reply": redact(label.corrected_reply or ""),
        "split": split_of(item.case_id),
    }


def calibration_records(store: Store, run_id: str, source: str | None = None) -> list[JsonObject]:
    """One record per labelled judge verdict of the run (optionally of one judge), in a stable order."""
    report = calibration_report(store, run_id)
    items = sorted(
        (i for i in report.items if source is None or i.source == source),
        key=lambda i: (i.conversation_id, i.criterion, i.source),
    )
    rubrics = _Rubrics(store, run_id) if items else None
    ids = sorted({i.conversation_id for i in items})
    buckets = {c.id: c.bucket or "" for c in store.conversations(run_id=run_id)} if items else {}
    records: list[JsonObject] = []
    for start in range(0, len(ids), EVENT_BATCH):
        batch = set(ids[start : start + EVENT_BATCH])
        events = store.events_many(sorted(batch))
        records += [
            _record(
                i,
                run_id,
                buckets.get(i.conversation_id, ""),
                rubrics.text(i.case_id, i.criterion),  # type: ignore[union-attr]
                events[i.conversation_id],
            )
            for i in items
            if i.conversation_id in batch
        ]
    return sorted(records, key=lambda r: (r["conversation_id"], r["criterion"], r["judge_model"]))


def to_jsonl(records: list[JsonObject]) -> str:
    """One JSON object per line."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def to_csv(records: list[JsonObject]) -> str:
    """One row per record; `messages` as a JSON array in its cell, booleans as true/false, nulls empty."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for r in records:
        writer.writerow({k: _csv_cell(r[k]) for k in FIELDS})
    return buffer.getvalue()


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """A CSV cell a spreadsheet shows as the text it is, never evaluates (OWASP's CSV injection advice)."""
    return "'" + text if text.startswith(FORMULA_START) else text


def _csv_cell(value: Json) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, str):
        return neutralise(value)
    return str(value)


def write_calibration_set(store: Store, run_id: str, path: str | Path, fmt: str = "jsonl", source: str | None = None) -> int:
    """Write a run's calibration set to `path`; returns how many records."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    records = calibration_records(store, run_id, source)
    text = to_jsonl(records) if fmt == "jsonl" else to_csv(records)
    Path(path).write_text(text, encoding="utf-8", newline="")
    return len(records)
