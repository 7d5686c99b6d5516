"""The Review screen's widgets laid out: the filter bar over the list beside the conversation, and
the list's width (fitted to the screen, folded away with L).

It sees the screen through host.py's `ReviewHost`, so it need not import the screen that imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from sage_desk.gui.review.panes import PaneGroup
from sage_desk.gui.review.views import list_width, setup_conversation_list, setup_verdict_table, titled

if TYPE_CHECKING:
    from sage_desk.gui.review.host import ReviewHost

ROW_HEIGHT = 26
READING_SPLIT_FROM = 600
"""The transcript over the route from this height of the detail pane; all tabs below it."""
DETAIL_WIDTH = 860
"""What the conversation's side wants beside the list (a transcript of ~400 px and the verdicts): when the
screen leaves it less, the list starts without its optional columns (Bucket, Conflict)."""
EMPTY_TEXT = (
    "No runs yet: start one in Runs or with `sage-desk run`, then review it here "
    "(or look at the shipped sample runs: `sage-desk --db sample`)."
)
UNFOLDED_WIDTH = "unfoldedWidth"
"""The main splitter's property keeping the list's width while it is folded away."""


def build(host: ReviewHost) -> None:
    """Lay out the screen's widgets (made by the screen) and set `host.reading` and `host.empty`."""
    screen = host.widget()
    setup_conversation_list(host.list, host.list_model, ROW_HEIGHT)
    host.list.installEventFilter(screen)
    setup_verdict_table(host.verdicts, host.verdict_model)
    host.verdicts.installEventFilter(screen)
    host.title.setObjectName("conversationTitle")
    host.subtitle.setObjectName("conversationSub")
    host.subtitle.setWordWrap(True)
    host.title.setWordWrap(True)
    host.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    # the verdicts get a full-height column (every verdict in view); the transcript shares its
    # column with the tool calls (a tab: the calls are in the transcript too) and the route
    host.reading = PaneGroup(
        "reading",
        Qt.Orientation.Vertical,
        [
            ("Transcript", titled("Transcript", host.transcript)),
            ("Tool calls", titled("Tool calls", host.timeline)),
            ("Route", host.route),
        ],
        [[0, 1], [2]],
        [420, 300],
        READING_SPLIT_FROM,
    )
    panes = _split(host, "panes", Qt.Orientation.Horizontal, [host.reading, _verdict_box(host)], [460, 480])
    detail = QWidget()
    column = QVBoxLayout(detail)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    column.addWidget(host.title)
    column.addWidget(host.subtitle)
    column.addWidget(host.slots)
    column.addWidget(panes, 1)
    main = _split(host, "main", Qt.Orientation.Horizontal, [host.list, detail], [list_width(host.list, every=True), 720])
    main.setStretchFactor(0, 0)
    main.setStretchFactor(1, 1)
    main.setCollapsible(0, True)  # the list folds away (drag its edge, or L) to read one conversation wide

    def dragged(*_: object) -> None:
        host._list_fits_screen = False  # the reviewer chose the list's width: it stays

    main.splitterMoved.connect(dragged)
    host.empty = QLabel(EMPTY_TEXT)
    host.empty.setObjectName("placeholderText")
    host.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
    host.empty.hide()
    layout = QVBoxLayout(screen)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(host.filters)
    layout.addWidget(host.queue_bar)
    layout.addWidget(host.empty, 1)
    layout.addWidget(main, 1)


def _split(host: ReviewHost, name: str, orientation: Qt.Orientation, widgets: list[QWidget], sizes: list[int]) -> QSplitter:
    splitter = QSplitter(orientation)
    splitter.setChildrenCollapsible(False)
    for widget in widgets:
        splitter.addWidget(widget)
    splitter.setSizes(sizes)
    host.splitters[name] = splitter
    return splitter


def _verdict_box(host: ReviewHost) -> QWidget:
    box = titled("Verdicts", host.verdicts)
    box.setToolTip("Rule verdicts and judge scores. Pick one to see its event and node; number keys set the human value.")
    layout = box.layout()
    assert layout is not None  # titled() lays the box out
    layout.addWidget(host.override)
    return box


def fit_list_to_screen(host: ReviewHost) -> None:
    """The list as wide as its columns (its optional ones only when the conversation keeps
    `DETAIL_WIDTH`), the rest to the conversation; a folded list stays folded."""
    main = host.splitters["main"]
    total = sum(main.sizes())
    if total <= 0 or main.sizes()[0] == 0:
        return
    full = list_width(host.list, every=True)
    width = full if total - full >= DETAIL_WIDTH else list_width(host.list, every=False)
    main.setSizes([width, max(total - width, 400)])


def toggle_list(host: ReviewHost) -> None:
    """Fold the conversation list away (the detail gets the width) or bring it back."""
    main = host.splitters["main"]
    sizes = main.sizes()
    if sizes[0] > 0:
        main.setProperty(UNFOLDED_WIDTH, sizes[0])
        main.setSizes([0, sizes[0] + sizes[1]])
    else:
        kept = main.property(UNFOLDED_WIDTH)
        width = kept if isinstance(kept, int) else list_width(host.list, every=False)
        main.setSizes([width, max(sizes[1] - width, 0)])
