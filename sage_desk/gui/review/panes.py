"""Panes that give way: side by side in a splitter when there is room, tabs when there is not.

The Review screen reads one conversation four ways (transcript, tool calls, verdicts, route). On a
large screen they sit in splitters; on a laptop they become tabs, so no pane is squeezed to a
sliver. The splitter keeps its sizes across the switch (and across sessions, by its name).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSplitter, QStackedWidget, QTabWidget, QWidget


def _tabs(name: str) -> QTabWidget:
    tabs = QTabWidget()
    tabs.setObjectName(name)
    tabs.setDocumentMode(True)
    return tabs


class PaneGroup(QStackedWidget):
    """Titled panes in splitter slots when at least `split_from` px long (along `orientation`), all tabs below.

    `slots` says which panes share a splitter slot when split: `[[0, 1], [2]]` puts panes 0 and 1
    in two tabs of the first slot and pane 2 alone in the second.
    """

    def __init__(
        self,
        name: str,
        orientation: Qt.Orientation,
        panes: list[tuple[str, QWidget]],
        slots: list[list[int]],
        sizes: list[int],
        split_from: int,
        parent=None,
    ):
        super().__init__(parent)
        self.setObjectName(f"{name}Panes")
        self.orientation = orientation
        self.panes = panes
        self.slots = slots
        self.split_from = split_from
        self.splitter = QSplitter(orientation)
        self.splitter.setObjectName(name)
        self.splitter.setChildrenCollapsible(False)
        self.slot_tabs = [_tabs(f"{name}Slot{n}") for n in range(len(slots))]
        self.tabs = _tabs(f"{name}Tabs")
        self.addWidget(self.splitter)
        self.addWidget(self.tabs)
        self.tabbed = True  # so that the first arrangement below happens
        self.set_tabbed(False)
        self.splitter.setSizes(sizes)
        self._sizes = self.splitter.saveState()

    def set_tabbed(self, tabbed: bool) -> None:
        """Show every pane as a tab (True) or the panes in their splitter slots."""
        if tabbed == self.tabbed:
            return
        if tabbed and self.splitter.count():
            self._sizes = self.splitter.saveState()
        self.tabbed = tabbed
        if tabbed:
            for title, widget in self.panes:
                self.tabs.addTab(widget, title)
        else:
            for slot, tabs in zip(self.slots, self.slot_tabs, strict=True):
                if len(slot) == 1:
                    widget = self.panes[slot[0]][1]
                    self.splitter.addWidget(widget)
                    widget.show()  # a tab page that was not the current one comes back hidden
                    continue
                for number in slot:
                    tabs.addTab(self.panes[number][1], self.panes[number][0])
                self.splitter.addWidget(tabs)
                tabs.show()
            if hasattr(self, "_sizes"):
                self.splitter.restoreState(self._sizes)
        for number, (_title, widget) in enumerate(self.panes):
            alone = not tabbed and any(slot == [number] for slot in self.slots)
            for label in widget.findChildren(QLabel, "paneTitle"):
                label.setVisible(alone)  # a tab says it
        self.setCurrentWidget(self.tabs if tabbed else self.splitter)

    def show_pane(self, widget: QWidget) -> None:
        """Bring a pane to the front of whichever tabs hold it."""
        for tabs in (self.tabs, *self.slot_tabs):
            if tabs.indexOf(widget) >= 0:
                tabs.setCurrentWidget(widget)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt API
        super().resizeEvent(event)
        size = event.size()
        extent = size.height() if self.orientation == Qt.Orientation.Vertical else size.width()
        self.set_tabbed(extent < self.split_from)

    def save_sizes(self) -> QByteArray:
        """The splitter's state (its sizes), kept while the panes are tabs."""
        return self._sizes if self.tabbed else self.splitter.saveState()

    def restore_sizes(self, state: QByteArray) -> None:
        """Put back sizes from `save_sizes`."""
        self._sizes = state
        if not self.tabbed:
            self.splitter.restoreState(state)
