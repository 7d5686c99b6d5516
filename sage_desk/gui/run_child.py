"""The process a run started from the app plays in: `python -m sage_desk.gui.run_child RUN_ID WORKERS`.

A run played in a thread of the app held the GIL for seconds at a time (every keystroke then took
about a second to show), so the Runs screen plays every run in this child process (gui/runs/worker.py,
`RunProcess`). It imports no Qt. It reads the database URL from SAGE_DESK_RUN_DB (the environment,
not the command line, where other users could read a password), plays the stored run as
`sage-desk run --resume` does, and talks to the app through pipes:
  stdout: one JSON object per line, {"progress": {...}} at most every PROGRESS_EVERY_S and at the end;
  stdin:  a line `cancel` (or the pipe closing: the app is gone) cancels the run cleanly, resumable;
  exit:   0 when the run ended (finished or cancelled), FAILED with one line on stderr otherwise.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import threading
import time
from typing import Any

DB_ENV = "SAGE_DESK_RUN_DB"
PROGRESS_EVERY_S = 0.1
FAILED = 3
CHILD_NICENESS = 5


class ProgressWriter:
    """Writes the runner's figures to stdout as JSON lines, at most every PROGRESS_EVERY_S (and the last one)."""

    def __init__(self, out: Any = None):
        self.out = out or sys.stdout
        self.last = 0.0

    def __call__(self, progress: Any, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last >= PROGRESS_EVERY_S or progress.done >= progress.total:
            self.last = now
            self.out.write(json.dumps({"progress": dataclasses.asdict(progress)}) + "\n")
            self.out.flush()


def watch_stdin(cancel: Any) -> threading.Thread:
    """Cancel the run on a `cancel` line or when the app's end of the pipe closes."""

    def watch() -> None:
        for line in sys.stdin:
            if line.strip() == "cancel":
                break
        cancel()

    thread = threading.Thread(target=watch, name="cancel-watch", daemon=True)
    thread.start()
    return thread


def main(argv: list[str] | None = None) -> int:
    """Play the stored run argv[0] with argv[1] worker processes; see the module docstring."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if hasattr(os, "nice"):
        # the window comes first: on a busy laptop the run (and its worker processes) waits, not the person
        os.nice(CHILD_NICENESS)
    args = sys.argv[1:] if argv is None else argv
    run_id, workers = args[0], int(args[1]) if len(args) > 1 else 1
    from sage_desk.core.session import build_runner, run_spec
    from sage_desk.core.store import Store
    from sage_desk.core.store.records import RunStatus

    store = Store(os.environ[DB_ENV])
    try:
        spec = run_spec(store, run_id)
        writer = ProgressWriter()
        runner = build_runner(store, spec, on_progress=writer, workers=workers)
        watch_stdin(runner.cancel)
        progress = asyncio.run(runner.execute(run_id))
        writer(progress, force=True)
        return 0
    except Exception as exc:  # told to the app in one line; the run is marked failed (resumable)
        try:
            store.set_run_status(run_id, RunStatus.FAILED)
        except Exception:  # the first error is the one worth reporting
            pass
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        print(f"{type(exc).__name__}: {first}", file=sys.stderr, flush=True)
        return FAILED
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
