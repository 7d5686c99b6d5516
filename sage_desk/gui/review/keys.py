"""The Review screen's keyboard: one table of shortcuts, the actions made from it, and the `?` dialog."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget


@dataclass(frozen=True)
class Shortcut:
    """One keyboard command of the Review screen."""

    name: str
    keys: tuple[str, ...]
    text: str
    help: str


SHORTCUTS = (
    Shortcut("next", ("J",), "Next Conversation", "J or ↓ — next conversation"),
    Shortcut("previous", ("K",), "Previous Conversation", "K or ↑ — previous conversation"),
    Shortcut("next_verdict", ("]",), "Next Verdict", "→ or ] — next verdict of this conversation"),
    Shortcut("previous_verdict", ("[",), "Previous Verdict", "← or [ — previous verdict"),
    Shortcut("pass", ("P",), "Pass", "P — pass (on a scored verdict: pass without a score)"),
    Shortcut("fail", ("X",), "Fail", "X — fail (on a scored verdict: fail without a score)"),
    Shortcut("key1", ("1",), "Score 0.00", "1 — score 0.00 (scored judge verdicts)"),
    Shortcut("key2", ("2",), "Score 0.25", "2 — score 0.25 (scored judge verdicts)"),
    Shortcut("key3", ("3",), "Score 0.50", "3 — score 0.50 (scored judge verdicts)"),
    Shortcut("key4", ("4",), "Score 0.75", "4 — score 0.75 (scored judge verdicts)"),
    Shortcut("key5", ("5",), "Score 1.00", "5 — score 1.00 (scored judge verdicts)"),
    Shortcut("clear", ("0", "Backspace"), "Clear Keyed Value", "0 or Backspace — drop the keyed value of this verdict"),
    Shortcut(
        "save",
        ("Return", "Enter"),
        "Save and Next",
        "Enter — save the keyed values (with the reason) and go to the next conversation",
    ),
    Shortcut("reason", ("R",), "Type a Reason", "R — type the reason (Enter saves, Esc goes back to the list)"),
    Shortcut("search", ("Ctrl+F",), "Search", "Ctrl+F — search cases, ids, models, failed verdicts and transcripts"),
    Shortcut("failures", ("F",), "Failures Only", "F — show only conversations with a failed rule"),
    Shortcut("compare", ("C",), "Compare…", "C — compare this conversation with another of the same case"),
    Shortcut(
        "toggle_list", ("L",), "Show or Hide the List", "L — fold the conversation list away to read wide, or bring it back"
    ),
    Shortcut("list", ("Esc",), "Back to the List", "Esc — back to the conversation list"),
    Shortcut("refresh", ("F5",), "Refresh", "F5 — read the runs and this run's conversations again"),
    Shortcut(
        "next_item",
        ("N",),
        "Next Queue Item",
        "N — your next item of the review queue (queue mode; keyed values are saved first)",
    ),
    Shortcut("help", ("?",), "Review Shortcuts", "? — this list"),
)

MENU = (
    "next",
    "previous",
    "next_verdict",
    "previous_verdict",
    None,
    "save",
    "reason",
    "clear",
    None,
    "search",
    "failures",
    "compare",
    "toggle_list",
    "refresh",
    None,
    "next_item",
    None,
    "help",
)
"""The main window's Review menu, by shortcut name (None: a separator)."""
TOOLBAR = ("refresh", None, "compare", "help")
"""The Review buttons of the main toolbar, by shortcut name (None: a separator)."""


def make_actions(owner: QWidget, slots: dict[str, Callable[[], None]]) -> dict[str, QAction]:
    """One QAction per shortcut, live while focus is anywhere inside `owner` (text fields keep their keys)."""
    actions = {}
    for shortcut in SHORTCUTS:
        action = QAction(shortcut.text, owner)
        action.setShortcuts([QKeySequence(k) for k in shortcut.keys])
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.setToolTip(shortcut.help)
        action.triggered.connect(lambda _checked=False, slot=slots[shortcut.name]: slot())
        owner.addAction(action)
        actions[shortcut.name] = action
    return actions


def shortcuts_dialog(parent: QWidget) -> QDialog:
    """A dialog listing the Review screen's keys (opened with `?`)."""
    dialog = QDialog(parent)
    dialog.setObjectName("reviewShortcuts")
    dialog.setWindowTitle("Review shortcuts")
    rows = "".join(
        f"<tr><td style='padding:3px 16px 3px 0'><b>{s.help.split(' — ')[0]}</b></td><td>{s.help.split(' — ', 1)[1]}</td></tr>"
        for s in SHORTCUTS
    )
    intro = (
        "<p>Review from the keyboard: move with J/K, pick a verdict with ← →, key a value (P or X "
        "on a pass/fail verdict, 1–5 on a score), "
        "add a reason if you like, and press Enter to save and move on.</p>"
    )
    label = QLabel(f"{intro}<table>{rows}</table>")
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.close)
    layout = QVBoxLayout(dialog)
    layout.addWidget(label)
    layout.addWidget(buttons)
    dialog.resize(560, 560)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
