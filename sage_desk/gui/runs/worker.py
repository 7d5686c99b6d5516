"""The background run: a QThread that runs one `Runner.execute` on its own asyncio loop.

The worker never touches a widget. It reports through signals, which Qt queues to the GUI
thread: `progressed(RunProgress)` at most every `PROGRESS_EVERY_S` (and at the end) and
`ended(RunOutcome)` once. The runner and its verdict hook (rule engine, then the spec's judges)
are built exactly as `sage-desk run` builds them (`session.build_runner`), so a run started here
stores the same verdicts, writes the same batches and stamps the same hashes.

An offline run (baselines, the scripted customer, baseline judges) never waits on anything: in
a thread of this process it would hold the GIL for seconds at a time and starve the GUI (screen
switches took seconds, Cancel was not even drawn). A big one is played in worker processes, as
`sage-desk run --workers` does; this thread then only adds up their figures. A run in the thread
hands the GIL over after every conversation.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QThread, Signal

from sage_desk.core.engine.runner import Progress, RunSpec
from sage_desk.core.session import build_runner
from sage_desk.core.store.records import RunStatus

if TYPE_CHECKING:
    from sage_desk.core.store import Store

PROGRESS_EVERY_S = 0.1
"""Progress reaches the GUI at most this often: a fast run finishes hundreds of conversations a second."""
WORKER_PROCESSES = 2
OFFLINE_IN_PROCESSES_FROM = 2000
"""An offline run of at least this many conversations is played in worker processes."""


@dataclass(frozen=True)
class RunProgress:
    """A snapshot of a run's figures, safe to hand to the GUI thread (the runner keeps mutating its own)."""

    run_id: str
    progress: Progress


@dataclass(frozen=True)
class RunOutcome:
    """How a background run ended: finished, cancelled (resumable) or failed with an error."""

    run_id: str
    progress: Progress | None
    cancelled: bool = False
    error: BaseException | None = None


def plays_offline(spec: RunSpec) -> bool:
    """Whether every participant of the run is a built-in baseline (nothing waits on a network)."""
    return (all(a.startswith("baseline:") for a in spec.agents) and spec.user == "scripted"
            and all(j.startswith("baseline:") for j in spec.judges))


def worker_processes(store: Store, spec: RunSpec, conversations: int) -> int:
    """How many processes play the run: WORKER_PROCESSES for a big offline run, else 1 (this process)."""
    url = store.url
    in_memory = url.drivername.startswith("sqlite") and url.database in (None, "", ":memory:")
    # a frozen bundle has no Python to spawn workers with (it would start another app)
    frozen = getattr(sys, "frozen", False)
    big = conversations >= OFFLINE_IN_PROCESSES_FROM
    return WORKER_PROCESSES if big and plays_offline(spec) and not in_memory and not frozen else 1


class RunThread(QThread):
    """Executes the unfinished conversations of one run in the background."""

    progressed = Signal(object)  # RunProgress
    ended = Signal(object)  # RunOutcome

    def __init__(self, store: Store, spec: RunSpec, run_id: str | None = None, parent: Any = None):
        """Prepare to play `run_id`, or create a new run from `spec` (SageError when core refuses it)."""
        super().__init__(parent)
        self.store = store
        self.spec = spec
        # Built here, on the GUI thread, so a bad spec fails before any thread starts and
        # `cancel` works even before the loop does.
        self.runner = build_runner(store, spec, on_progress=self._on_progress)
        self.run_id = run_id or self.runner.create(spec)
        self.runner.workers = worker_processes(store, spec, store.get_run(self.run_id).total)
        self.setObjectName(f"run-{self.run_id}")
        self._last_emit = 0.0

    def cancel(self) -> None:
        """Stop starting conversations and cancel those in flight; safe from the GUI thread."""
        self.runner.cancel()

    def run(self) -> None:  # the thread's body
        try:
            progress = asyncio.run(self.runner.execute(self.run_id))
        except BaseException as exc:  # noqa: BLE001 - handed to the GUI, which reports it
            self._mark_failed()
            self.ended.emit(RunOutcome(self.run_id, self._snapshot(), error=exc))
            return
        cancelled = self.store.get_run(self.run_id).status == RunStatus.CANCELLED
        self.ended.emit(RunOutcome(self.run_id, dataclasses.replace(progress), cancelled=cancelled))

    def _on_progress(self, progress: Progress) -> None:
        now = time.monotonic()
        if now - self._last_emit >= PROGRESS_EVERY_S or progress.done >= progress.total:
            self._last_emit = now
            self.progressed.emit(RunProgress(self.run_id, dataclasses.replace(progress)))
        time.sleep(0)  # hand the GIL to the GUI thread between conversations

    def _snapshot(self) -> Progress | None:
        progress = self.runner.progress
        return dataclasses.replace(progress) if progress is not None else None

    def _mark_failed(self) -> None:
        try:
            self.store.set_run_status(self.run_id, RunStatus.FAILED)
        except Exception:  # noqa: BLE001 - the original error is the one worth reporting
            pass
