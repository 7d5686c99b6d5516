"""Table models of the Compare Runs screen: metric deltas and flipped cases, over `compare_runs` data."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from sage_desk.core.export.compare_html import delta_text, fmt, interval_text

Index = QModelIndex | QPersistentModelIndex
VERDICT_COLOURS = {"REGRESSION": "#c62828", "worse": "#b26a00", "better": "#2e7d32"}


class _RowsModel(QAbstractTableModel):
    """Plain rows of dicts with fixed headers; cheap `data()`."""

    headers: tuple[str, ...] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[dict[str, Any]] = []

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.headers):
            return self.headers[section]
        return None

    def text(self, row: dict[str, Any], column: int) -> str:
        raise NotImplementedError


class DeltaModel(_RowsModel):
    """One row per metric: before, after, difference, interval, threshold, verdict."""

    headers = ("metric", "before", "after", "difference", "95% interval", "threshold", "verdict")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(row, index.column())
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 6 and row["verdict"] in VERDICT_COLOURS:
            return QColor(VERDICT_COLOURS[row["verdict"]])
        if role == Qt.ItemDataRole.TextAlignmentRole and 0 < index.column() < 6:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def text(self, row: dict[str, Any], column: int) -> str:
        cells = (
            row["metric"],
            fmt(row["a"]),
            fmt(row["b"]),
            delta_text(row["delta"]),
            interval_text(row["interval"]),
            fmt(row["threshold"]),
            row["verdict"],
        )
        return cells[column]


class FlipModel(_RowsModel):
    """One row per flipped case: case, flip, bucket, passed before and after, new catastrophic kinds."""

    headers = ("case", "flip", "bucket", "before passed", "after passed", "new catastrophic")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(row, index.column())
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 1:
            return QColor("#2e7d32" if row["kind"] == "fail->pass" else "#c62828")
        if role == Qt.ItemDataRole.ToolTipRole:
            return "Double-click: both runs' conversations of this case side by side"
        return None

    def text(self, row: dict[str, Any], column: int) -> str:
        cells = (row["case_id"], row["kind"], row["bucket"], row["a_passed"], row["b_passed"], ", ".join(row["catastrophic"]))
        return cells[column]
