"""File > Import from Prose…: draft a graph from a written SOP with a model, then edit it.

The dialog takes the SOP (pasted, or opened from a .md/.txt file), the domain whose tools the
steps are matched to, and the model (with an optional OpenAI-compatible API base). Drafting runs
in `DraftThread` on its own asyncio loop with progress and cancel; the dialog stays open on a
failure and shows what was wrong. A draft opens in the editor as a new, unsaved document with the
source text beside the canvas (`attach_source_panel`); nothing is written until the author saves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.domain.declaration import load_domain_context
from sage_desk.core.errors import SageError
from sage_desk.core.locations import shipped_domains
from sage_desk.core.sop.extract import DomainContext, DraftOptions, DraftProgress, DraftResult, draft_graph
from sage_desk.gui.common import file_dialogs
from sage_desk.gui.common.async_thread import AsyncThread, Outcome
from sage_desk.gui.common.settings import open_settings
from sage_desk.gui.sop_editor.source_panel import SourcePanel

OTHER_FOLDER = "Other folder…"
READABLE_ZOOM = 0.8
PANEL_WIDTH = 340


DraftOutcome = Outcome  # how a background draft ended: a result, cancelled, or an error to show


class DraftThread(AsyncThread):
    """Drafts one graph in the background; `cancel` is safe from the GUI thread."""

    progressed = Signal(object)  # DraftProgress

    def __init__(self, text: str, domain: DomainContext, options: DraftOptions, client: Any = None, parent: Any = None):
        super().__init__(parent)
        self.text, self.domain, self.options, self.client = text, domain, options, client

    async def work(self) -> DraftResult:
        return await draft_graph(self.text, self.domain, self.options, client=self.client, on_progress=self.progressed.emit)


class ImportProseDialog(QDialog):
    """Paste or open a SOP, pick the domain and the model, and draft a graph."""

    drafted = Signal(object, object)  # DraftResult, DomainContext

    def __init__(
        self, default_domain: Path | None = None, settings: Any = None, client: Any = None, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setWindowTitle("Import from Prose")
        self.setObjectName("importProseDialog")
        self.settings = settings if settings is not None else open_settings()
        self.client = client
        self._worker: DraftThread | None = None
        self.domain: DomainContext | None = None
        self.source_name = ""
        self._build(default_domain)
        self.resize(760, 640)

    # --- building ---------------------------------------------------------------------------

    def _build(self, default_domain: Path | None) -> None:
        intro = QLabel(
            "Paste a written procedure (Markdown or plain text: numbered steps, if/then rules, tables of "
            "conditions), or open a file. A model drafts it as a graph you can then edit; nothing is saved "
            "until you save."
        )
        intro.setWordWrap(True)
        intro.setObjectName("hint")
        self.text_edit = QPlainTextEdit()
        self.text_edit.setObjectName("proseText")
        self.text_edit.setPlaceholderText("# Refund policy\n\n1. Look the order up first.\n2. If it was delivered, refund it …")
        self.open_button = QPushButton("Open File…")
        self.open_button.clicked.connect(self.open_file)
        self.file_label = QLabel("")
        self.file_label.setObjectName("hint")
        self.domain_combo = QComboBox()
        self._fill_domains(default_domain)
        self.model_edit = QLineEdit(str(self.settings.value("import_prose/model", "") or ""))
        self.model_edit.setPlaceholderText("a litellm model, e.g. openai/gpt-4o-mini or ollama/llama3.1")
        self.api_base_edit = QLineEdit(str(self.settings.value("import_prose/api_base", "") or ""))
        self.api_base_edit.setPlaceholderText("optional: an OpenAI-compatible server, e.g. http://localhost:11434/v1")
        form = QFormLayout()
        form.addRow("Domain", self.domain_combo)
        form.addRow("Model", self.model_edit)
        form.addRow("API base", self.api_base_edit)
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = QLabel("")
        self.status.setObjectName("draftStatus")
        self.status.setWordWrap(True)
        self.errors = QPlainTextEdit()
        self.errors.setObjectName("draftErrors")
        self.errors.setReadOnly(True)
        self.errors.setMaximumHeight(140)
        self.errors.hide()
        self.draft_button = QPushButton("Draft")
        self.draft_button.setDefault(True)
        self.draft_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.reject)
        file_row = QHBoxLayout()
        file_row.addWidget(self.open_button)
        file_row.addWidget(self.file_label, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.draft_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(file_row)
        layout.addWidget(self.text_edit, 1)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.errors)
        layout.addLayout(buttons)

    def _fill_domains(self, default_domain: Path | None) -> None:
        folders = shipped_domains()
        if default_domain is not None and default_domain.resolve() not in {f.resolve() for f in folders}:
            folders.insert(0, default_domain)
        for folder in folders:
            self.domain_combo.addItem(folder.name, str(folder))
        self.domain_combo.addItem(OTHER_FOLDER, "")
        if default_domain is not None:
            self.domain_combo.setCurrentIndex(max(0, self.domain_combo.findData(str(default_domain))))
        self.domain_combo.activated.connect(self._on_domain_picked)

    def _on_domain_picked(self, index: int) -> None:
        if self.domain_combo.itemData(index):
            return
        folder = file_dialogs.existing_directory(self, "Domain folder (with domain.yaml)")
        if folder:
            self.domain_combo.insertItem(0, Path(folder).name, folder)
            self.domain_combo.setCurrentIndex(0)
        else:
            self.domain_combo.setCurrentIndex(0)

    # --- input ------------------------------------------------------------------------------

    def open_file(self) -> None:
        """Ask for a .md or .txt file and put its text in the box."""
        name, _ = file_dialogs.open_file_name(self, "Open a written SOP", "", "SOP text (*.md *.markdown *.txt);;All files (*)")
        if name:
            self.load_file(Path(name))

    def load_file(self, path: Path) -> bool:
        """Read a text file into the box; a file that cannot be read is explained, and the box kept."""
        from sage_desk.core.yamlsafe import read_text

        try:
            text = read_text(path)
        except SageError as exc:
            self._show_error(f"Could not open {path.name}", str(exc))
            return False
        self.text_edit.setPlainText(text)
        self.source_name = path.name
        self.file_label.setText(str(path))
        return True

    def options(self) -> DraftOptions:
        """The draft options as entered (title names the file, when one was opened)."""
        title = f"Drafted from {self.source_name}" if self.source_name else "Drafted from prose"
        return DraftOptions(model=self.model_edit.text().strip(), api_base=self.api_base_edit.text().strip() or None, title=title)

    def _check(self) -> tuple[DomainContext | None, str]:
        if not self.text_edit.toPlainText().strip():
            return None, "Paste a SOP or open a file first."
        if not self.model_edit.text().strip():
            return None, "Name the model that drafts the graph."
        folder = self.domain_combo.currentData()
        if not folder:
            return None, "Pick the domain whose tools the steps are matched to."
        try:
            return load_domain_context(folder), ""
        except SageError as exc:
            return None, f"The domain cannot be read:\n{exc}"

    # --- drafting ---------------------------------------------------------------------------

    def start(self) -> None:
        """Check the input and draft in the background."""
        domain, why = self._check()
        if domain is None:
            self._show_error("Cannot draft yet", why)
            return
        self.settings.setValue("import_prose/model", self.model_edit.text().strip())
        self.settings.setValue("import_prose/api_base", self.api_base_edit.text().strip())
        self.errors.hide()
        self.domain = domain
        self._worker = DraftThread(self.text_edit.toPlainText(), domain, self.options(), client=self.client, parent=self)
        self._worker.progressed.connect(self._on_progress)
        self._worker.ended.connect(self._on_ended)
        self._set_busy(True)
        self.status.setText("Sending the SOP to the model…")
        self._worker.start()

    def is_drafting(self) -> bool:
        """Whether a draft is on its way."""
        return self._worker is not None and self._worker.isRunning()

    def _set_busy(self, busy: bool) -> None:
        for widget in (
            self.text_edit,
            self.open_button,
            self.domain_combo,
            self.model_edit,
            self.api_base_edit,
            self.draft_button,
        ):
            widget.setEnabled(not busy)
        self.progress.setVisible(busy)
        self.progress.setRange(0, 0)
        self.cancel_button.setText("Stop" if busy else "Cancel")

    def _on_progress(self, progress: DraftProgress) -> None:
        if progress.steps > 1:
            self.progress.setRange(0, progress.steps)
            self.progress.setValue(progress.step)
        self.status.setText(progress.message)

    def _on_ended(self, outcome: DraftOutcome) -> None:
        if self._worker is not None:
            self._worker.wait()
            self._worker.deleteLater()
            self._worker = None
        self._set_busy(False)
        if outcome.cancelled:
            self.status.setText("Drafting stopped; nothing was opened.")
        elif outcome.error is not None:
            self.status.setText("")
            self._show_error("The model could not draft a valid graph; nothing was opened", str(outcome.error))
        elif outcome.result is not None:
            self.status.setText("")
            self.drafted.emit(outcome.result, self.domain)
            self.accept()

    def _show_error(self, title: str, details: str) -> None:
        self.status.setText(title)
        self.errors.setPlainText(details)
        self.errors.show()

    def reject(self) -> None:
        """Cancel: while drafting, stop the draft (the dialog stays); otherwise close."""
        if self._worker is not None and self.is_drafting():
            self.status.setText("Stopping…")
            self._worker.cancel()
            return
        super().reject()

    def closeEvent(self, event) -> None:  # Qt API
        if self._worker is not None and self.is_drafting():
            self._worker.cancel()
            self._worker.wait(10_000)
        super().closeEvent(event)


# --- the editor side ------------------------------------------------------------------------------


def source_panel(editor) -> SourcePanel:
    """The editor's source panel, made and placed beside the canvas the first time a draft opens."""
    panel = getattr(editor, "source_panel", None)
    if panel is None:
        panel = SourcePanel()
        editor.source_panel = panel
        editor.top_split.insertWidget(2, panel)
        sizes = editor.top_split.sizes()
        canvas = max(sizes[1] - PANEL_WIDTH, 300)
        editor.top_split.setSizes([sizes[0], canvas, PANEL_WIDTH, sizes[3]])
        editor.doc.reset.connect(lambda: panel.hide())  # another graph opened: its source is not this one
        editor.scene.selectionChanged.connect(lambda: _follow_selection(editor, panel))
    return panel


def _follow_selection(editor, panel: SourcePanel) -> None:
    if not panel.isVisible():
        return
    ids = editor.scene.selected_node_ids()
    node = editor.doc.graph.node(ids[0]) if len(ids) == 1 else None
    panel.highlight(node.id if node else None, node.cite if node else "")


def open_draft(editor, result: DraftResult, domain: DomainContext) -> bool:
    """Open a draft in the editor, unsaved, with its source text beside the canvas."""
    if not editor.open_draft(result.graph, domain.names()):
        return False
    panel = source_panel(editor)
    panel.set_draft(result)
    panel.show()
    QTimer.singleShot(0, lambda: _show_top(editor))  # after the editor's own fit, which would make a wide draft tiny
    flagged = f", {len(result.unmatched)} step(s) with no domain tool" if result.unmatched else ""
    editor.message.emit(f"Drafted {len(result.graph.nodes)} nodes from prose{flagged}; check it and save it to keep it.")
    return True


def _show_top(editor) -> None:
    """Fit the draft, but never below a readable zoom: then show its top, with the start selected."""
    view = editor.view
    view.fit()
    start = editor.doc.graph.start()
    if start is None or start.id not in editor.scene.nodes:
        return
    if view.zoom() < READABLE_ZOOM:
        view.resetTransform()
        view.scale(READABLE_ZOOM, READABLE_ZOOM)
        item = editor.scene.nodes[start.id]
        view.centerOn(item.pos().x(), item.pos().y() + view.viewport().height() / (2 * READABLE_ZOOM) - 60)
    editor.scene.select_only([start.id])


def run_import_dialog(editor, client: Any = None) -> ImportProseDialog:
    """Show the dialog for `editor` (not modal to the event loop); the draft opens when it is made."""
    default = editor.path.parent if editor.path is not None and (editor.path.parent / "domain.yaml").is_file() else None
    dialog = ImportProseDialog(default_domain=default, client=client, parent=editor)
    dialog.drafted.connect(lambda result, domain: open_draft(editor, result, domain))
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog
