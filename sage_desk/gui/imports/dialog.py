"""File > Import Conversations…: production conversation logs into a run, as `sage-desk import` makes one.

The dialog takes the files, their format (guessed from the first file), the domain to place them
on, a run name and two switches (mask personal data, skip bad lines). The import runs in
`ImportThread`, never on the GUI thread, with a busy bar; the dialog then shows what was read,
imported, left out as already imported, skipped (FILE:LINE and why) and masked, and how many
conversations need a slot. A file with bad lines and "Skip bad lines" off imports nothing and
lists the lines. "Open in Review" shows the new run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.errors import DomainError, InputError, SageError
from sage_desk.core.imports.guess import guess_formats
from sage_desk.core.locations import shipped_domains
from sage_desk.gui.common import file_dialogs
from sage_desk.gui.common.async_thread import AsyncThread, Outcome
from sage_desk.gui.imports.summary import problems_html, summary_html

if TYPE_CHECKING:
    from sage_desk.core.store import Store

OTHER_FOLDER = "Other folder…"
FORMAT_HELP = {
    "openai": "openai — one {id, messages, metadata} per JSONL line (chat API messages)",
    "tau-bench": "tau-bench — a trajectory list (task_id, trial, reward, traj)",
    "tau2": "tau2 — a tau2-bench results file (simulations with their messages)",
    "events": "events — SAGE Desk's own records (sage-desk export-results --events)",
}
FILE_FILTER = "Conversation logs (*.jsonl *.json *.ndjson);;All files (*)"


class ImportThread(AsyncThread):
    """Imports files into the store once; `ended(Outcome)` carries the `ImportSummary` or the error."""

    def __init__(
        self,
        store: Store,
        files: Sequence[str],
        domain: str,
        fmt: str,
        name: str | None,
        redact: bool,
        skip_bad: bool,
        parent: Any = None,
    ):
        super().__init__(parent)
        self.store, self.files, self.domain, self.fmt = store, list(files), domain, fmt
        self.name, self.redact, self.skip_bad = name, redact, skip_bad
        self.setObjectName("import-conversations")

    async def work(self) -> Any:
        from sage_desk.core.imports.importer import import_files

        return import_files(
            self.store, self.files, self.domain, self.fmt, name=self.name, redact=self.redact, skip_bad=self.skip_bad
        )


class ImportDialog(QDialog):
    """Pick logs, their format and domain, import them in the background, read the summary, open the run."""

    imported = Signal(object)  # ImportSummary of an import that made a run
    open_requested = Signal(str)  # run id: show it in Review

    def __init__(self, store_factory: Any, settings: Any = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Import Conversations")
        self.setObjectName("importConversationsDialog")
        self.store_factory = store_factory
        self.settings = settings
        self._worker: ImportThread | None = None
        self.summary: Any = None
        self.run_id: str | None = None
        self._format_touched = False
        app = QCoreApplication.instance()
        if app is not None:  # an import is one write: let it finish (or leave nothing) rather than kill its thread
            app.aboutToQuit.connect(self._wait)
        self._build()
        self.resize(720, 600)

    # --- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        intro = QLabel(
            "Production conversations become a run: each one is placed on the domain's SOP graph from what "
            "it shows, and read by the same rules as a simulated run. Content already imported is left out."
        )
        intro.setWordWrap(True)
        intro.setObjectName("hint")
        self.files = QListWidget()
        self.files.setObjectName("importFiles")
        self.files.setMinimumHeight(64)
        self.files.setMaximumHeight(80)  # three files in view; the summary below gets the room
        self.add_button = QPushButton("Add Files…")
        self.add_button.clicked.connect(self.pick_files)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove_selected)
        file_buttons = QVBoxLayout()
        file_buttons.addWidget(self.add_button)
        file_buttons.addWidget(self.remove_button)
        file_buttons.addStretch(1)
        file_row = QHBoxLayout()
        file_row.addWidget(self.files, 1)
        file_row.addLayout(file_buttons)
        from sage_desk.core.imports.formats import FORMATS  # the readers bring the domain loader: not at start

        self.format_combo = QComboBox()
        for fmt in FORMATS:
            self.format_combo.addItem(FORMAT_HELP.get(fmt, fmt), fmt)
        self.format_combo.activated.connect(self._on_format_picked)
        self.format_note = QLabel("")
        self.format_note.setObjectName("hint")
        self.domain_combo = QComboBox()
        self._fill_domains()
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("default: the first file's name")
        self.redact_box = QCheckBox("Mask personal data (e-mail addresses, phone, card and IBAN numbers) before storing")
        self.redact_box.setChecked(True)
        self.skip_box = QCheckBox("Skip bad lines (import the good conversations of a file with bad lines)")
        form = QFormLayout()
        form.addRow("Files", file_row)
        format_column = QVBoxLayout()
        format_column.setSpacing(2)
        format_column.addWidget(self.format_combo)
        format_column.addWidget(self.format_note)
        form.addRow("Format", format_column)
        form.addRow("Domain", self.domain_combo)
        form.addRow("Run name", self.name_edit)
        form.addRow("", self.redact_box)
        form.addRow("", self.skip_box)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy: an import reports no steps
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.progress.hide()
        self.status = QLabel("")
        self.status.setObjectName("importStatus")
        self.status.setWordWrap(True)
        self.report = QTextBrowser()
        self.report.setObjectName("importSummary")
        self.report.setOpenLinks(False)
        self.report.hide()
        self.import_button = QPushButton("Import")
        self.import_button.setDefault(True)
        self.import_button.clicked.connect(self.start)
        self.open_button = QPushButton("Open in Review")
        self.open_button.setToolTip("Show the imported run's conversations in Review")
        self.open_button.clicked.connect(self._open_run)
        self.open_button.hide()
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.report, 1)
        layout.addStretch(0)
        layout.addLayout(buttons)

    def _fill_domains(self) -> None:
        for folder in shipped_domains():
            self.domain_combo.addItem(folder.name, folder.name)  # by name, as `sage-desk import --domain` takes it
            self.domain_combo.setItemData(self.domain_combo.count() - 1, str(folder), Qt.ItemDataRole.ToolTipRole)
        self.domain_combo.addItem(OTHER_FOLDER, "")
        last = str(self.settings.value("import/domain", "") or "") if self.settings is not None else ""
        if last and self.domain_combo.findData(last) < 0 and Path(last).is_dir():
            self.domain_combo.insertItem(0, Path(last).name, last)
        self.domain_combo.setCurrentIndex(max(0, self.domain_combo.findData(last or "northline")))
        self.domain_combo.activated.connect(self._on_domain_picked)

    def _on_domain_picked(self, index: int) -> None:
        if self.domain_combo.itemData(index):
            return
        folder = file_dialogs.existing_directory(self, "Domain folder (with domain.yaml and sop.yaml)")
        if folder:
            self.add_domain_folder(folder)
        else:
            self.domain_combo.setCurrentIndex(0)

    def add_domain_folder(self, folder: str | Path) -> None:
        """Offer a domain folder (as "Other folder…" does) and pick it."""
        self.domain_combo.insertItem(0, Path(folder).name, str(folder))
        self.domain_combo.setItemData(0, str(folder), Qt.ItemDataRole.ToolTipRole)
        self.domain_combo.setCurrentIndex(0)

    # --- input ------------------------------------------------------------------------------

    def pick_files(self) -> None:
        """Ask for log files and add them."""
        names, _ = file_dialogs.open_file_names(self, "Conversation logs to import", "", FILE_FILTER)
        if names:
            self.add_files(names)

    def add_files(self, paths: Sequence[str | Path]) -> None:
        """Add files to the list (once each) and guess their format unless one was picked."""
        for path in paths:
            text = str(Path(path))
            if text in self.file_paths():
                continue
            item = QListWidgetItem(Path(path).name)
            item.setData(Qt.ItemDataRole.UserRole, text)
            item.setToolTip(text)
            self.files.addItem(item)
        self._guess()

    def file_paths(self) -> list[str]:
        """The files to import, in the order added."""
        return [self.files.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.files.count())]

    def _remove_selected(self) -> None:
        for item in self.files.selectedItems():
            self.files.takeItem(self.files.row(item))
        self._guess()

    def _guess(self) -> None:
        paths = self.file_paths()
        if self._format_touched or not paths:
            self.format_note.setText("")
            return
        guessed = guess_formats(paths)
        if guessed is None:
            self.format_note.setText("Could not tell the format from the files: pick it.")
            return
        self.format_combo.setCurrentIndex(self.format_combo.findData(guessed))
        self.format_note.setText("Guessed from the file's name and first line.")

    def _on_format_picked(self, _index: int) -> None:
        self._format_touched = True
        self.format_note.setText("")

    def set_format(self, fmt: str) -> None:
        """Choose the format (as picking it does: no more guessing)."""
        self.format_combo.setCurrentIndex(self.format_combo.findData(fmt))
        self._on_format_picked(self.format_combo.currentIndex())

    # --- importing --------------------------------------------------------------------------

    def start(self) -> bool:
        """Check the input and import in the background; False when it cannot start."""
        files, domain = self.file_paths(), self.domain_combo.currentData()
        why = "Add the files to import." if not files else "Pick the domain to place them on." if not domain else ""
        if why:
            self.status.setText(why)
            return False
        try:
            store = self.store_factory()
        except SageError as exc:
            self.status.setText(f"Could not open the run database: {exc}")
            return False
        if self.settings is not None:
            self.settings.setValue("import/domain", domain)
        self._worker = ImportThread(
            store,
            files,
            domain,
            self.format_combo.currentData(),
            self.name_edit.text().strip() or None,
            self.redact_box.isChecked(),
            self.skip_box.isChecked(),
            parent=self,
        )
        self._worker.ended.connect(self._on_ended)
        self._set_busy(True)
        self.status.setText(f"Importing {len(files)} file{'s' if len(files) != 1 else ''}…")
        self._worker.start()
        return True

    def is_importing(self) -> bool:
        """Whether an import is under way."""
        return self._worker is not None and self._worker.isRunning()

    def _set_busy(self, busy: bool) -> None:
        for widget in (
            self.files,
            self.add_button,
            self.remove_button,
            self.format_combo,
            self.domain_combo,
            self.name_edit,
            self.redact_box,
            self.skip_box,
            self.import_button,
            self.close_button,
        ):
            widget.setEnabled(not busy)
        self.progress.setVisible(busy)

    def _on_ended(self, outcome: Outcome) -> None:
        if self._worker is not None:
            self._worker.wait()
            self._worker.deleteLater()
            self._worker = None
        self._set_busy(False)
        if outcome.error is not None:
            self._show_failure(outcome.error)
            return
        self.summary = outcome.result
        self.run_id = self.summary.run_id
        self.report.setHtml(summary_html(self.summary, self.redact_box.isChecked(), len(self.file_paths())))
        self.report.show()
        if self.run_id:
            self.status.setText("Imported. Set the missing slots in Review.")
            self.open_button.show()
            self.open_button.setDefault(True)
            self.import_button.setDefault(False)
            self.imported.emit(self.summary)
        else:
            self.status.setText("Nothing new was imported.")

    def _show_failure(self, error: BaseException) -> None:
        self.summary, self.run_id = None, None
        self.open_button.hide()
        if isinstance(error, InputError):
            self.report.setHtml(problems_html(error.problems, in_files=not isinstance(error, DomainError)))
            self.status.setText("Nothing was imported.")
        else:
            from html import escape

            self.report.setHtml(
                f"<p style='color:#b91c1c'><b>The import failed; nothing was imported.</b></p><pre>{escape(str(error))}</pre>"
            )
            self.status.setText("The import failed.")
        self.report.show()

    def _open_run(self) -> None:
        if self.run_id:
            self.open_requested.emit(self.run_id)
            self.accept()

    def reject(self) -> None:
        """Close, unless an import is under way (it is one write: it finishes, or leaves nothing)."""
        if self.is_importing():
            self.status.setText("Importing… the dialog closes once the import is written.")
            return
        super().reject()

    def _wait(self) -> None:
        if self._worker is not None and self.is_importing():
            self._worker.wait()

    def closeEvent(self, event) -> None:  # Qt API
        self._wait()
        super().closeEvent(event)


# --- the main window side ----------------------------------------------------------------------


def open_run_in_review(window: Any, run_id: str) -> bool:
    """Show a run in Review, at its first conversation (False when it has none)."""
    conversations = window.workspace.store().conversations(run_id=run_id)
    if not conversations:
        return False
    window.workspace.open_conversation_requested.emit(conversations[0].id)
    return True


def show_import_dialog(window: Any) -> ImportDialog:
    """Open the dialog for the main window (not modal to the event loop); a made run reaches every screen."""
    dialog = ImportDialog(window.workspace.store, settings=window.settings, parent=window)
    dialog.imported.connect(lambda _summary: window.workspace.runs_changed.emit())
    dialog.open_requested.connect(lambda run_id: open_run_in_review(window, run_id))
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    window.import_dialog = dialog
    return dialog


def import_action(window: Any) -> QAction:
    """File > Import Conversations… for the main window."""
    action = QAction("Import Conversations…", window)
    action.setStatusTip(
        "Import production conversation logs (OpenAI messages, tau-bench and tau2-bench results, events) as a run"
    )
    action.triggered.connect(lambda _checked=False: show_import_dialog(window))
    return action
