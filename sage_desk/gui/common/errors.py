"""The one place errors go in the GUI: uncaught exceptions, worker errors and failed user actions.

Nothing is swallowed: every report is printed to stderr (with its traceback, unless it is an error
meant for the user, such as an unreadable database: one line) and emitted as `reported`, which the
main window shows as a dialog and a status-bar message.
"""

from __future__ import annotations

import sys
import threading
import traceback
from types import TracebackType

from PySide6.QtCore import QObject, Signal

from sage_desk.core.errors import InputError, SageError
from sage_desk.core.store.errors import plain_database_error


def describe(error: BaseException | str) -> tuple[str, str]:
    """A user-facing message and the details (every problem, or the traceback) of an error."""
    if isinstance(error, str):
        return error, ""
    if isinstance(error, InputError):
        lines = [str(p) for p in error.problems]
        head = error.problems[0].message if error.problems else str(error)
        more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
        return head + more, "\n".join(lines)
    if isinstance(error, SageError):  # meant for the user as it is (an unreadable database, a refused run): one line
        return str(error) or type(error).__name__, ""
    plain = plain_database_error(error)  # a database failure: one line; its SQL goes to the log, not the screen
    if plain is not None:
        return plain, ""
    details = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return str(error) or type(error).__name__, details


class ErrorNotifier(QObject):
    """Collects errors from anywhere (any thread) and reports them on the GUI thread."""

    reported = Signal(str, str, str)  # title, message, details
    _last_printed = ""

    def report(self, title: str, error: BaseException | str) -> None:
        """Report an error a user action or a worker ran into."""
        message, details = describe(error)
        text = f"{title}: {message}\n{details}".rstrip()
        if text != self._last_printed:  # several screens finding the same unreadable database: said once
            print(text, file=sys.stderr)
            self._last_printed = text
        self.reported.emit(title, message, details)

    def report_worker_error(self, error: BaseException) -> None:
        """Report an error raised in a background worker (safe to call from that thread)."""
        self.report("A background task failed", error)

    def excepthook(self, etype: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        """`sys.excepthook`: an uncaught exception becomes a report instead of a silent failure."""
        if issubclass(etype, KeyboardInterrupt):
            sys.__excepthook__(etype, value, tb)
            return
        value.__traceback__ = tb
        self.report("Unexpected error", value)

    def install(self) -> None:
        """Route uncaught exceptions of the GUI thread and of Python threads here."""
        sys.excepthook = self.excepthook
        threading.excepthook = self._thread_excepthook

    def _thread_excepthook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None:  # nothing to report but the type: let Python print it
            threading.__excepthook__(args)
            return
        self.excepthook(args.exc_type, args.exc_value, args.exc_traceback)

    def uninstall(self) -> None:
        """Give the hooks back."""
        sys.excepthook = sys.__excepthook__
        threading.excepthook = threading.__excepthook__
