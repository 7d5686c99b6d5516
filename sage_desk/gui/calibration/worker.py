"""Calibrate on a background thread: core's `calibrate_async` on the thread's own asyncio loop.

The thread never touches a widget; it reports through queued signals: `progressed(done, total)`
after each judged conversation and `ended(Outcome)` once. `cancel()` stops new calls and cancels
those in flight, so closing the window never waits on a slow model.

Before the first judged conversation, one short request checks that the model answers at all: a
dead endpoint is then one plain error within seconds, where the judge's retries on every
held-out conversation took minutes and ended in a calibration with nothing measured.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal

from sage_desk.core.calibration import CalibrationCancelled, CalibrationResult, calibrate_async
from sage_desk.core.errors import JudgeError, SageError
from sage_desk.gui.common.async_thread import AsyncThread, Outcome

if TYPE_CHECKING:
    from sage_desk.core.store import Store

CalibrateOutcome = Outcome  # how a calibration ended: a result, cancelled, or an error to report
PROBE_TIMEOUT_S = 20.0


class CalibrateThread(AsyncThread):
    """Runs one calibration of `model` on a run's labels."""

    progressed = Signal(int, int)
    cancelled_errors = (CalibrationCancelled, asyncio.CancelledError)

    def __init__(self, store: Store, run_id: str, model: str, parent: Any = None, **options: Any):
        super().__init__(parent)
        self.store, self.run_id, self.model, self.options = store, run_id, model, options
        self.setObjectName(f"calibrate-{model}")

    async def work(self) -> CalibrationResult:
        await self.probe()
        return await calibrate_async(
            self.store, self.run_id, self.model, on_progress=self.progressed.emit, cancelled=lambda: self.stopping, **self.options
        )

    async def probe(self) -> None:
        """One short request, not retried: JudgeError naming the endpoint when the model does not answer."""
        from sage_desk.core.llm import LlmClient

        if self.model.startswith("baseline:"):
            return  # core refuses it with its own message
        api_base = self.options.get("api_base")
        try:
            await LlmClient().complete(
                self.model,
                [{"role": "user", "content": "Reply with the word OK."}],
                api_base=api_base,
                timeout=PROBE_TIMEOUT_S,
                max_retries=0,
            )
        except SageError as exc:
            where = f" at {api_base}" if api_base else ""
            raise JudgeError(f"{self.model}{where} does not answer, so nothing was judged: {exc}") from exc
