"""Under the verdict table: the selected verdict in full, and the reviewer's override of it.

The panel only collects what the reviewer wants: a value per verdict, failure-mode tags per
verdict (from the domain's `failure_modes` list; hidden when it has none), and for the whole save
a reason, an optional corrected reply and an author. The screen saves them in one
`Store.add_overrides` call (override_loop.py). Buttons mirror the number keys so both ways teach
each other.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.review.session import OverrideRecord, StoredVerdict
from sage_desk.gui.review.verdict_model import SCALE, is_scored, key_help, short_source, value_text


def default_author() -> str:
    """The reviewer profile's name (`sage-desk reviewer set NAME`), or "" : never the login name."""
    from sage_desk.core.reviewers import reviewer_name

    try:
        return reviewer_name() or ""
    except OSError:  # an unreadable settings file: the reviewer types a name
        return ""


class _TagMenu(QMenu):
    """A menu of checkable tags that stays open while the reviewer ticks several."""

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # Qt API
        action = self.activeAction()
        if action is not None and action.isCheckable() and action.isEnabled():
            action.trigger()
            return
        super().mouseReleaseEvent(event)


class _ReplyEdit(QPlainTextEdit):
    """The corrected reply: Enter starts a new line here (elsewhere it saves); Esc goes back to the list."""

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            event.accept()
            return True
        return super().event(event)


class OverridePanel(QWidget):
    """The chosen verdict's rationale and history; value buttons, tags, reason, corrected reply, author and Save."""

    value_chosen = Signal(str)  # the key a button stands for ("1"-"5", "p", "x"); "" clears
    tags_chosen = Signal(object)  # the selected verdict's tags (a tuple) after the reviewer ticked one
    save_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("overridePanel")
        self.title = QLabel("No verdict selected")
        self.title.setObjectName("verdictTitle")
        self.rationale = QLabel("")
        self.rationale.setWordWrap(True)
        self.rationale.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.history = QLabel("")
        self.history.setWordWrap(True)
        self.history.setObjectName("hint")
        self.buttons_row = QHBoxLayout()
        self.buttons_row.setSpacing(4)
        self.value_buttons: list[QPushButton] = []
        self.button_keys: list[str] = []  # the key each value button stands for, in order
        for number in range(len(SCALE)):
            button = QPushButton()
            self.button_keys.append("")
            button.setObjectName("valueButton")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keep the keyboard on the list
            button.clicked.connect(lambda _checked=False, n=number: self.value_chosen.emit(self.button_keys[n]))
            button.hide()
            self.buttons_row.addWidget(button)
            self.value_buttons.append(button)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Why the machine is wrong (optional, saved with the override)")
        self.reason.setClearButtonEnabled(True)
        self.author = QLineEdit(default_author())
        self.author.setPlaceholderText("Your name")
        self.author.setMaximumWidth(140)
        self.save = QPushButton("Save && next  ⏎")
        self.save.setObjectName("saveButton")
        self.save.setToolTip("Save the keyed values (Enter) and move to the next conversation")
        self.save.clicked.connect(self.save_requested)
        self.pending = QLabel("")
        self.pending.setObjectName("pendingNote")
        self.failure_modes: list[str] = []
        self._tags: dict[int, tuple[str, ...]] = {}  # verdict id -> tags ticked, not saved yet
        self._verdict_id: int | None = None
        self.tags_menu = _TagMenu(self)
        self.tags_button = QToolButton()
        self.tags_button.setObjectName("tagsButton")
        self.tags_button.setMenu(self.tags_menu)
        self.tags_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.tags_button.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0; }")  # ▾ is in the text
        self.tags_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.tags_button.setToolTip(
            "Failure modes of this verdict, from the domain's failure_modes list (saved with its override)"
        )
        self.reply_toggle = QToolButton()
        self.reply_toggle.setCheckable(True)
        self.reply_toggle.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.reply_toggle.setToolTip("What the agent should have said (optional, saved with the overrides)")
        self.reply_toggle.toggled.connect(self._show_reply)
        self.corrected_reply = _ReplyEdit()
        self.corrected_reply.setPlaceholderText("What the agent should have said (optional)")
        self.corrected_reply.setTabChangesFocus(True)
        self.corrected_reply.setMaximumHeight(64)
        self.corrected_reply.hide()
        self.corrected_reply.textChanged.connect(self._label_reply_toggle)
        self._build()
        # rationale labels wrap (height-for-width), which splitters ignore: reserve room for three lines
        self.setMinimumHeight(150)

    def _build(self) -> None:
        value_line = QHBoxLayout()
        value_line.setSpacing(6)
        value_line.addWidget(QLabel("Set:"))
        value_line.addLayout(self.buttons_row)
        clear = QPushButton("Clear")
        clear.setObjectName("valueButton")
        clear.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        clear.setToolTip("Drop the keyed value of this verdict (0 or Backspace)")
        clear.clicked.connect(lambda: self.value_chosen.emit(""))
        value_line.addWidget(clear)
        value_line.addStretch(1)
        # three short rows that fit a laptop's verdict column (~420 px): Save ends the reason it saves,
        # the author goes with the optional extras
        why = QHBoxLayout()
        why.setSpacing(6)
        why.addWidget(QLabel("Reason:"))
        why.addWidget(self.reason, 1)
        why.addWidget(self.pending)
        why.addWidget(self.save)
        kinds = QHBoxLayout()
        kinds.setSpacing(6)
        kinds.addWidget(self.tags_button)
        kinds.addWidget(self.reply_toggle)
        kinds.addStretch(1)
        kinds.addWidget(QLabel("Author:"))
        kinds.addWidget(self.author)
        self._label_tags_button()
        self._label_reply_toggle()
        self.tags_button.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.rationale, 1, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.history)
        layout.addLayout(value_line)
        layout.addLayout(why)
        layout.addLayout(kinds)
        layout.addWidget(self.corrected_reply)

    def show_verdict(self, verdict: StoredVerdict | None, overrides: list[OverrideRecord]) -> None:
        """Show a verdict (None: nothing selected) with every override it had, newest last."""
        self._verdict_id = verdict.id if verdict is not None else None
        self._label_tags_button()
        if verdict is None:
            self.title.setText("No verdict selected")
            self.rationale.setText("Pick a verdict above (click, or ← → from the list) to read it and override it.")
            self.history.setText("")
            self.history.hide()
            self._set_buttons([])
            return
        where = [f"event #{verdict.event_seq}"] if verdict.event_seq is not None else []
        where += [f"node {verdict.node}"] if verdict.node else []
        self.title.setText(
            f"<b>{verdict.criterion}</b> · {short_source(verdict.source)}"
            + (f" · <span style='color:#64748b'>{', '.join(where)}</span>" if where else "")
        )
        self.rationale.setText(verdict.rationale or "(no rationale given)")
        mine = [o for o in overrides if (o.criterion, o.source) == (verdict.criterion, verdict.source)]
        self.history.setText(self._history(mine))
        self.history.setVisible(bool(mine))
        if is_scored(verdict):
            self._set_buttons([(k, f"{k}: {v:g}") for k, v in SCALE.items()])
        else:
            self._set_buttons([("p", "P: pass"), ("x", "X: fail")])
        tip = key_help(verdict)
        for button in self.value_buttons:
            button.setToolTip(tip)

    @staticmethod
    def _history(overrides: list[OverrideRecord]) -> str:
        if not overrides:
            return ""
        lines = []
        for o in overrides[-3:]:
            when = o.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
            human = value_text(o.human_passed, o.human_score) if o.human_value is None else o.human_value
            why = f" — “{escape(o.reason)}”" if o.reason else ""
            kind = " <b>adjudicated</b>" if o.kind == "adjudication" else ""
            tags = f" · tags: {escape(', '.join(o.tags))}" if o.tags else ""
            reply = " · corrected reply" if o.corrected_reply else ""
            lines.append(
                f"✎ {escape(o.author or 'someone')}{kind}, {when}: "
                f"{value_text(o.original_passed, o.original_score)} → {escape(human or '')}{why}{tags}{reply}"
            )
        more = f" ({len(overrides) - 3} earlier)" if len(overrides) > 3 else ""
        return "<br>".join(lines) + more

    def _set_buttons(self, specs: list[tuple[str, str]]) -> None:
        # a fixed set of buttons relabelled: buttons made and dropped per verdict lingered until the
        # event loop deleted them, laid out nowhere, and covered the panel
        for number, button in enumerate(self.value_buttons):
            if number < len(specs):
                self.button_keys[number] = specs[number][0]
                button.setText(specs[number][1])
            button.setVisible(number < len(specs))

    def set_pending_count(self, count: int) -> None:
        """Say how many keyed values wait to be saved."""
        self.pending.setText(f"{count} unsaved" if count else "")

    # --- failure-mode tags, per verdict -----------------------------------------------------

    def set_failure_modes(self, modes: list[str]) -> None:
        """The tags the run's domain offers (its `failure_modes`); none hides the control."""
        if list(modes) == self.failure_modes:
            return
        self.failure_modes = list(modes)
        self.tags_menu.clear()
        for mode in self.failure_modes:
            action = self.tags_menu.addAction(mode)
            action.setCheckable(True)
            action.toggled.connect(lambda _on=False: self._on_tag_toggled())
        self.tags_button.setVisible(bool(self.failure_modes))
        self._label_tags_button()

    def tags_of(self, verdict_id: int) -> tuple[str, ...]:
        """The tags ticked on a verdict and not saved yet."""
        return self._tags.get(verdict_id, ())

    def set_tags(self, verdict_id: int, tags: tuple[str, ...] | list[str]) -> None:
        """Tick these tags on a verdict (an empty tuple clears them)."""
        if tags:
            self._tags[verdict_id] = tuple(tags)
        else:
            self._tags.pop(verdict_id, None)
        if verdict_id == self._verdict_id:
            self._label_tags_button()

    def clear_tags(self) -> None:
        """Forget every unsaved tag (another conversation is shown)."""
        self._tags.clear()
        self._label_tags_button()

    def _on_tag_toggled(self) -> None:
        if self._verdict_id is None:
            return
        chosen = tuple(a.text() for a in self.tags_menu.actions() if a.isChecked())
        self.set_tags(self._verdict_id, chosen)
        self.tags_chosen.emit(chosen)

    def _label_tags_button(self) -> None:
        chosen = self._tags.get(self._verdict_id, ()) if self._verdict_id is not None else ()
        for action in self.tags_menu.actions():
            action.blockSignals(True)
            action.setChecked(action.text() in chosen)
            action.blockSignals(False)
        self.tags_button.setEnabled(self._verdict_id is not None)
        self.tags_button.setText(f"Tags: {', '.join(chosen)} ▾" if chosen else "Tags ▾")

    # --- the corrected reply, for the whole save --------------------------------------------

    def reply_text(self) -> str:
        """The corrected reply as typed, stripped ("" when none)."""
        return self.corrected_reply.toPlainText().strip()

    def clear_reply(self) -> None:
        """Empty the corrected reply and fold it away."""
        self.corrected_reply.clear()
        self.reply_toggle.setChecked(False)

    def set_reply(self, text: str) -> None:
        """Put back a corrected reply (a save that failed), open."""
        self.corrected_reply.setPlainText(text)
        self.reply_toggle.setChecked(bool(text))

    def _show_reply(self, shown: bool) -> None:
        self.corrected_reply.setVisible(shown)
        self._label_reply_toggle()
        if shown:
            self.corrected_reply.setFocus()

    def _label_reply_toggle(self) -> None:
        arrow = "▾" if self.reply_toggle.isChecked() else "▸"
        mark = " ✓" if self.reply_text() else ""
        self.reply_toggle.setText(f"{arrow} Corrected reply{mark}")
