"""The workspace every screen shares: one run database, and the signals that keep screens in step.

The window owns one `Workspace`. Screens read and write runs through `workspace.store()` (opened
on first use, never at construction, so the window shows at once) and talk to each other through
its signals instead of holding references to one another:

  runs_changed()                    a run was created, progressed, finished or was deleted
  verdicts_changed(run_id)          verdicts or human overrides of a run changed
  open_conversation_requested(id)   "show this conversation in Review" (the window switches screen)
  run_chosen(run_id)                the run a reviewer works on changed (Review and Calibration follow it)
"""

from __future__ import annotations

import shutil
from typing import Any

from PySide6.QtCore import QObject, Signal, SignalInstance

from sage_desk.core.errors import SageError
from sage_desk.core.locations import sample_runs_dir
from sage_desk.gui.common.screen import ScreenDefaults


def open_store(db_url: str | None) -> Any:
    """The given database; else the user's when it has runs; else a copy of the shipped sample runs."""
    from sage_desk.core.locations import user_data_dir
    from sage_desk.core.store import Store
    from sage_desk.core.store.engine import DB_FILENAME

    if db_url:
        from sage_desk.core.store.sample import resolve

        return Store(resolve(db_url))  # `--db sample`: the shipped sample runs, read-only, as on the command line
    own = user_data_dir() / DB_FILENAME
    if own.is_file():
        store = Store(f"sqlite:///{own}")
        if store.list_runs():
            return store
        store.close()
    sample = sample_runs_dir() / "sample.db"
    if sample.is_file():
        # A copy in the user's data folder, made once per build of the samples: opening sets WAL mode
        # and may migrate, and the shipped file must stay as shipped. Named by the build, so samples
        # built again (./dev sample-runs after a code change) are shown, and an older copy, with
        # whatever a newcomer labelled in it, is left where it is rather than overwritten.
        stat = sample.stat()
        copy = user_data_dir() / f"sample-runs-{stat.st_size}-{stat.st_mtime_ns}.db"
        if not copy.is_file():
            partial = copy.with_name(copy.name + ".part")
            shutil.copyfile(sample, partial)
            partial.replace(copy)
        return Store(f"sqlite:///{copy}")
    return Store(f"sqlite:///{own}")


class Workspace(QObject):
    """The run database the screens share, opened lazily, and the signals between screens."""

    runs_changed = Signal()
    verdicts_changed = Signal(str)
    open_conversation_requested = Signal(str)
    run_chosen = Signal(str)

    def __init__(self, db_url: str | None = None, store: Any = None, parent: QObject | None = None):
        super().__init__(parent)
        self.db_url = db_url
        self._store = store
        self.run_id: str | None = None

    def choose_run(self, run_id: str | None) -> None:
        """Make `run_id` the run the screens show (emits run_chosen only when it changes)."""
        if run_id and run_id != self.run_id:
            self.run_id = run_id
            self.run_chosen.emit(run_id)

    def store(self) -> Any:
        """The open Store; opened on first call (may raise SageError when the database cannot be opened)."""
        if self._store is None:
            self._store = open_store(self.db_url)
        return self._store

    @property
    def is_open(self) -> bool:
        """Whether the database has been opened yet."""
        return self._store is not None

    def database_label(self) -> str:
        """Where the runs live, for a status line: a file path, or the URL with any password hidden."""
        if self._store is None:
            return self.db_url or "(not opened yet)"
        url = self._store.url
        if url.drivername.startswith("sqlite") and url.database:
            return url.database
        return url.render_as_string(hide_password=True)

    def close(self) -> None:
        """Release the database connection pool."""
        if self._store is not None:
            self._store.close()
            self._store = None


class StoreScreen(ScreenDefaults):
    """Mixin for a screen (before QWidget in its bases) that reads the workspace's runs.

    It opens the store when first shown, not when built, so the window appears at once, and it
    reads again on show when a workspace signal marked it stale while hidden. The screen provides
    `workspace`, `store` (None until opened), `_stale`, `notifier`, a `message` signal and `refresh()`.
    """

    workspace: Workspace
    store: Any
    _stale: bool
    notifier: Any
    message: SignalInstance

    def refresh(self) -> None:
        """Read the screen's data again from the store."""
        raise NotImplementedError

    def showEvent(self, event: Any) -> None:  # Qt API
        super().showEvent(event)  # type: ignore[misc]
        if self.store is None:
            self._open_store()
        elif self._stale:
            self.refresh()

    def _open_store(self) -> None:
        try:
            self.store = self.workspace.store()
        except SageError as exc:
            self._report_error("Could not open the run database", exc)
            return
        self.refresh()

    def _report_error(self, title: str, error: BaseException | str) -> None:
        if self.notifier is not None and hasattr(self.notifier, "report"):
            self.notifier.report(title, error)
        self.message.emit(f"{title}: {error}")
