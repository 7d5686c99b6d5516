"""`sage-desk label --run RUN_ID --from labels.csv`: human labels in bulk, through the override path."""

from __future__ import annotations

import argparse
import sys

from sage_desk.cli._common import OK, PROBLEMS, fail, print_problems
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import InputError, SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", metavar="RUN_ID", help="default: the latest run")
    parser.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="CSV",
        help="columns conversation, criterion, value (pass/fail, 0-1 or 7/10), reason, author; "
        "optional source (one judge), tags (failure modes, ;-separated), corrected_reply; "
        "every row is checked before any is written",
    )
    parser.add_argument(
        "--author",
        metavar="NAME",
        help="author of rows that leave it empty "
        "(default: your reviewer profile, `sage-desk reviewer set NAME`; never the login name)",
    )
    add_db_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.calibration.label_import import import_labels
    from sage_desk.core.reviewers import reviewer_name

    try:
        store = open_store(args)
        run_id = pick_run(store, args.run)
        count = import_labels(args.source, store, run_id, default_author=args.author or reviewer_name() or "")
    except InputError as exc:
        print_problems(exc.problems)
        print(f"sage-desk: nothing imported: {len(exc.problems)} problem(s) in {args.source}", file=sys.stderr)
        return PROBLEMS
    except SageError as exc:
        return fail(str(exc))
    print(f"imported {count} label(s) into run {run_id}")
    return OK
