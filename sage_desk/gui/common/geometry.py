"""Windows that fit the screen: sized to its available geometry, a saved geometry restored only when it fits.

A window opened bigger than a laptop's screen (1400x860 on 1280x720) hides its right and bottom
edges, buttons included, and a window manager does not always shrink it. Every top-level window of
the app goes through `keep_on_screen` when it is shown (`ScreenFitter`, installed by the app), and
the main window picks its first size with `initial_size`.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

FRAME_ALLOWANCE = QSize(12, 40)
"""Room left for a window manager's title bar and borders before the frame is known (openbox: 20 px of title)."""
IGNORED_WINDOW_TYPES = (Qt.WindowType.Popup, Qt.WindowType.ToolTip, Qt.WindowType.SplashScreen, Qt.WindowType.Desktop)


def available_geometry(widget: QWidget | None = None) -> QRect:
    """The screen area a window of `widget` may use (without task bars and docks): its screen's, else the primary's."""
    screen = widget.screen() if widget is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 720)


def frame_extra(window: QWidget) -> QSize:
    """How much bigger than its client area the window's frame is: measured once shown, else FRAME_ALLOWANCE."""
    if window.isVisible():
        frame, inner = window.frameGeometry(), window.geometry()
        if frame.size() != inner.size():
            return frame.size() - inner.size()
    return FRAME_ALLOWANCE


def fit_size(preferred: QSize, available: QRect, extra: QSize = FRAME_ALLOWANCE) -> QSize:
    """`preferred`, shrunk so that with its frame it fits `available`."""
    return preferred.boundedTo(available.size() - extra)


def fits(window: QWidget, available: QRect | None = None) -> bool:
    """Whether the window, frame included, lies wholly inside the available screen area."""
    area = available or available_geometry(window)
    extra = frame_extra(window)
    outer = QRect(window.pos(), window.size() + extra)
    if window.isVisible() and window.frameGeometry().size() != window.size():
        outer = window.frameGeometry()
    return area.contains(outer)


def centre_in(window: QWidget, size: QSize, available: QRect) -> None:
    """Resize the window to `size` (never under its minimum) and centre it, frame included, in `available`."""
    window.resize(size)
    extra = frame_extra(window)
    outer = window.size() + extra
    x = available.x() + max(0, (available.width() - outer.width()) // 2)
    y = available.y() + max(0, (available.height() - outer.height()) // 2)
    window.move(x, y)


def initial_size(preferred: QSize, window: QWidget, available: QRect | None = None) -> None:
    """Give a window its first size: `preferred`, or the whole available area of a smaller screen; centred."""
    area = available or available_geometry(window)
    centre_in(window, fit_size(preferred, area, frame_extra(window)), area)


def restore_if_fits(window: QWidget, saved: object, preferred: QSize, available: QRect | None = None) -> bool:
    """Restore a saved geometry when its size fits the screen the window is on now (moved wholly onto it);
    else `initial_size`. True if restored."""
    area = available or available_geometry(window)
    if isinstance(saved, QByteArray) and window.restoreGeometry(saved):
        if window.isMaximized() or window.isFullScreen():
            return True  # the window manager fits those
        if fit_size(window.size(), area, frame_extra(window)) == window.size():
            keep_on_screen(window, area)  # its size fits: at most moved back inside
            return True
    if window.isMaximized() or window.isFullScreen():
        window.showNormal() if window.isVisible() else window.setWindowState(Qt.WindowState.WindowNoState)
    initial_size(preferred, window, area)
    return False


def keep_on_screen(window: QWidget, available: QRect | None = None) -> None:
    """Shrink a window that does not fit the available screen area and move it wholly inside (maximised ones are left)."""
    if window.isMaximized() or window.isFullScreen():
        return
    area = available or available_geometry(window)
    extra = frame_extra(window)
    size = fit_size(window.size(), area, extra)
    if size != window.size():
        window.resize(size)
    outer = QRect(window.frameGeometry().topLeft(), window.size() + extra)
    dx = min(0, area.right() - outer.right()) or max(0, area.left() - outer.left())
    dy = min(0, area.bottom() - outer.bottom()) or max(0, area.top() - outer.top())
    if dx or dy:
        window.move(window.pos().x() + dx, window.pos().y() + dy)


class ScreenFitter(QObject):
    """An application event filter: every top-level window (main window, dialog, message box) is kept on screen when shown."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt API
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow():
            if watched.windowType() not in IGNORED_WINDOW_TYPES:
                keep_on_screen(watched)
                # again once the window manager has put its frame on (its size is known only then)
                QTimer.singleShot(50, lambda w=watched: _keep_if_alive(w))
        return False


def _keep_if_alive(window: QWidget) -> None:
    try:
        if window.isVisible():
            keep_on_screen(window)
    except RuntimeError:  # deleted meanwhile (a dialog closed at once)
        pass


def install_screen_fitter(app: QApplication) -> ScreenFitter:
    """Keep every window of `app` on screen from now on (the desktop app installs it; tests do when they test it)."""
    fitter = ScreenFitter(app)
    app.installEventFilter(fitter)
    return fitter


def cut_off_widgets(window: QWidget) -> list[str]:
    """The visible widgets of `window` that stick out of their parent (so part of them is not drawn), as
    'Class objectName/text at x,y wxh'; widgets inside a scroll area's viewport may scroll and are not counted."""
    from PySide6.QtWidgets import QAbstractButton, QAbstractScrollArea, QLabel

    viewports = {id(a.viewport()) for a in window.findChildren(QAbstractScrollArea)}
    found = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or widget.isWindow() or widget.width() <= 0 or widget.height() <= 0:
            continue
        parent = widget.parentWidget()
        chain, inside_scroll = parent, False
        while chain is not None and chain is not window:
            if id(chain) in viewports:
                inside_scroll = True
                break
            chain = chain.parentWidget()
        if inside_scroll or parent is None or id(parent) in viewports:
            continue
        if not parent.rect().adjusted(-1, -1, 1, 1).contains(widget.geometry()):
            text = widget.text() if isinstance(widget, (QAbstractButton, QLabel)) else ""
            name = widget.objectName() or text[:30]
            g = widget.geometry()
            found.append(
                f"{type(widget).__name__} {name!r} at {g.x()},{g.y()} {g.width()}x{g.height()} "
                f"in {type(parent).__name__} {parent.width()}x{parent.height()}"
            )
    return found
