"""Where the app keeps its settings: an INI file in the user data folder.

`SAGE_DESK_HOME` (or the `home` argument, which tests use) moves it, so tests and screenshots
never touch a person's real settings.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from sage_desk.core.locations import user_data_dir

SETTINGS_FILE = "settings.ini"


def open_settings(home: str | Path | None = None) -> QSettings:
    """The app's settings, stored in `home` (default: the user data folder)."""
    folder = Path(home) if home is not None else user_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return QSettings(str(folder / SETTINGS_FILE), QSettings.Format.IniFormat)
