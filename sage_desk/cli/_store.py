"""Opening the run database for a command, and picking a run."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def add_db_option(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a --db given before the command (`sage-desk --db sample report`) is not reset to None here
    parser.add_argument(
        "--db",
        metavar="URL",
        default=argparse.SUPPRESS,
        help="SQLAlchemy database URL or a SQLite file's path "
        "(default: the SQLite file in your data folder; `sample`: as --sample)",
    )
    if "--sample" not in parser._option_string_actions:  # `queue create --sample N` means a sample size: --db sample there
        parser.add_argument(
            "--sample", action="store_true", help="the shipped sample runs, read-only (every domain, five baseline agents)"
        )


def no_runs_hint() -> str:
    """What to do where there are no runs yet: start one, or look at the shipped sample runs."""
    return "start one with `sage-desk run`, or look at the shipped sample runs with --sample (`sage-desk runs --sample`)"


def open_store(args: argparse.Namespace) -> Store:
    """The database --db names (`sample` and --sample: the shipped sample runs, read-only), else the default."""
    from sage_desk.core.store import Store
    from sage_desk.core.store.errors import StoreError
    from sage_desk.core.store.sample import resolve, sample_url

    db = getattr(args, "db", None)
    if getattr(args, "sample", None) is True:
        if db is not None and db.strip() != "sample":
            raise StoreError("--sample and --db name two databases: give one")
        return Store(sample_url())
    return Store(resolve(db))


def pick_run(store: Store, run_id: str | None) -> str:
    """The named run, or the latest one when none is named; a run whose every conversation errored is said so."""
    if not run_id:
        run_id = store.latest_run_id()
        if run_id is None:
            raise SageError(f"no runs yet in {store}; {no_runs_hint()}")
    record = store.get_run(run_id)  # raises StoreError when it does not exist
    if record.status == "failed" and record.total and record.counts.get("errored") == record.total:
        print(
            f"sage-desk: run {run_id} failed: all {record.total} conversations errored; see why with "
            f"`sage-desk conversations --run {run_id}`, play them again with `sage-desk run --resume {run_id}`",
            file=sys.stderr,
        )
    return run_id
