"""The PySide6 desktop app: one main window, one screen per job."""
