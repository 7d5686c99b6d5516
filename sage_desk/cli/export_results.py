"""`sage-desk export-results [--run RUN_ID] [--format jsonl|csv] [--out FILE]`: one record per conversation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sage_desk.cli._common import OK, fail
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", metavar="RUN_ID", help="default: the latest run")
    parser.add_argument("--format", choices=["jsonl", "csv"], help="default: from --out's extension, else jsonl")
    parser.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument(
        "--events",
        action="store_true",
        help="(jsonl) each record also carries its events: `sage-desk import --format events` reads them back",
    )
    parser.add_argument(
        "--verdicts",
        choices=["columns", "json", "both"],
        default="columns",
        help="(csv) columns: a value and a source column per criterion; json: every verdict in one JSON cell; both",
    )
    add_db_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.export.results import write_results

    out = Path(args.out) if args.out else None
    fmt = args.format or ("csv" if out is not None and out.suffix.lower() == ".csv" else "jsonl")
    try:
        store = open_store(args)
        run_id = pick_run(store, args.run)
        count, text = write_results(store, run_id, out, fmt, with_events=args.events, verdicts=args.verdicts)
    except SageError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"cannot write {out}: {exc.strerror or exc}")
    if out is None:
        sys.stdout.write(text)
    print(f"{count} conversation(s) of run {run_id}" + (f" written to {out} ({fmt})" if out else ""), file=sys.stderr)
    return OK
