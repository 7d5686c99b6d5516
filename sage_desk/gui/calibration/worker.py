"""Calibrate on a background thread: core's `calibrate_async` on the thread's own asyncio loop.

The thread never touches a widget; it reports through queued signals: `progressed(done, total)`
after each judged conversation and `ended(CalibrateOutcome)` once. `cancel()` stops new calls and
cancels those in flight, so closing the window never waits on a slow model.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QThread, Signal

from sage_desk.core.judge.calibration import CalibrationCancelled, CalibrationResult, calibrate_async


@dataclass(frozen=True)
class CalibrateOutcome:
    """How a calibration ended: a result, cancelled, or an error to report."""

    result: CalibrationResult | None = None
    cancelled: bool = False
    error: BaseException | None = None


class CalibrateThread(QThread):
    """Runs one calibration of `model` on a run's labels."""

    progressed = Signal(int, int)
    ended = Signal(object)  # CalibrateOutcome

    def __init__(self, store: Any, run_id: str, model: str, parent: Any = None, **options: Any):
        super().__init__(parent)
        self.store, self.run_id, self.model, self.options = store, run_id, model, options
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self.setObjectName(f"calibrate-{model}")

    def cancel(self) -> None:
        """Stop starting calls and cancel those in flight; safe from the GUI thread."""
        self._stop.set()
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)

    def run(self) -> None:  # the thread's body
        try:
            result = asyncio.run(self._main())
        except (CalibrationCancelled, asyncio.CancelledError):
            self.ended.emit(CalibrateOutcome(cancelled=True))
        except BaseException as exc:  # noqa: BLE001 - handed to the GUI, which reports it
            self.ended.emit(CalibrateOutcome(error=exc))
        else:
            self.ended.emit(CalibrateOutcome(result=result))

    async def _main(self) -> CalibrationResult:
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        if self._stop.is_set():
            raise CalibrationCancelled("calibration cancelled")
        return await calibrate_async(self.store, self.run_id, self.model, on_progress=self.progressed.emit,
                                     cancelled=self._stop.is_set, **self.options)
