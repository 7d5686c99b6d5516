"""The Review screen as its helpers see it: the parts that list_reader.py, layout_state.py,
compare.py and build.py read and call, written once here, so they need not import the screen that imports them.

What Review shows and works on (the store, the run, conversation and verdict chosen, filters, the
queue) is the Qt-free `ReviewSession` (core/review/session.py); this protocol names the widgets and
the few screen steps the helpers still reach for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer, SignalInstance
    from PySide6.QtWidgets import QDialog, QLabel, QSplitter, QTableView, QWidget

    from sage_desk.core.review.session import ReviewSession, Store
    from sage_desk.gui.common.workspace import Workspace
    from sage_desk.gui.review.blind import BlindVerdictModel
    from sage_desk.gui.review.detail import ConversationDetail, DetailLoader
    from sage_desk.gui.review.filter_bar import FilterBar
    from sage_desk.gui.review.list_model import ConversationListModel
    from sage_desk.gui.review.override_panel import OverridePanel
    from sage_desk.gui.review.panes import PaneGroup
    from sage_desk.gui.review.path_view import PathView
    from sage_desk.gui.review.queue_bar import QueueBar
    from sage_desk.gui.review.queue_mode import QueueMode
    from sage_desk.gui.review.slots import SlotsPanel
    from sage_desk.gui.review.transcript import TimelineView, TranscriptView


class ReviewHost(Protocol):
    """The Review screen's parts its helpers use (ReviewScreen has them)."""

    workspace: Workspace
    session: ReviewSession
    detail: ConversationDetail | None
    loader: DetailLoader | None
    filters: FilterBar
    list: QTableView
    list_model: ConversationListModel
    verdict_model: BlindVerdictModel
    verdicts: QTableView
    override: OverridePanel
    queue: QueueMode
    queue_bar: QueueBar
    title: QLabel
    subtitle: QLabel
    slots: SlotsPanel
    transcript: TranscriptView
    timeline: TimelineView
    route: PathView
    reading: PaneGroup
    empty: QLabel
    """Shown instead of the list and the conversation while the database holds no run."""
    splitters: dict[str, QSplitter]
    compare_dialog: QDialog | None
    """The last Compare dialog opened (compare.open_compare)."""
    message: SignalInstance
    _refresh_timer: QTimer
    _sized: bool
    _list_fits_screen: bool
    _wanted_run: str | None
    _wanted_queue: str | None

    @property
    def store(self) -> Store | None:
        """The run database Review reads (the session's)."""
        ...

    def widget(self) -> QWidget:
        """The screen as a widget: the parent of the dialogs it opens."""
        ...

    def select_position(self, position: int, centre: bool = False) -> None:
        """Select a row of the list, which shows its conversation."""
        ...

    def _apply_filter(self, keep: str | None = None) -> None: ...

    def _fit_list_to_screen(self) -> None: ...

    def _report(self, title: str, error: BaseException | str) -> None: ...
