"""Opening the run database for a command, and picking a run."""

from __future__ import annotations

import argparse
from typing import Any

from sage_desk.core.errors import SageError


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", help="SQLAlchemy database URL (default: the SQLite file in your data folder)")


def open_store(args: argparse.Namespace) -> Any:
    from sage_desk.core.store import Store

    return Store(getattr(args, "db", None))


def pick_run(store: Any, run_id: str | None) -> str:
    """The named run, or the latest one when none is named."""
    if run_id:
        store.get_run(run_id)  # raises StoreError when it does not exist
        return run_id
    latest = store.latest_run_id()
    if latest is None:
        raise SageError(f"no runs in {store.url}; start one with `sage-desk run`")
    return latest
