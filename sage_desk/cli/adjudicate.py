"""`sage-desk adjudicate`: the final label where reviewers disagree, with a reason (append-only).

Without `--conversation` it lists the run's open disagreements (the adjudicator's to-do list);
with `--conversation C --criterion K --value V --reason TEXT` it records the adjudicated label
against every verdict of that criterion in the conversation (or one `--source`). Calibration,
metrics and export-calibration then use it (docs/calibration.md, "Which label counts").
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from sage_desk.cli._common import OK, PROBLEMS, USAGE, fail
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", metavar="RUN_ID", help="default: the latest run")
    parser.add_argument("--conversation", metavar="ID", help="the conversation to adjudicate (leave out to list disagreements)")
    parser.add_argument("--criterion", metavar="NAME", help="e.g. judge.empathy")
    parser.add_argument("--value", help="pass/fail, a score from 0 to 1, or one out of ten (7/10)")
    parser.add_argument("--reason", help="why this is the final label (required)")
    parser.add_argument("--source", metavar="SOURCE", help="only this verdict source (default: every one of the criterion)")
    parser.add_argument("--author", metavar="NAME", help="the adjudicator (default: your reviewer profile)")
    parser.add_argument("--format", choices=["table", "json"], default="table", help="for the list of disagreements")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def _list(store: Store, run_id: str, fmt: str) -> int:
    from sage_desk.core.calibration.human_agreement import run_agreement

    found = [d for d in run_agreement(store, run_id).disagreements() if d.adjudicated is None]
    if fmt == "json":
        print(json.dumps({"run": run_id, "unresolved": [d.to_dict() for d in found]}, indent=2))
        return OK
    if not found:
        print(f"No open disagreements in run {run_id}.")
        return OK
    print(f"{len(found)} open disagreement(s) in run {run_id}:")
    for d in found:
        labels = ", ".join(f"{r} {'pass' if p else 'fail'}" for r, p in sorted(d.labels.items()))
        print(f"  {d.conversation_id}  {d.criterion}: {labels}")
    print("Record one with: sage-desk adjudicate --conversation ID --criterion NAME --value pass|fail --reason TEXT")
    return OK


def run(args: argparse.Namespace) -> int:
    from sage_desk.cli.reviewer import author_for
    from sage_desk.core.calibration.label_import import parse_value
    from sage_desk.core.store.reviews import NewOverride

    if args.conversation and not (args.criterion and args.value and (args.reason or "").strip()):
        return fail("adjudicating needs --criterion, --value and a --reason", USAGE)
    try:
        store = open_store(args)
        run_id = pick_run(store, args.run)
        if not args.conversation:
            return _list(store, run_id, args.format)
        author = author_for(args.author)
        passed, score = parse_value(args.value)
        if store.conversation(args.conversation).run_id != run_id and args.run:
            return fail(f"conversation {args.conversation} is not in run {run_id}")
        sources = sorted({v.source for v in store.verdicts(args.conversation) if v.criterion == args.criterion})
        if args.source:
            sources = [s for s in sources if s == args.source]
        if not sources:
            return fail(
                f"conversation {args.conversation} has no {args.criterion!r} verdict"
                + (f" from {args.source}" if args.source else ""),
                PROBLEMS,
            )
        store.add_overrides(
            [
                NewOverride(
                    args.conversation,
                    args.criterion,
                    s,
                    human_passed=passed,
                    human_score=score,
                    reason=args.reason.strip(),
                    author=author,
                    kind="adjudication",
                )
                for s in sources
            ]
        )
    except ValueError as exc:
        return fail(str(exc), USAGE)
    except SageError as exc:
        return fail(str(exc))
    print(
        f"adjudicated {args.criterion} of {args.conversation}: {'pass' if passed else 'fail'} "
        f"({len(sources)} verdict(s), by {author})"
    )
    return OK
