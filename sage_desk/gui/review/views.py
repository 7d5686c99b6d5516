"""How the Review screen's tables look and behave: the conversation list, the verdict table, titled panes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from sage_desk.gui.common.widgets import read_only_rows
from sage_desk.gui.review.list_model import COLUMNS, ConversationListModel
from sage_desk.gui.review.verdict_model import VerdictModel

VERDICT_ROW_HEIGHT = 24
VERDICT_WIDTHS = (150, 62, 78, 78)  # criterion, source, machine, human; "why" stretches
WHY_FROM = 640
"""The "Why" column shows from this table width; narrower, the criterion gets the room (the rationale is read below)."""
OPTIONAL_COLUMNS = ("bucket", "conflict")
TAU_COLUMN = "tau"
"""Shown only when the run has conversations imported from tau-bench or tau2 (their own reward)."""
"""List columns shown only while the list has room for them, in this order. A laptop's list drops them
rather than scroll sideways: the conversation's subtitle says both and the filters still choose by them."""


def titled(title: str, widget: QWidget) -> QWidget:
    """`widget` under a small pane title."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(8, 0, 8, 6)
    layout.setSpacing(2)
    label = QLabel(title)
    label.setObjectName("paneTitle")
    layout.addWidget(label)
    layout.addWidget(widget, 1)
    return box


def setup_conversation_list(view: QTableView, model: ConversationListModel, row_height: int) -> None:
    """The conversation list: one row per conversation, sortable, in the store's order until a header is clicked."""
    view.setModel(model)
    view.setObjectName("conversationList")
    read_only_rows(view, row_height)
    view.setSortingEnabled(True)
    view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    model.unsort()  # setSortingEnabled sorted once; the store's order (case, model, repeat) comes first
    view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setHighlightSections(False)
    for number, column in enumerate(COLUMNS):
        header.resizeSection(number, column.width)


def _has_tau(view: QTableView) -> bool:
    model = view.model()
    return isinstance(model, ConversationListModel) and model.table.has_tau()


def _scroll_room(view: QTableView) -> int:
    """What a table's frame and vertical scroll bar take from its width (the bar counted even before it shows)."""
    return 2 * view.frameWidth() + view.verticalScrollBar().sizeHint().width()


def _column_width(view: QTableView, number: int) -> int:
    """A column's width; a hidden column's default (Qt reports 0 for it)."""
    header = view.horizontalHeader()
    return COLUMNS[number].width if header.isSectionHidden(number) else header.sectionSize(number)


def list_width(view: QTableView, every: bool) -> int:
    """The list width that shows its columns without scrolling sideways: every column, or all but the optional."""
    keys = [c.key for c in COLUMNS]
    numbers = range(len(COLUMNS)) if every else [keys.index(k) for k in keys if k not in OPTIONAL_COLUMNS]
    if not _has_tau(view):  # tau's column shows only for runs imported from tau
        numbers = [n for n in numbers if keys[n] != TAU_COLUMN]
    return sum(_column_width(view, n) for n in numbers) + _scroll_room(view)


def fit_list_columns(view: QTableView) -> None:
    """Show the optional columns (in order) while they fit beside the others; hide the rest."""
    header = view.horizontalHeader()
    keys = [c.key for c in COLUMNS]
    header.setSectionHidden(keys.index(TAU_COLUMN), not _has_tau(view))
    optional = [keys.index(k) for k in OPTIONAL_COLUMNS]
    # not viewport().width(): during the list's own Resize event the viewport still has its old size
    room = view.width() - list_width(view, every=False)
    for number in optional:
        room -= _column_width(view, number)
        header.setSectionHidden(number, room < 0)


def setup_verdict_table(view: QTableView, model: VerdictModel) -> None:
    """The verdict table: focus stays on the list (keys act on the verdict), the rationale is read below it."""
    view.setModel(model)
    view.setObjectName("verdictTable")
    read_only_rows(view, VERDICT_ROW_HEIGHT)
    view.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # "Why" is read in full below
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setMinimumSectionSize(24)
    header.setStretchLastSection(True)
    for number, width in enumerate(VERDICT_WIDTHS):
        header.resizeSection(number, width)


def fit_verdict_columns(view: QTableView) -> None:
    """Give the criterion its full name: drop "Why" from a narrow table, cap the criterion in a wide one."""
    header = view.horizontalHeader()
    # not viewport().width(): during the table's own Resize event the viewport still has its old size; and
    # the scroll bar's room is kept even while it is hidden (it shows after this, and would cover "Human")
    width = view.width() - _scroll_room(view)
    wide = width >= WHY_FROM
    header.setSectionHidden(4, not wide)
    rest = sum(VERDICT_WIDTHS[1:])
    criterion = min(260, width - rest - 200) if wide else width - rest
    header.resizeSection(0, max(VERDICT_WIDTHS[0], criterion))
