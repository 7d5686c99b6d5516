"""The leaderboard table: a QAbstractTableModel over plain metric rows, sorted by core's rules."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from sage_desk.core.export.table import (
    BAND_COLOURS,
    BAND_FILLS,
    Column,
    cell_text,
    column_value,
    columns,
    default_sorted,
    sort_rows,
    spread_text,
)

Index = QModelIndex | QPersistentModelIndex
TEXT_ROLES = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole)


class LeaderboardModel(QAbstractTableModel):
    """One row per agent model, its separate metrics as columns; the unsafe band coloured."""

    def __init__(self, parent=None, sage_view: bool = False):
        super().__init__(parent)
        self.sage_view = sage_view
        self.columns: list[Column] = columns(sage_view)
        self.rows: list[dict[str, Any]] = []
        self.sorted_by: tuple[str, bool] | None = None  # (header, descending) after a header click; None: core's order

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        """Show these rows in the default order, with a catastrophic column per unsafe-act kind of their domains."""
        self.beginResetModel()
        self.columns = columns(self.sage_view, rows) if rows else columns(self.sage_view)
        self.rows = default_sorted(rows)
        self.sorted_by = None
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.columns)

    def column_of(self, key: str) -> int:
        """The column number of a metric key."""
        return [c.key for c in self.columns].index(key)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = self.rows[index.row()], self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(column, row)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column.key == "pass_k" and row.get("pass_k"):
                return "pass^k: " + ", ".join(f"{k} {v * 100:.1f}%" for k, v in row["pass_k"].items())
            return spread_text(column, row) or column.help
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = Qt.AlignmentFlag.AlignLeft if column.kind == "text" else Qt.AlignmentFlag.AlignRight
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return row.get(column.key)
        return self._band_data(column, row, role)

    def _band_data(self, column: Column, row: dict[str, Any], role: int) -> Any:
        band = row.get("unsafe_band")
        if column.key != "unsafe_actions" or band not in BAND_FILLS:
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(QColor(BAND_FILLS[band]))
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(BAND_COLOURS[band]))
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # Qt API
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation == Qt.Orientation.Vertical:
            # the model's name, in the row header: it stays in view however far the metrics scroll
            if 0 <= section < len(self.rows) and role in TEXT_ROLES:
                row = self.rows[section]  # its display name; the whole spec on hover
                spec = row.get("spec", row["agent"])
                if role == Qt.ItemDataRole.ToolTipRole and spec != row["agent"]:
                    return f"{row['agent']} = {spec}"
                return row["agent"] if role == Qt.ItemDataRole.DisplayRole else spec
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return None
        if not 0 <= section < len(self.columns):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].header
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.columns[section].help
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """By one column, missing values last, ties in the default order."""
        if not 0 <= column < len(self.columns):
            return
        self.layoutAboutToBeChanged.emit()
        descending = order == Qt.SortOrder.DescendingOrder
        chosen = self.columns[column]
        plain = not self.rows or (chosen.key in self.rows[0] and not isinstance(self.rows[0][chosen.key], dict))
        if plain:
            self.rows = sort_rows(self.rows, chosen.key, descending)
        else:  # a value read out of a nested figure (per-kind counts, pass^k): same rules, missing last
            ordered = default_sorted(self.rows)
            present = [r for r in ordered if column_value(chosen, r) is not None]
            present.sort(key=lambda r: column_value(chosen, r), reverse=descending)
            self.rows = present + [r for r in ordered if column_value(chosen, r) is None]
        self.sorted_by = (chosen.header, descending)
        self.layoutChanged.emit()


def _display(column: Column, row: dict[str, Any]) -> str:
    text = cell_text(column, row)
    if column.key == "unsafe_actions" and row.get("unsafe_band"):
        return f"{text}  {row['unsafe_band']}"
    return text
