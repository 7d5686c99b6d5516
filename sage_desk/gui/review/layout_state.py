"""What the Review screen keeps between sessions: splitter and column widths, the author, the run, the queue.

Widths come back only from the layout that saved them (`LAYOUT_VERSION`): an older layout's sizes
would squeeze today's panes for good.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray

from sage_desk.gui.review.views import fit_list_columns

if TYPE_CHECKING:
    from sage_desk.gui.review.host import ReviewHost

LAYOUT_VERSION = 2
"""Saved widths (list, panes, list columns) come back only from this layout: the first one's override
panel held the verdicts at ~527 px, so its saved sizes would squeeze the transcript on a laptop for good."""


def save_layout(screen: ReviewHost, settings: Any) -> None:
    """Remember the splitters, the list's columns, the author and the run."""
    for name, splitter in screen.splitters.items():
        settings.setValue(f"review/splitter/{name}", splitter.saveState())
    settings.setValue("review/splitter/reading", screen.reading.save_sizes())
    settings.setValue("review/list_header", screen.list.horizontalHeader().saveState())
    settings.setValue("review/layout", LAYOUT_VERSION)
    settings.setValue("review/author", screen.override.author.text())
    if screen.filters.run_id():
        settings.setValue("review/run", screen.filters.run_id())
    settings.setValue("review/queue", screen.queue.name or "")  # the queue a reviewer works through comes back


def restore_layout(screen: ReviewHost, settings: Any) -> None:
    """Put back what `save_layout` kept; widths only when this layout saved them (`LAYOUT_VERSION`)."""
    same_layout = str(settings.value("review/layout", "")) == str(LAYOUT_VERSION)
    for name, splitter in screen.splitters.items():
        state = settings.value(f"review/splitter/{name}")
        if isinstance(state, QByteArray) and same_layout:
            splitter.restoreState(state)
            screen._sized = True
            screen._list_fits_screen = False  # the last session's widths stand
    state = settings.value("review/splitter/reading")
    if isinstance(state, QByteArray):
        screen.reading.restore_sizes(state)
    header = settings.value("review/list_header")
    if isinstance(header, QByteArray) and same_layout:
        screen.list.horizontalHeader().restoreState(header)
        fit_list_columns(screen.list)  # the columns that fit this screen, not the last one
    author = settings.value("review/author")
    if author:
        screen.override.author.setText(str(author))
    run_id = settings.value("review/run")
    if run_id and not screen.filters.choose_run(str(run_id)):
        screen._wanted_run = str(run_id)
    queue = settings.value("review/queue")
    if queue:
        screen._wanted_queue = str(queue)  # entered once the queues are read, when the reviewer's name is known
