"""File dialogs that never open the files they list (issue 34).

Qt's own file dialog asks the MIME database for each listed file's icon and type, and for a name
whose extension says nothing (`sage-desk.db`) the database reads the file's first bytes. Opening
and closing the run database in the app's process releases every SQLite lock the process holds
on it (ENVIRONMENT.md), and another process may then delete the write-ahead log the app writes
into. These dialogs type files by their names only, and are always Qt's own dialog, so the same
holds on every platform theme.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QFileInfo
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QFileDialog, QFileIconProvider, QWidget


class NameOnlyIconProvider(QFileIconProvider):
    """Icons and type names from a file's name and kind, never from its contents."""

    def icon(self, what: Any) -> QIcon:  # Qt's overloads: an IconType or a QFileInfo
        if not isinstance(what, QFileInfo):
            return super().icon(what)
        kind = QFileIconProvider.IconType.Folder if what.isDir() else QFileIconProvider.IconType.File
        return super().icon(kind)

    def type(self, info: QFileInfo) -> str:
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} file" if suffix else "File"


def make_dialog(
    parent: QWidget | None,
    caption: str,
    start: str,
    filters: str,
    mode: QFileDialog.AcceptMode = QFileDialog.AcceptMode.AcceptOpen,
) -> QFileDialog:
    """A Qt (not native) file dialog that types files by name only."""
    dialog = QFileDialog(parent, caption, start, filters)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setIconProvider(NameOnlyIconProvider())
    dialog.setAcceptMode(mode)
    return dialog


def _run(dialog: QFileDialog) -> tuple[list[str], str]:
    if dialog.exec() != QFileDialog.DialogCode.Accepted:
        return [], ""
    return dialog.selectedFiles(), dialog.selectedNameFilter()


def save_file_name(parent: QWidget | None, caption: str, start: str = "", filters: str = "") -> tuple[str, str]:
    """`QFileDialog.getSaveFileName`, without opening the listed files."""
    dialog = make_dialog(parent, caption, start, filters, QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    files, chosen = _run(dialog)
    return (files[0] if files else ""), chosen


def open_file_name(parent: QWidget | None, caption: str, start: str = "", filters: str = "") -> tuple[str, str]:
    """`QFileDialog.getOpenFileName`, without opening the listed files."""
    dialog = make_dialog(parent, caption, start, filters)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    files, chosen = _run(dialog)
    return (files[0] if files else ""), chosen


def open_file_names(parent: QWidget | None, caption: str, start: str = "", filters: str = "") -> tuple[list[str], str]:
    """`QFileDialog.getOpenFileNames`, without opening the listed files."""
    dialog = make_dialog(parent, caption, start, filters)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
    return _run(dialog)


def existing_directory(parent: QWidget | None, caption: str, start: str = "") -> str:
    """`QFileDialog.getExistingDirectory`, without opening the listed files."""
    dialog = make_dialog(parent, caption, start, "")
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    files, _ = _run(dialog)
    return files[0] if files else ""
