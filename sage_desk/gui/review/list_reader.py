"""Reading the chosen run into Review's list: its first page at once, the rest behind it.

The reader shows the first `FIRST_PAGE` conversations (read on the GUI thread in milliseconds)
and, when there are more, starts a `TableLoader` that hands the rest over page by page. A newer
read drops the pages of an older one (each read has its generation), a filter or sort chosen
meanwhile holds for the rows that arrive, and the conversation on show is selected again once
its page is in.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from sage_desk.core.errors import SageError
from sage_desk.gui.review import table_loader
from sage_desk.gui.review.table_loader import TableLoader
from sage_desk.gui.review.views import fit_list_columns

if TYPE_CHECKING:
    from sage_desk.gui.review.host import ReviewHost

REFRESH_DELAY_MS = 1200
"""Runs change on every finished conversation while a run goes: re-read at most this often."""


class ListReader(QObject):
    """Reads runs into one Review screen's list model, filters and count."""

    def __init__(self, screen: ReviewHost) -> None:
        super().__init__(screen.widget())
        self.screen = screen
        self.loader: TableLoader | None = None  # reads a big run's list behind its first page
        self.generation = 0  # pages of a list read before the latest choice are dropped
        self.started = 0.0
        self.keep_when_read: str | None = None  # the conversation to select again once its page arrives

    @property
    def reading(self) -> bool:
        """True while pages of the run are still being read behind the first."""
        return self.loader is not None

    def load(self, run_id: str) -> None:
        """Show the run's first page of conversations now, and read the rest behind it."""
        screen, first_page = self.screen, table_loader.FIRST_PAGE
        screen.workspace.choose_run(run_id)
        screen.session.choose_run(run_id)
        keep = screen.detail.id if screen.detail else None
        self.stop()
        self.started = time.monotonic()
        try:
            table = screen.session.need_store().conversation_table(run_id, limit=first_page)
        except SageError as exc:
            screen._report("Could not read the run", exc)
            return
        names = agent_names(screen.store, run_id)
        screen.list_model.agent_names = names  # distinct names: two imperfect variants were both "imp….05"
        screen.list_model.set_table(table)
        fit_model_column(screen.list, names)
        fit_text_columns(screen.list)
        if getattr(screen, "_sized", False) and getattr(screen, "_list_fits_screen", False):
            screen._fit_list_to_screen()  # the list keeps every column in view at its new width
        fit_list_columns(screen.list)  # tau's column shows only for runs imported from tau
        screen.filters.set_choices(table.choices(), names)
        screen._apply_filter(keep)
        after = table.last_key()
        if len(table) < first_page or after is None:
            self._on_read(self.generation)
            return
        self.keep_when_read = keep if keep and screen.list_model.position_of(keep) is None else None
        self.loader = TableLoader(screen.session.need_store(), run_id, after, self.generation)
        self.loader.page.connect(self._on_page)
        self.loader.failed.connect(self._on_page_failed)
        self.loader.done.connect(self._on_read)
        screen.filters.set_count(screen.list_model.rowCount(), len(table), loading=True)
        self.loader.start()

    def stop(self) -> None:
        """Forget a list still being read (another run chosen, the same one read again, a queue shown)."""
        self.generation += 1
        if self.loader is not None:
            self.loader.stop()
            self.loader = None

    def _on_page(self, page: Any, generation: int) -> None:
        if generation != self.generation:
            return
        model = self.screen.list_model
        model.append_table(page)
        self.screen.filters.set_count(model.rowCount(), len(model.table), loading=True)
        if self.keep_when_read and (position := model.position_of(self.keep_when_read)) is not None:
            self.keep_when_read = None
            self.screen.select_position(position)

    def _on_page_failed(self, message: str, generation: int) -> None:
        if generation == self.generation:
            self.screen._report("Could not read the rest of the run", SageError(message))
            self._on_read(generation)

    def _on_read(self, generation: int) -> None:
        """The whole list is in: the filter lists offer every value, the count is final."""
        if generation != self.generation:
            return
        self.loader = None
        screen = self.screen
        table = screen.list_model.table
        if len(table) > table_loader.FIRST_PAGE:
            screen.filters.set_choices(table.choices())
        screen.filters.set_count(screen.list_model.rowCount(), len(table))
        # a big run takes a while to read: re-read it at most a third of the time while it changes
        screen._refresh_timer.setInterval(max(REFRESH_DELAY_MS, int(3000 * (time.monotonic() - self.started))))


def agent_names(store: object, run_id: str) -> dict[str, str]:
    """The run's agents' display names (given with --agent NAME=SPEC, else short and numbered), {} if unreadable."""
    from sage_desk.core.agents.display import names_for_runs

    try:
        return names_for_runs([store.get_run(run_id).config])  # type: ignore[attr-defined]
    except SageError:
        return {}


MODEL_COLUMN_MAX = 120


def fit_model_column(view: Any, names: dict[str, str]) -> None:
    """The Model column as wide as the run's longest display name (at most MODEL_COLUMN_MAX): 'imperfect-3' whole."""
    from sage_desk.gui.review.list_model import COLUMNS

    number = [c.key for c in COLUMNS].index("agent")
    metrics = view.fontMetrics()
    widest = max((metrics.horizontalAdvance(n) for n in names.values()), default=0) + 14
    view.horizontalHeader().resizeSection(number, max(COLUMNS[number].width, min(widest, MODEL_COLUMN_MAX)))


TEXT_COLUMN_MAX = {"case": 110, "ending": 100}
"""How wide the Case and Ending columns may grow to show their words whole."""
TEXT_SAMPLE = 500


def fit_text_columns(view: Any) -> None:
    """The Case and Ending columns as wide as their longest text as shown (up to TEXT_COLUMN_MAX): tau's
    'task13-t3' and 'handed over' read whole, where every row of a tau import was 'ta…t3' and 'han…ver'."""
    from sage_desk.gui.review.list_model import COLUMNS

    model, metrics = view.model(), view.fontMetrics()
    rows = range(min(model.rowCount(), TEXT_SAMPLE))
    for key, most in TEXT_COLUMN_MAX.items():
        number = [c.key for c in COLUMNS].index(key)
        texts = {str(model.data(model.index(row, number)) or "") for row in rows}
        widest = max((metrics.horizontalAdvance(t) for t in texts), default=0) + 14
        view.horizontalHeader().resizeSection(number, max(COLUMNS[number].width, min(widest, most)))
