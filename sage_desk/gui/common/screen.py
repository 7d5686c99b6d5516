"""What the main window asks of a screen, written once: its title, menus and toolbar, its saved state,
whether it may close, and the two signals it may send (a status message, a title change).

A screen mixes in `ScreenDefaults` (before QWidget) and overrides what it has; the main window asks
every screen the same questions through `as_screen`, instead of probing each with `hasattr`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings, SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QWidget

Menus = dict[str, list["QAction | None"]]
"""Menu title -> its actions (None: a separator)."""


class Screen(Protocol):
    """One screen of the main window."""

    message: SignalInstance | None
    """A short note for the status bar (str), if the screen sends any."""
    title_changed: SignalInstance | None
    """Sent when `window_title` changes, if it ever does."""

    def window_title(self) -> str:
        """What the window's title starts with while the screen shows ('' for nothing)."""
        ...

    def menus(self) -> Menus:
        """The screen's menus (`&File` actions join the window's File menu)."""
        ...

    def toolbar_actions(self) -> list[QAction | None]:
        """The toolbar's actions while the screen shows (None: a separator)."""
        ...

    def restore_state(self, settings: QSettings) -> None:
        """Put back what `save_state` kept."""
        ...

    def save_state(self, settings: QSettings) -> None:
        """Keep what the screen restores next session."""
        ...

    def can_close(self) -> bool:
        """Whether the window may close now (a screen may ask the user first)."""
        ...


class ScreenDefaults:
    """Every part of `Screen` a screen does not need: no title, menus, toolbar or state; always closable."""

    message: SignalInstance | None = None
    title_changed: SignalInstance | None = None

    def window_title(self) -> str:
        """No title of its own."""
        return ""

    def menus(self) -> Menus:
        """No menus of its own."""
        return {}

    def toolbar_actions(self) -> list[QAction | None]:
        """No toolbar."""
        return []

    def restore_state(self, settings: QSettings) -> None:
        """Nothing kept."""

    def save_state(self, settings: QSettings) -> None:
        """Nothing to keep."""

    def can_close(self) -> bool:
        """Nothing to lose."""
        return True


def as_screen(widget: QWidget) -> Screen:
    """The widget as a `Screen`: itself when it mixes in `ScreenDefaults`, else one with every default
    (a stand-in widget in a test)."""
    return widget if isinstance(widget, ScreenDefaults) else ScreenDefaults()
