"""`sage-desk queue create|list|status|export`: review queues for a team of reviewers.

sage-desk queue create NAME [--run R ...] [--where COLUMN=VALUE ...] [--sample N --seed S]
    [--order listed|random|disagree|uncertain] [--reviewer NAME ...] [--reviews N] [--blind]
    [--criterion NAME ...]
sage-desk queue list
sage-desk queue status NAME [--format table|json]
sage-desk queue export NAME --out FILE [--format csv|jsonl]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sage_desk.cli._common import OK, USAGE, fail
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store

EXPORT_FIELDS = (
    "queue",
    "position",
    "conversation",
    "run",
    "case_id",
    "agent",
    "criterion",
    "source",
    "author",
    "kind",
    "value",
    "passed",
    "score",
    "tags",
    "corrected_reply",
    "reason",
    "labelled_at",
)


def register(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="queue_command", metavar="ACTION", required=True)
    create = sub.add_parser("create", help="make a queue from runs, a filter, a sample and an order")
    create.add_argument("name", help="letters, digits, '.', '-', '_'")
    create.add_argument("--run", action="append", metavar="RUN_ID", help="repeatable; default: the latest run")
    create.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="COLUMN=VALUE",
        help="keep conversations with this value (agent, bucket, conflict, case_id, repeat, ...)",
    )
    create.add_argument("--sample", type=int, metavar="N", help="a random sample of N conversations (with --seed)")
    create.add_argument("--seed", type=int, default=0)
    create.add_argument(
        "--order",
        default="listed",
        choices=["listed", "random", "disagree", "uncertain"],
        help="disagree: judge and rules disagree first; uncertain: lowest judge confidence first",
    )
    create.add_argument("--reviewer", action="append", default=[], metavar="NAME", help="assign a reviewer (repeatable)")
    create.add_argument("--reviews", type=int, default=1, metavar="N", help="reviewers per item (default 1)")
    create.add_argument("--blind", action="store_true", help="hide the judge and other labels until a reviewer has labelled")
    create.add_argument("--criterion", action="append", default=[], metavar="NAME", help="the criteria to label (repeatable)")
    create.add_argument("--author", metavar="NAME", help="who creates it (default: your reviewer profile)")
    sub.add_parser("list", help="every queue with its progress")
    status = sub.add_parser("status", help="a queue's progress: done, per reviewer, flagged")
    status.add_argument("name")
    status.add_argument("--format", choices=["table", "json"], default="table")
    export = sub.add_parser("export", help="a queue's items and every label on them")
    export.add_argument("name")
    export.add_argument("--out", required=True, metavar="FILE")
    export.add_argument("--format", choices=["csv", "jsonl"], help="default: from the extension, else csv")
    for action in sub.choices.values():
        add_db_option(action)
    parser.set_defaults(handler=run)


def _create(args: argparse.Namespace, store: Store) -> int:
    from sage_desk.cli.reviewer import author_for
    from sage_desk.core.review.selection import Selection, parse_filters, select_conversations
    from sage_desk.core.reviewers import reviewer_name
    from sage_desk.core.store.queues import create_queue

    if args.sample is not None and args.sample < 1 or args.reviews < 1:
        return fail("--sample and --reviews must be at least 1", USAGE)
    runs = [pick_run(store, r) for r in args.run] if args.run else [pick_run(store, None)]
    selection = Selection(runs, parse_filters(args.where), args.sample, args.seed, args.order)
    ids = select_conversations(store, selection)
    creator = author_for(args.author) if args.author or reviewer_name() else ""
    queue = create_queue(
        store,
        args.name,
        ids,
        reviewers=args.reviewer,
        reviews_per_item=args.reviews,
        blind=args.blind,
        criteria=args.criterion,
        selection=selection.to_dict(),
        created_by=creator,
    )
    who = ", ".join(queue.reviewers) or "anyone"
    print(
        f"queue {queue.name}: {queue.size} conversation(s) from {', '.join(runs)}, {queue.reviews_per_item} review(s) "
        f"each, reviewers: {who}{', blind' if queue.blind else ''}"
    )
    return OK


def _list(store: Store) -> int:
    from sage_desk.core.store.queues import list_queues, progress

    queues = list_queues(store)
    if not queues:
        print("No queues yet: sage-desk queue create NAME --run RUN_ID")
    for q in queues:
        print(
            f"{q.name}  {progress(store, q.name).summary}  reviews {q.reviews_per_item}  "
            f"reviewers {', '.join(q.reviewers) or 'anyone'}{'  blind' if q.blind else ''}"
        )
    return OK


def _status(args: argparse.Namespace, store: Store) -> int:
    from sage_desk.core.store.queues import progress

    state = progress(store, args.name)
    if args.format == "json":
        print(json.dumps(state.to_dict(), indent=2))
        return OK
    data = state.to_dict()
    print(
        f"queue {args.name}: {state.summary} ({state.queue.reviews_per_item} review(s) per item"
        f"{', blind' if state.queue.blind else ''})"
    )
    for reviewer, counts in data["reviewers"].items():
        print(f"  {reviewer or '(no name)'}: {counts['labelled']} labelled, {counts['skipped']} skipped")
    for cid, who in data["flagged"].items():
        notes = data.get("flag_notes", {}).get(cid, {})
        print(f"  flagged: {cid} by " + ", ".join(f"{r} ({notes[r]!r})" if notes.get(r) else r for r in who))
    return OK


def export_rows(store: Store, name: str) -> list[dict[str, Any]]:
    """One row per label on the queue's items (criteria of the queue only, when it names some); an item
    nobody labelled yet gets one row with the label fields empty."""
    from sage_desk.core.store.queues import get_queue, queue_conversations, queue_runs

    queue = get_queue(store, name)
    ids = queue_conversations(store, name)
    convos = {c.id: c for r in queue_runs(store, name) for c in store.conversations(r)}
    by_conversation: dict[str, list[Any]] = {}
    for r in queue_runs(store, name):
        for o in store.overrides(run_id=r):
            if not queue.criteria or o.criterion in queue.criteria:
                by_conversation.setdefault(o.conversation_id, []).append(o)
    rows = []
    for position, cid in enumerate(ids):
        c = convos[cid]
        base = dict.fromkeys(EXPORT_FIELDS, None) | {
            "queue": name,
            "position": position,
            "conversation": cid,
            "run": c.run_id,
            "case_id": c.case_id,
            "agent": c.agent,
        }
        labels = by_conversation.get(cid, [])
        rows += [
            base
            | {
                "criterion": o.criterion,
                "source": o.source,
                "author": o.author,
                "kind": o.kind,
                "value": o.human_value,
                "passed": o.human_passed,
                "score": o.human_score,
                "tags": list(o.tags or []),
                "corrected_reply": o.corrected_reply,
                "reason": o.reason,
                "labelled_at": o.created_at.isoformat(),
            }
            for o in labels
        ] or [base]
    return rows


def _export(args: argparse.Namespace, store: Store) -> int:
    from sage_desk.core.export.calibration import neutralise

    out = Path(args.out)
    fmt = args.format or ("jsonl" if out.suffix.lower() == ".jsonl" else "csv")
    rows = export_rows(store, args.name)
    if fmt == "jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=EXPORT_FIELDS, lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: _cell(r[k], neutralise) for k in EXPORT_FIELDS})
        text = buffer.getvalue()
    try:
        out.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        return fail(f"cannot write {out}: {exc.strerror or exc}")
    print(f"wrote {len(rows)} row(s) of queue {args.name} to {out} ({fmt})", file=sys.stderr)
    return OK


def _cell(value: Any, neutralise: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ";".join(value)
    return neutralise(value) if isinstance(value, str) else str(value)


def run(args: argparse.Namespace) -> int:
    try:
        store = open_store(args)
        action = args.queue_command
        if action == "create":
            return _create(args, store)
        if action == "list":
            return _list(store)
        if action == "status":
            return _status(args, store)
        return _export(args, store)
    except SageError as exc:
        return fail(str(exc))
