"""The app's file dialogs never open the files they list (issue 34).

A process's POSIX locks on a file go when any code in it closes a descriptor of that file; Qt's
stock dialog sniffs the contents of a file whose name says nothing (`team.db`), which drops the
SQLite locks the app's store holds. The test holds such a lock, lists the folder in a dialog,
and asks another process whether the lock is still there.
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QListView

from sage_desk.gui.common import file_dialogs

LOCKED_BYTE = 100

ASK_LOCK = """
import fcntl, struct, sys
fd = open(sys.argv[1], "rb+")
flock = struct.pack("hhxxxxqqixxxx", fcntl.F_WRLCK, 0, int(sys.argv[2]), 1, 0)
got = fcntl.fcntl(fd, fcntl.F_GETLK, flock)
print("held" if struct.unpack("hhxxxxqqixxxx", got)[0] != fcntl.F_UNLCK else "free")
"""


def _lock_is_held(path: Path) -> bool:
    out = subprocess.run(
        [sys.executable, "-c", ASK_LOCK, str(path), str(LOCKED_BYTE)], capture_output=True, text=True, check=True, timeout=30
    )
    return out.stdout.strip() == "held"


def _list_folder(qtbot, dialog: QFileDialog, folder: Path) -> None:
    dialog.setDirectory(str(folder))
    dialog.show()
    qtbot.waitExposed(dialog)
    views = dialog.findChildren(QListView)
    qtbot.waitUntil(lambda: any(v.model() is not None and v.model().rowCount(v.rootIndex()) >= 2 for v in views), timeout=5000)
    qtbot.wait(600)  # icons are asked for as the rows are painted, after they are listed
    dialog.reject()


@pytest.fixture
def locked_db(tmp_path: Path):
    path = tmp_path / "team.db"
    path.write_bytes(b"\x00" * 4096)  # its name says nothing of its type: the stock dialog reads it
    (tmp_path / "notes.txt").write_text("x")
    handle = open(path, "rb+")  # held for the test, as the store's connection holds its file
    fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, LOCKED_BYTE)
    assert _lock_is_held(path)
    yield path
    handle.close()


def test_the_apps_dialogs_leave_the_databases_locks_alone(qtbot, locked_db: Path) -> None:
    dialog = file_dialogs.make_dialog(
        None, "Export calibration set", str(locked_db.parent), "", QFileDialog.AcceptMode.AcceptSave
    )
    qtbot.addWidget(dialog)
    _list_folder(qtbot, dialog, locked_db.parent)
    assert _lock_is_held(locked_db), "listing the folder released this process's lock on the database file"


def test_a_stock_dialog_would_release_them(qtbot, locked_db: Path) -> None:
    """Why the app has its own: Qt's dialog, as it comes, opens the file (and the lock is gone)."""
    dialog = QFileDialog(None, "stock", str(locked_db.parent))
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    qtbot.addWidget(dialog)
    _list_folder(qtbot, dialog, locked_db.parent)
    assert not _lock_is_held(locked_db)


def test_no_screen_calls_qts_static_dialogs() -> None:
    """Every file dialog of the app goes through gui/common/file_dialogs.py."""
    gui = Path(__file__).parents[2] / "sage_desk" / "gui"
    static = ("getSaveFileName", "getOpenFileName", "getOpenFileNames", "getExistingDirectory")
    callers = [
        f"{p.relative_to(gui)}"
        for p in gui.rglob("*.py")
        if p.name != "file_dialogs.py" and any(f"QFileDialog.{name}(" in p.read_text(encoding="utf-8") for name in static)
    ]
    assert not callers, f"these call Qt's own dialogs, which open the files they list: {callers}"
