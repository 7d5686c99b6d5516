"""Small widgets and resources every screen may use."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from sage_desk.core.locations import resources_dir
from sage_desk.gui.common.screen import ScreenDefaults

RESOURCES = resources_dir()


def icon(name: str) -> QIcon:
    """An icon from `resources/icons/<name>.svg`."""
    return QIcon(str(RESOURCES / "icons" / f"{name}.svg"))


def read_only_rows(view: QTableView, row_height: int) -> None:
    """A table of whole-row, single selections that cannot be edited, with fixed-height rows and no row numbers."""
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    rows = view.verticalHeader()
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(row_height)
    rows.hide()


def stylesheet() -> str:
    """The app's light stylesheet."""
    return (RESOURCES / "style.qss").read_text(encoding="utf-8").replace("@ICONS@", (RESOURCES / "icons").as_posix())


class PlaceholderScreen(ScreenDefaults, QWidget):
    """A screen that is not built yet: says so plainly, and what it will do."""

    def __init__(self, title: str, text: str, parent=None):
        super().__init__(parent)
        self.setObjectName("placeholder")
        heading = QLabel(title)
        heading.setObjectName("placeholderTitle")
        body = QLabel(text)
        body.setObjectName("placeholderText")
        body.setWordWrap(True)
        body.setFixedWidth(560)  # a fixed width lets the wrapped text get the height it needs
        body.setMinimumHeight(body.heightForWidth(560))
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        for label in (heading, body):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            layout.addWidget(label, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(2)
        self.text = text


_export_folder: list[Path] = []


def export_target(name: str) -> str:
    """Where a save dialog for an export starts: the last export's folder, else Documents (never the
    folder the app happened to be started from)."""
    from PySide6.QtCore import QStandardPaths

    if not _export_folder:
        documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        _export_folder.append(Path(documents) if documents and Path(documents).is_dir() else Path.home())
    return str(_export_folder[0] / name)


def remember_export(path: str) -> None:
    """The next export dialog starts in this file's folder."""
    if path:
        _export_folder[:] = [Path(path).parent]
