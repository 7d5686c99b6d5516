"""API Keys…: enter a key per provider; it goes to the system keyring (core/llm/secrets.py), nowhere else.

A saved key is never shown again, only where it comes from (keyring or environment). Where no
keyring backend works the dialog says so, the fields are disabled, and environment variables
remain the way to give keys.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.llm import secrets

SOURCE_TEXT = {
    "keyring": "saved in the keyring",
    "environment": "set in the environment (wins over the keyring)",
    None: "not set",
}


STYLE = """
QLabel#keyringMissing { color: #92400e; background: #fffbeb; border: 1px solid #fde68a; border-radius: 6px; padding: 8px; }
QLabel#formError { color: #b91c1c; }
QLineEdit:disabled { background: #f8fafc; color: #94a3b8; }
QPushButton:disabled { color: #94a3b8; background: #f1f5f9; border-color: #e2e8f0; }
"""


class KeyRow:
    """The widgets of one provider's key."""

    def __init__(self, label: str, env_var: str):
        self.env_var = env_var
        self.label = QLabel(label)
        self.name = QLabel(env_var)
        self.name.setObjectName("hint")
        self.name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        self.field.setMinimumWidth(260)
        self.source = QLabel()
        self.source.setObjectName("hint")
        self.remove = QPushButton("Remove")
        self.remove.setToolTip(f"Delete {env_var} from the keyring")

    def refresh(self, usable: bool) -> None:
        """Show where this key comes from; never the key."""
        source = secrets.key_source(self.env_var)
        stored = secrets.stored_key(self.env_var) is not None
        self.source.setText(
            SOURCE_TEXT[source]
            if source != "environment" or not stored
            else "in the environment and the keyring (environment wins)"
        )
        if not usable:
            self.field.setPlaceholderText("no keyring here: use the environment variable")
        else:
            self.field.setPlaceholderText("•••••• saved — type to replace" if stored else "paste a key to save it")
        self.field.setEnabled(usable)
        self.remove.setEnabled(usable and stored)


class ApiKeysDialog(QDialog):
    """Keys per provider, kept in the system keyring."""

    saved = Signal(list)  # the variable names written or removed

    def __init__(self, extra_env_vars: Iterable[str] = (), parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("API Keys")
        self.setObjectName("apiKeysDialog")
        self.setStyleSheet(STYLE)
        self.usable, why = secrets.keyring_status()
        if not self.usable:
            why += " before starting SAGE Desk (for example: export OPENAI_API_KEY=…)"
        self.status = QLabel(why[0].upper() + why[1:] + ".")
        self.status.setObjectName("keyringStatus" if self.usable else "keyringMissing")
        self.status.setWordWrap(True)
        self.error = QLabel()
        self.error.setObjectName("formError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.rows: dict[str, KeyRow] = {}
        self.grid = QGridLayout()
        self.other_name = QLineEdit()
        self.other_key = QLineEdit()
        self._build(extra_env_vars)
        self.refresh()

    def _build(self, extra_env_vars: Iterable[str]) -> None:
        note = QLabel(
            "Keys never enter the run database, settings or logs. An environment variable of the same "
            "name wins over a saved key. Models behind a custom API base (Ollama, vLLM) usually need none."
        )
        note.setObjectName("hint")
        note.setWordWrap(True)
        self.grid.setHorizontalSpacing(10)
        self.grid.setColumnStretch(2, 1)
        for column, text in enumerate(("Provider", "Variable", "Key", "Comes from")):
            heading = QLabel(f"<b>{text}</b>")
            self.grid.addWidget(heading, 0, column)
        for provider in secrets.PROVIDERS:
            self.add_row(provider.label, provider.env_var)
        for env_var in extra_env_vars:
            self.add_row("Other", env_var)
        self.other_name.setPlaceholderText("another provider's variable, e.g. PERPLEXITYAI_API_KEY")
        self.other_key.setPlaceholderText("its key")
        self.other_key.setEchoMode(QLineEdit.EchoMode.Password)
        other = QHBoxLayout()
        other.addWidget(self.other_name, 1)
        other.addWidget(self.other_key, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setEnabled(self.usable)
        self.save_button.clicked.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.other_name.setEnabled(self.usable)
        self.other_key.setEnabled(self.usable)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(note)
        layout.addSpacing(6)
        layout.addLayout(self.grid)
        layout.addSpacing(6)
        layout.addWidget(QLabel("Other provider"))
        layout.addLayout(other)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(760, self.sizeHint().height())

    def add_row(self, label: str, env_var: str) -> KeyRow:
        """A row for `env_var` (the existing one when it is listed already)."""
        if env_var in self.rows:
            return self.rows[env_var]
        row = KeyRow(label, env_var)
        row.remove.clicked.connect(lambda _checked=False, name=env_var: self.remove(name))
        line = self.grid.rowCount()
        for column, widget in enumerate((row.label, row.name, row.field, row.source, row.remove)):
            self.grid.addWidget(widget, line, column)
        self.rows[env_var] = row
        row.refresh(self.usable)
        return row

    def refresh(self) -> None:
        """Show each key's source again."""
        for row in self.rows.values():
            row.refresh(self.usable)

    def save(self) -> list[str]:
        """Save every typed key to the keyring; returns the variables written."""
        typed = {name: row.field.text() for name, row in self.rows.items() if row.field.text().strip()}
        other = self.other_name.text().strip()
        if other or self.other_key.text().strip():
            if not (other and self.other_key.text().strip()):
                return self._fail("Give both the variable name and the key for the other provider.")
            if not secrets.is_valid_env_var(other):
                return self._fail(f"{other!r} is not a variable name: use letters, digits and _ (e.g. PERPLEXITYAI_API_KEY).")
            typed[other] = self.other_key.text()
        written = []
        for env_var, key in typed.items():
            try:
                secrets.save_key(env_var, key)
            except secrets.SecretsError as exc:
                return self._fail(str(exc))
            written.append(env_var)
            self.add_row("Other", env_var).field.clear()
        self.other_name.clear()
        self.other_key.clear()
        self.error.hide()
        self.refresh()
        if written:
            self.saved.emit(written)
        return written

    def remove(self, env_var: str) -> None:
        """Delete one stored key."""
        try:
            secrets.delete_key(env_var)
        except secrets.SecretsError as exc:
            self._fail(str(exc))
            return
        self.refresh()
        self.saved.emit([env_var])

    def _fail(self, text: str) -> list[str]:
        self.error.setText(text)
        self.error.show()
        return []
