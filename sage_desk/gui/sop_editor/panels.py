"""The problems list and the path list under the canvas (item models over plain core data)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QTableView, QVBoxLayout, QWidget

from sage_desk.core.errors import Problem
from sage_desk.core.sop.paths import Path
from sage_desk.gui.common.widgets import read_only_rows

Index = QModelIndex | QPersistentModelIndex


class RowsModel(QAbstractTableModel):
    """A read-only table over a list of rows; subclasses say how a row reads in each column."""

    headers: tuple[str, ...] = ()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.rows: list = []

    def set_rows(self, rows: list) -> None:
        """Replace every row."""
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.headers):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(self.rows[index.row()], index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(self.rows[index.row()])
        return None

    def cell(self, row, column: int) -> str:
        """The text of one cell."""
        raise NotImplementedError

    def tooltip(self, row) -> str | None:
        """The tooltip of a row."""
        return None


class ProblemsModel(RowsModel):
    """Validation problems: node and message."""

    headers = ("Node", "Problem")

    def cell(self, row: Problem, column: int) -> str:
        return (row.node or "graph") if column == 0 else row.message

    def tooltip(self, row: Problem) -> str:
        return row.message


class PathsModel(RowsModel):
    """Start-to-end paths: id, outcome, the field values that select it, its steps."""

    headers = ("Path", "Outcome", "Assignments", "Steps")

    def cell(self, row: Path, column: int) -> str:
        if column == 0:
            return row.id
        if column == 1:
            return row.outcome or "?"
        if column == 2:
            return ", ".join(f"{k}={'+'.join(v) if isinstance(v, list) else v}" for k, v in row.assignments.items()) or "(none)"
        return " → ".join(row.nodes)

    def tooltip(self, row: Path) -> str:
        actions = "\n".join(f"  {a.get('tool') or 'say'}: {a.get('args') or a.get('say') or ''}" for a in row.actions)
        return f"{row.id} → {row.outcome}\n{actions}" if actions else f"{row.id} → {row.outcome}"


def _table(model: RowsModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    read_only_rows(view, 24)
    view.horizontalHeader().setStretchLastSection(True)
    view.horizontalHeader().setHighlightSections(False)
    return view


class ProblemsPanel(QWidget):
    """Every problem of the graph; clicking one selects its node."""

    node_chosen = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = ProblemsModel(self)
        self.view = _table(self.model)
        self.view.horizontalHeader().setDefaultSectionSize(190)
        self.status = QLabel()
        self.status.setObjectName("hint")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.status)
        layout.addWidget(self.view)
        self.view.clicked.connect(self._on_clicked)
        self.view.activated.connect(self._on_clicked)

    def set_problems(self, problems: list[Problem]) -> None:
        """Show these problems."""
        self.model.set_rows(problems)
        self.status.setText(
            "No problems: every check passes." if not problems else f"{len(problems)} problem(s). Click one to select its node."
        )
        self.status.setStyleSheet(f"color: {QColor('#15803d' if not problems else '#b91c1c').name()};")

    def _on_clicked(self, index: QModelIndex) -> None:
        problem = self.model.rows[index.row()]
        if problem.node:
            self.node_chosen.emit(problem.node)


class PathsPanel(QWidget):
    """Every start-to-end path; selecting one highlights it on the canvas."""

    path_chosen = Signal(object)  # list of node ids, or None

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = PathsModel(self)
        self.view = _table(self.model)
        # paths share their beginnings (ids, values, steps): cut text from the left, where they agree
        self.view.setTextElideMode(Qt.TextElideMode.ElideLeft)
        header = self.view.horizontalHeader()
        for column, width in enumerate((250, 80, 320)):
            header.resizeSection(column, width)
        self.status = QLabel()
        self.status.setObjectName("hint")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.status)
        layout.addWidget(self.view)
        self.view.selectionModel().selectionChanged.connect(self._on_selection)

    def set_paths(self, paths: list[Path], error: str | None = None) -> None:
        """Show these paths (or why there are none)."""
        chosen = self.current_path_id()
        self.model.set_rows(paths)
        if error:
            self.status.setText(error)
        else:
            self.status.setText(
                f"{len(paths)} path(s) from start to an end. Select one to highlight it."
                if paths
                else "No complete path yet: connect the start to an end."
            )
        rows = [i for i, p in enumerate(paths) if p.id == chosen]
        if rows:
            self.view.selectRow(rows[0])
        else:
            self.path_chosen.emit(None)

    def current_path_id(self) -> str | None:
        """The id of the selected path, if any."""
        rows = self.view.selectionModel().selectedRows()
        return self.model.rows[rows[0].row()].id if rows and rows[0].row() < len(self.model.rows) else None

    def _on_selection(self, *_args) -> None:
        rows = self.view.selectionModel().selectedRows()
        self.path_chosen.emit(self.model.rows[rows[0].row()].nodes if rows else None)
