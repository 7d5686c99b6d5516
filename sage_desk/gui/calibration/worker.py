"""Calibrate on a background thread: core's `calibrate_async` on the thread's own asyncio loop.

The thread never touches a widget; it reports through queued signals: `progressed(done, total)`
after each judged conversation and `ended(Outcome)` once. `cancel()` stops new calls and cancels
those in flight, so closing the window never waits on a slow model.
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Signal

from sage_desk.core.judge.calibration import CalibrationCancelled, CalibrationResult, calibrate_async
from sage_desk.gui.common.async_thread import AsyncThread, Outcome

CalibrateOutcome = Outcome  # how a calibration ended: a result, cancelled, or an error to report


class CalibrateThread(AsyncThread):
    """Runs one calibration of `model` on a run's labels."""

    progressed = Signal(int, int)
    cancelled_errors = (CalibrationCancelled, asyncio.CancelledError)

    def __init__(self, store: Any, run_id: str, model: str, parent: Any = None, **options: Any):
        super().__init__(parent)
        self.store, self.run_id, self.model, self.options = store, run_id, model, options
        self.setObjectName(f"calibrate-{model}")

    async def work(self) -> CalibrationResult:
        return await calibrate_async(self.store, self.run_id, self.model, on_progress=self.progressed.emit,
                                     cancelled=lambda: self.stopping, **self.options)
