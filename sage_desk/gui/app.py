"""Start the desktop app: the QApplication, the error notifier, the main window (or screenshots).

With SAGE_DESK_EXIT_AFTER_FIRST_WINDOW=1 the app prints how long the first window took to draw and
which heavy libraries were loaded by then, and quits (benchmarks/bench_startup.py reads the line).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from sage_desk import __version__
from sage_desk.gui.common.errors import ErrorNotifier
from sage_desk.gui.common.geometry import install_screen_fitter
from sage_desk.gui.common.tour import offer_tour
from sage_desk.gui.common.widgets import icon, stylesheet
from sage_desk.gui.main_window import MainWindow

SCREENSHOT_SIZE = (1440, 900)
EXIT_AFTER_FIRST_WINDOW = "SAGE_DESK_EXIT_AFTER_FIRST_WINDOW"
HEAVY_MODULES = ("alembic", "aiohttp", "litellm", "networkx", "mako", "pygments")
"""Libraries that each cost a noticeable part of a second to import: none belongs before the first window."""


def create_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication with SAGE Desk's names, font and stylesheet (reused when one exists)."""
    existing = QApplication.instance()
    if existing is not None and not isinstance(existing, QApplication):
        raise RuntimeError("a QCoreApplication without widgets is running: SAGE Desk needs a QApplication")
    app = existing or QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("SAGE Desk")
    app.setOrganizationName("SAGE Desk")
    app.setApplicationVersion(__version__)
    app.setWindowIcon(icon("sage-desk"))
    app.setDesktopFileName("sage-desk")  # ties windows to packaging/sage-desk.desktop (its icon, on Wayland)
    font = QFont(app.font())
    font.setPointSizeF(10)
    app.setFont(font)
    app.setStyle("Fusion")
    app.setStyleSheet(stylesheet())
    return app


def release_clipboard(app: QApplication) -> None:
    """Drop our copied graph fragment from the clipboard before Python shuts down.

    Qt frees the clipboard's QMimeData from a C exit handler, after the interpreter is gone;
    a Python-created QMimeData there crashes the process on exit (seen with PySide6 6.11).
    """
    from sage_desk.gui.sop_editor.editor import CLIPBOARD_MIME

    data = app.clipboard().mimeData()
    if data is not None and data.hasFormat(CLIPBOARD_MIME):
        app.clipboard().clear()


def seconds_since_process_start() -> float | None:
    """How long ago this process started (Linux /proc; None elsewhere), Python's own start-up included."""
    try:
        with open("/proc/self/stat") as stat, open("/proc/uptime") as uptime:
            start_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime
            return float(uptime.read().split()[0]) - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def heavy_modules_loaded() -> list[str]:
    """Which of HEAVY_MODULES are imported in this process."""
    return [name for name in HEAVY_MODULES if name in sys.modules]


class FirstWindowReport(QObject):
    """Prints, when the window first paints, the time since the process started and the heavy modules loaded; then quits."""

    def __init__(self, window: QObject, app: QApplication):
        super().__init__(window)
        self.app = app
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt API
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            elapsed = seconds_since_process_start()
            shown = "?" if elapsed is None else f"{elapsed:.3f}"
            print(f"first window {shown} s; heavy modules loaded: {' '.join(heavy_modules_loaded()) or 'none'}", flush=True)
            QTimer.singleShot(0, self.app.quit)
        return False


def virtual_screen_platform(size: tuple[int, int]) -> str:
    """The QT_QPA_PLATFORM value for an offscreen screen of `size` (a JSON file in the temp folder says so)."""
    width, height = size
    config = {
        "synchronousWindowSystemEvents": True,
        "windowFrameMargins": False,
        "screens": [
            {
                "name": "virtual",
                "x": 0,
                "y": 0,
                "width": width,
                "height": height,
                "logicalDpi": 96,
                "logicalBaseDpi": 96,
                "dpr": 1,
            }
        ],
    }
    path = Path(tempfile.gettempdir()) / f"sage-desk-screen-{width}x{height}.json"
    path.write_text(json.dumps(config))
    return f"offscreen:configfile={path}"


def run_app(screenshot_dir: str | None = None, db_url: str | None = None, size: tuple[int, int] | None = None) -> int:
    """Open the main window and run until it closes; with `screenshot_dir`, write one PNG per screen (at `size`) and exit."""
    if screenshot_dir and QApplication.instance() is None:
        # drawn offscreen on a virtual screen of exactly that size, so every window and dialog is
        # placed as on a real screen of it (and each PNG is at most that big)
        os.environ["QT_QPA_PLATFORM"] = virtual_screen_platform(size or SCREENSHOT_SIZE)
    app = create_application()
    if not screenshot_dir:
        install_screen_fitter(app)  # every window and dialog on screen (screenshots place theirs themselves)
    notifier = ErrorNotifier()
    notifier.install()
    # screenshots start from the defaults, never from (or into) the person's own settings
    home = tempfile.mkdtemp(prefix="sage-desk-shots-") if screenshot_dir else None
    window = MainWindow(settings_home=home, notifier=notifier, db_url=db_url)
    window.open_initial_graph()
    try:
        if screenshot_dir:
            from sage_desk.gui.screenshots import take_screenshots

            written = take_screenshots(window, Path(screenshot_dir), size or SCREENSHOT_SIZE)
            print("\n".join(str(p) for p in written))
            return 0
        if os.environ.get(EXIT_AFTER_FIRST_WINDOW):
            FirstWindowReport(window, app)
        else:
            QTimer.singleShot(0, lambda: offer_tour(window))  # once laid out, so the card points at the right item
        window.show()
        code = app.exec()
        release_clipboard(app)
        return code
    finally:
        notifier.uninstall()
