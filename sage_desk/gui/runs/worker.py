"""The background run: a QThread that runs one `Runner.execute` on its own asyncio loop.

The worker never touches a widget. It reports through signals, which Qt queues to the GUI
thread: `progressed(RunProgress)` after every conversation and `ended(RunOutcome)` once. The
runner and its verdict hook (rule engine, then the spec's judges) are built exactly as
`sage-desk run` builds them (`VerdictHooks`), so a run started here stores the same verdicts.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QThread, Signal

from sage_desk.core.engine.runner import Progress, Runner, RunSpec
from sage_desk.core.rules.hook import VerdictHooks
from sage_desk.core.store.records import RunStatus


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


def build_runner(store: Any, spec: RunSpec, on_progress: Any = None) -> Runner:
    """A runner with the rule engine and the spec's judges attached, exactly as `sage-desk run` attaches them."""
    return Runner(store, on_progress=on_progress, post_factory=VerdictHooks(tuple(spec.judges), spec.api_base_for("judge")))


class RunThread(QThread):
    """Executes the unfinished conversations of one run in the background."""

    progressed = Signal(object)  # RunProgress
    ended = Signal(object)  # RunOutcome

    def __init__(self, store: Any, spec: RunSpec, run_id: str | None = None, parent: Any = None):
        """Prepare to play `run_id`, or create a new run from `spec` (SageError when core refuses it)."""
        super().__init__(parent)
        self.store = store
        self.spec = spec
        # Built here, on the GUI thread, so a bad spec fails before any thread starts and
        # `cancel` works even before the loop does.
        self.runner = build_runner(store, spec, on_progress=self._on_progress)
        self.run_id = run_id or self.runner.create(spec)
        self.setObjectName(f"run-{self.run_id}")

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
        self.progressed.emit(RunProgress(self.run_id, dataclasses.replace(progress)))

    def _snapshot(self) -> Progress | None:
        progress = self.runner.progress
        return dataclasses.replace(progress) if progress is not None else None

    def _mark_failed(self) -> None:
        try:
            self.store.set_run_status(self.run_id, RunStatus.FAILED)
        except Exception:  # noqa: BLE001 - the original error is the one worth reporting
            pass
