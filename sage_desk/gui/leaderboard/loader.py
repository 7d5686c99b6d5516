"""Reading runs' metric inputs off the GUI thread, for the Leaderboard.

`results_for_runs` reads every conversation and verdict of a run: 0.4 s for the 1,458-conversation
sample, and it grows with the run. `MetricsThread` does it on a thread and reports once, through
a queued signal, with the generation it was started under so the screen can drop an answer that
a newer write made stale. Running threads are kept in `_RUNNING` until they finish, so a screen
closed mid-read never destroys a running QThread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QThread, Signal

from sage_desk.core.export.leaderboard import leaderboard_report
from sage_desk.core.metrics.load import results_for_runs

if TYPE_CHECKING:
    from sage_desk.core.store import Store

_RUNNING: set[QThread] = set()


class MetricsThread(QThread):
    """Reads the given runs; emits `loaded(generation, {run id: results})` or `failed(generation, message)`."""

    loaded = Signal(int, object)
    failed = Signal(int, str)

    def __init__(self, store: Store, run_ids: list[str], generation: int) -> None:
        super().__init__()  # no parent: it must outlive a screen closed mid-read
        self.store, self.run_ids, self.generation = store, list(run_ids), generation
        self.setObjectName("leaderboard-metrics")
        self.finished.connect(self._forget)

    def start_reading(self) -> None:
        """Start, kept alive until finished whatever happens to the screen that asked."""
        _RUNNING.add(self)
        self.start()

    def run(self) -> None:  # the thread's body: reads only, never touches a widget
        try:
            results = {run_id: results_for_runs(self.store, [run_id]) for run_id in self.run_ids}
        except Exception as exc:  # handed to the GUI, which reports it
            self.failed.emit(self.generation, f"{type(exc).__name__}: {exc}")
        else:
            self.loaded.emit(self.generation, results)

    def _forget(self) -> None:
        _RUNNING.discard(self)
        self.deleteLater()


class ReportThread(QThread):
    """Computes the leaderboard report of results already read (0.4 s on 2,430 conversations: a stall on the
    GUI thread each time runs were picked); emits `done(ticket, report)`, the ticket telling a stale one apart."""

    done = Signal(int, object)

    def __init__(self, results: list, domain: str | None, ticket: int) -> None:
        super().__init__()  # no parent: it must outlive a screen closed mid-computation
        self.results, self.domain, self.ticket = results, domain, ticket
        self.setObjectName("leaderboard-report")
        self.finished.connect(self._forget)

    def start_computing(self) -> None:
        """Start, kept alive until finished whatever happens to the screen that asked."""
        _RUNNING.add(self)
        self.start()

    def run(self) -> None:  # the thread's body: pure computation over plain results, never a widget
        self.done.emit(self.ticket, leaderboard_report(self.results, self.domain))

    def _forget(self) -> None:
        _RUNNING.discard(self)
        self.deleteLater()
