"""Reading a big run's Review list behind the first page, so the list opens at once.

The screen reads the first `FIRST_PAGE` conversations itself (a few milliseconds: the list's
order is an index, 0008) and shows them; a `TableLoader` reads the rest in pages of `PAGE` on its
own thread and hands each page to the screen, which appends it. A reviewer reads and filters the
first rows while the rest arrives; a run of 100,000 conversations is whole in about a second.

Each page starts after the last row of the one before (keyset pages on the list's index), so a
page deep in a million-row run costs no more than the first; only the rows' summaries change
while a run plays, and a later refresh reads those again.
"""

from __future__ import annotations

import atexit
import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QThread, Signal

from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.review.session import ListKey, Store

FIRST_PAGE = 2_000
"""Rows the screen reads itself before showing the list: many screenfuls, read in milliseconds."""
PAGE = 25_000
"""Rows per page read behind it."""

_RUNNING: set[TableLoader] = set()
"""Loaders still reading: kept alive here (not by a screen that may close first) until they end."""


class TableLoader(QThread):
    """Reads one run's list after the row `after`, page by page, until a short page or `stop()`."""

    page = Signal(object, int)  # (ConversationTable, generation)
    failed = Signal(str, int)  # (message, generation)
    done = Signal(int)  # generation

    def __init__(self, store: Store, run_id: str, after: ListKey, generation: int) -> None:
        super().__init__()
        self.store, self.run_id, self.after, self.generation = store, run_id, after, generation
        self._stop = threading.Event()
        _RUNNING.add(self)
        self.finished.connect(lambda: _RUNNING.discard(self))
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop_and_wait)

    def stop(self) -> None:
        """Read no further page (the one being read is dropped by the screen's generation check)."""
        self._stop.set()

    def stop_and_wait(self) -> None:
        self.stop()
        self.wait()

    def run(self) -> None:  # the thread's body
        after: ListKey | None = self.after
        try:
            while not self._stop.is_set() and after is not None:
                page = self.store.conversation_table(self.run_id, after=after, limit=PAGE)
                if len(page):
                    self.page.emit(page, self.generation)
                if len(page) < PAGE:
                    break
                after = page.last_key()
        except SageError as exc:
            self.failed.emit(str(exc), self.generation)
            return
        self.done.emit(self.generation)


def stop_all() -> None:
    """Stop every loader and wait for it (tests, and the app's last moments)."""
    for loader in list(_RUNNING):
        loader.stop_and_wait()


atexit.register(stop_all)  # a QThread destroyed while it runs aborts the process: never at exit
