"""The Leaderboard's columns fit its width: the most telling first, the rest a right-click on the header away.

With every metric a column (25 with the per-kind counts) the table scrolled sideways even at 1440x900,
so the unsafe count or the cost sat off-screen. `ColumnFitter` orders the columns by `PRIORITY`, shows as
many as fit the table's width (each as wide as its header or widest cell) and hides the rest; the
header's context menu lists every column with a tick, and a column ticked or unticked there stays so
(the fit works around it) until "Fit Columns to the Width" forgets those choices.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtWidgets import QMenu, QTableView

PRIORITY = (
    "success_rate",
    "unsafe_actions",
    "conversations",
    "errored",
    "domain",
    "resolution_rate",
    "handled_rate",
    "policy_adherence",
    "over_escalation",
    "escalation_accuracy",
    "execution_gap",
    "cost_per_1k_usd",
    "classification_accuracy",
    "action_accuracy",
    "path_prefix_similarity",
    "resolution_quality",
    "dialogue_quality",
    "turns",
    "pass_k",
    "cost_tier",
    "sage_score",
)
"""The columns in the order a reader wants them; per-kind unsafe counts (any domain's kinds) come last."""
NEVER = frozenset({"agent"})  # the model's name is the row header
MAX_WIDTH = 150
PADDING = 26  # room for the sort arrow beside a header's text


def ranked(keys: list[str], kinds_first: bool = False) -> list[str]:
    """`keys` most telling first: PRIORITY's order, then the rest (per-kind counts) as given. With `kinds_first`
    (no row had traps: an imported audit, whose Unsafe column is '–'), the per-kind counts of unsafe acts come
    right after Success: they are what such a run says about safety."""
    known = [k for k in PRIORITY if k in keys]
    rest = [k for k in keys if k not in known]
    if kinds_first and "success_rate" in known:
        at = known.index("success_rate") + 1
        return known[:at] + rest + known[at:]
    return known + rest


class ColumnFitter(QObject):
    """Keeps a table's columns within its width, most telling first; the header's menu shows or hides any."""

    def __init__(self, table: QTableView) -> None:
        super().__init__(table)
        self.table = table
        self.chosen: dict[str, bool] = {}
        """Column key -> shown (True) or hidden (False) by the reader; the fit decides the others."""
        header = table.horizontalHeader()
        header.setSectionsMovable(False)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self.open_menu)
        header.setToolTip("Right-click for more columns")
        table.model().modelReset.connect(self.fit)
        table.viewport().installEventFilter(self)

    def keys(self) -> list[str]:
        """The model's column keys in its own order."""
        model = self.table.model()
        return [c.key for c in model.columns]  # type: ignore[attr-defined]  # LeaderboardModel

    def no_traps(self) -> bool:
        """Whether the rows on show played no adversarial case (imported runs): their Unsafe column says '–'."""
        rows = getattr(self.table.model(), "rows", [])
        return bool(rows) and not any(row.get("adversarial_cases") for row in rows)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt API
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def width_of(self, column: int) -> int:
        """What a column needs: its header's text (and sort arrow) or its widest cell, at most MAX_WIDTH."""
        header = self.table.horizontalHeader()
        text = str(self.table.model().headerData(column, Qt.Orientation.Horizontal) or "")
        needed = header.fontMetrics().horizontalAdvance(text) + PADDING
        return min(MAX_WIDTH, max(needed, self.table.sizeHintForColumn(column)))

    def fit(self) -> None:
        """Show, in PRIORITY order, the columns the width has room for (and those the reader ticked)."""
        header = self.table.horizontalHeader()
        keys = self.keys()
        room = self.table.viewport().width()
        used, full = 0, False
        for visual, key in enumerate(ranked([k for k in keys if k not in NEVER], self.no_traps())):
            column = keys.index(key)
            header.moveSection(header.visualIndex(column), visual)
            width = self.width_of(column)
            # strictly in order: a narrower, less telling column never takes the place of one that did not fit
            full = full or (key not in self.chosen and used + width > room)
            shown = self.chosen.get(key, not full)
            header.setSectionHidden(column, not shown)
            if shown:
                header.resizeSection(column, width)
                used += width
        for key in NEVER & set(keys):
            header.setSectionHidden(keys.index(key), True)

    def hidden_keys(self) -> list[str]:
        """The columns not on show, most telling first."""
        header, keys = self.table.horizontalHeader(), self.keys()
        return [k for k in ranked(keys, self.no_traps()) if k not in NEVER and header.isSectionHidden(keys.index(k))]

    def menu(self) -> QMenu:
        """Every column with a tick when shown; then Fit Columns to the Width."""
        menu = QMenu(self.table)
        header, keys, model = self.table.horizontalHeader(), self.keys(), self.table.model()
        for key in ranked([k for k in keys if k not in NEVER], self.no_traps()):
            column = keys.index(key)
            action = menu.addAction(str(model.headerData(column, Qt.Orientation.Horizontal)))
            action.setCheckable(True)
            action.setChecked(not header.isSectionHidden(column))
            action.setToolTip(str(model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) or ""))
            action.toggled.connect(lambda on, key=key: self.choose(key, on))
        menu.setToolTipsVisible(True)
        menu.addSeparator()
        menu.addAction("Fit Columns to the Width", self.forget)
        return menu

    def open_menu(self, at: QPoint) -> None:
        self.menu().popup(self.table.horizontalHeader().mapToGlobal(at))

    def choose(self, key: str, shown: bool) -> None:
        """Show or hide a column whatever the width (the reader's choice, kept until `forget`)."""
        self.chosen[key] = shown
        self.fit()

    def forget(self) -> None:
        """Drop the reader's choices: the width decides again."""
        self.chosen.clear()
        self.fit()
