"""`sage-desk export-calibration --run RUN_ID --out set.jsonl [--format jsonl|csv]`: a calibration set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sage_desk.cli._common import OK, fail
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", metavar="RUN_ID", help="default: the latest run")
    parser.add_argument("--out", required=True, metavar="FILE", help="where to write the set")
    parser.add_argument("--format", choices=["jsonl", "csv"], help="default: from the file's extension, else jsonl")
    parser.add_argument("--judge", metavar="SOURCE", help="only this judge's verdicts")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.calibration import NO_LABELS_HINT
    from sage_desk.core.export.calibration import write_calibration_set

    out = Path(args.out)
    fmt = args.format or ("csv" if out.suffix.lower() == ".csv" else "jsonl")
    try:
        store = open_store(args)
        run_id = pick_run(store, args.run)
        count = write_calibration_set(store, run_id, out, fmt, source=args.judge)
    except SageError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"cannot write {out}: {exc.strerror or exc}")
    print(f"wrote {count} labelled item(s) of run {run_id} to {out} ({fmt})", file=sys.stderr)
    if count == 0:
        print(f"no human labels yet: {NO_LABELS_HINT}", file=sys.stderr)
    return OK
