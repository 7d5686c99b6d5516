"""Opening the run database for a command, and picking a run."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", help="SQLAlchemy database URL or a SQLite file's path "
                                                     "(default: the SQLite file in your data folder)")


def open_store(args: argparse.Namespace) -> Store:
    from sage_desk.core.store import Store

    return Store(getattr(args, "db", None))


def pick_run(store: Store, run_id: str | None) -> str:
    """The named run, or the latest one when none is named; a run whose every conversation errored is said so."""
    if not run_id:
        run_id = store.latest_run_id()
        if run_id is None:
            raise SageError(f"no runs in {store.url}; start one with `sage-desk run`")
    record = store.get_run(run_id)  # raises StoreError when it does not exist
    if record.status == "failed" and record.total and record.counts.get("errored") == record.total:
        print(f"sage-desk: run {run_id} failed: all {record.total} conversations errored; see why with "
              f"`sage-desk conversations --run {run_id}`, play them again with `sage-desk run --resume {run_id}`",
              file=sys.stderr)
    return run_id
