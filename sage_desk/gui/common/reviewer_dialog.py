"""The reviewer's name: a small dialog that asks for it, and the menu item that changes it.

The name is the reviewer profile of `core/reviewers.py` (`sage-desk reviewer set NAME` writes the
same one): labels carry it, and queues count who labelled what by it. The dialog checks the name
with core's `check_name` before it is kept, and never offers the login name: a person chooses.
`profile_signals().changed` tells open screens (the Review screen's Author field) the new name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout, QWidget

from sage_desk.core.errors import SageError
from sage_desk.core.reviewers import check_name, reviewer_name, set_reviewer_name

WHY = (
    "Your labels carry this name, and review queues count what you have done by it. "
    "Use the same name on every computer you review from."
)


class ProfileSignals(QObject):
    """Says when the reviewer's name changes (one per application)."""

    changed = Signal(str)


_signals: ProfileSignals | None = None


def profile_signals() -> ProfileSignals:
    """The application's one `ProfileSignals` (made on first use, owned by the application)."""
    global _signals
    if _signals is None:
        _signals = ProfileSignals(QCoreApplication.instance())
    return _signals


def current_name() -> str:
    """The profile's name, or "" when none was chosen (or the settings cannot be read)."""
    try:
        return reviewer_name() or ""
    except OSError:
        return ""


class ReviewerDialog(QDialog):
    """Asks for the reviewer's name; OK stores it as the profile (and stays off while the name is not valid)."""

    def __init__(self, parent: QWidget | None = None, reason: str = "", name: str = ""):
        super().__init__(parent)
        self.setObjectName("reviewerDialog")
        self.setWindowTitle("Reviewer name")
        self.chosen = ""
        intro = QLabel((reason + "\n\n" if reason else "") + WHY)
        intro.setWordWrap(True)
        self.name = QLineEdit(name or current_name())
        self.name.setPlaceholderText("Your name, e.g. Ines Duarte")
        self.name.setMaxLength(200)
        self.problem = QLabel("")
        self.problem.setObjectName("hint")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.name.textChanged.connect(self._check)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.name)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(420)
        self._check(self.name.text())

    def ok_button(self) -> Any:
        """The OK button (enabled only for a valid name)."""
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def _check(self, text: str) -> bool:
        try:
            check_name(text)
        except SageError as exc:
            self.problem.setText(str(exc).capitalize() + ".")
            self.ok_button().setEnabled(False)
            return False
        self.problem.setText("")
        self.ok_button().setEnabled(True)
        return True

    def accept(self) -> None:
        """Store the name as the reviewer profile, then close; a name that cannot be stored keeps the dialog open."""
        if not self._check(self.name.text()):
            return
        try:
            self.chosen = set_reviewer_name(self.name.text())
        except (SageError, OSError) as exc:
            self.problem.setText(f"Could not keep the name: {exc}")
            return
        profile_signals().changed.emit(self.chosen)
        super().accept()


def ask_reviewer_name(
    parent: QWidget | None, reason: str = "", name: str = "", then: Callable[[str], None] | None = None
) -> ReviewerDialog:
    """Open the dialog (window-modal, not blocking); `then(name)` runs once a name is stored."""
    dialog = ReviewerDialog(parent, reason, name)
    if then is not None:
        dialog.accepted.connect(lambda: then(dialog.chosen))
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog


def reviewer_action(window: QWidget) -> QAction:
    """File > Reviewer Name… for the main window."""
    action = QAction("Reviewer Name…", window)
    action.setStatusTip("The name your labels carry (the reviewer profile `sage-desk reviewer set` writes)")
    action.triggered.connect(lambda _checked=False: ask_reviewer_name(window))
    return action
