"""A QThread that runs one coroutine on its own asyncio loop, cancellable from the GUI thread.

The thread never touches a widget; it ends once with `ended(Outcome)`, which Qt queues to the GUI
thread. Subclasses write `work()`, and may add their own progress signals.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QThread, Signal


@dataclass(frozen=True)
class Outcome:
    """How background work ended: a result, cancelled, or an error to show."""

    result: Any = None
    cancelled: bool = False
    error: BaseException | None = None


class AsyncThread(QThread):
    """Runs `work()` once; `cancel()` cancels it in flight, or before it starts."""

    ended = Signal(object)  # Outcome
    #: exceptions that mean "cancelled", not "failed" (a subclass adds its library's own)
    cancelled_errors: tuple[type[BaseException], ...] = (asyncio.CancelledError,)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None

    @property
    def stopping(self) -> bool:
        """True once `cancel()` was called."""
        return self._stop.is_set()

    def cancel(self) -> None:
        """Cancel the work; safe from any thread."""
        self._stop.set()
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)

    def run(self) -> None:  # the thread's body
        try:
            result = asyncio.run(self._main())
        except self.cancelled_errors:
            self.ended.emit(Outcome(cancelled=True))
        except BaseException as exc:  # handed to the GUI, which shows it
            self.ended.emit(Outcome(error=exc))
        else:
            self.ended.emit(Outcome(result=result))

    async def _main(self) -> Any:
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        if self._stop.is_set():  # cancelled before the loop existed
            raise asyncio.CancelledError
        return await self.work()

    async def work(self) -> Any:
        """The coroutine to run (a subclass's)."""
        raise NotImplementedError
