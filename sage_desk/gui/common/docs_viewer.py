"""Help > Documentation: the Markdown pages shipped in `docs/`, read inside the app (works offline).

Pages are listed in reading order (`PAGE_ORDER`, then any others by name), each titled by its
first `# ` heading. Links between pages stay in the viewer; web links open in the browser.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QDesktopServices, QTextBlockFormat, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.locations import docs_dir

PAGE_ORDER = (
    "README.md",
    "quickstart.md",
    "sop-authoring.md",
    "new-domain.md",
    "models.md",
    "import.md",
    "metrics.md",
    "calibration.md",
    "file-formats.md",
    "cli.md",
)


def page_title(path: Path) -> str:
    """The page's first `# ` heading, else its file name."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def doc_pages(folder: Path) -> list[Path]:
    """The Markdown pages of `folder` in reading order."""
    pages = {p.name: p for p in folder.glob("*.md")}
    ordered = [pages.pop(name) for name in PAGE_ORDER if name in pages]
    return ordered + [pages[name] for name in sorted(pages)]


class DocsViewer(QDialog):
    """A contents list beside the page on show."""

    def __init__(self, folder: Path | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.folder = folder or docs_dir()
        self.pages = doc_pages(self.folder) if self.folder.is_dir() else []
        self.setWindowTitle("SAGE Desk documentation")
        self.setObjectName("docsViewer")
        self.contents = QListWidget()
        self.contents.setObjectName("docsContents")
        self.browser = QTextBrowser()
        self.browser.setObjectName("docsPage")
        self.browser.setOpenExternalLinks(True)  # http(s) links go to the browser
        self.browser.setSearchPaths([str(self.folder)])
        self.browser.sourceChanged.connect(self._on_source_changed)
        self._build()
        self.resize(1100, 760)
        if self.pages:
            self.contents.setCurrentRow(0)
        else:
            self.browser.setMarkdown(f"# No documentation found\n\nSAGE Desk looked in `{self.folder}`.")

    def _build(self) -> None:
        for page in self.pages:
            item = QListWidgetItem(page_title(page))
            item.setToolTip(page.name)
            self.contents.addItem(item)
        self.contents.currentRowChanged.connect(self._open_row)
        self.contents.setMinimumWidth(200)
        self.contents.setStyleSheet("QListWidget::item { padding: 5px 6px; }")
        self.browser.document().setDocumentMargin(18)
        back = QPushButton("Back")
        back.clicked.connect(self.browser.backward)
        self.browser.backwardAvailable.connect(back.setEnabled)
        back.setEnabled(False)
        folder = QPushButton("Open Folder")
        folder.setToolTip(str(self.folder))
        folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.folder))))
        bar = QHBoxLayout()
        bar.addWidget(back)
        bar.addStretch(1)
        where = QLabel(str(self.folder))
        where.setObjectName("hint")
        bar.addWidget(where)
        bar.addWidget(folder)
        splitter = QSplitter()
        splitter.addWidget(self.contents)
        splitter.addWidget(self.browser)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([230, 870])
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)

    def open_page(self, name: str) -> None:
        """Show the page with this file name."""
        self.browser.setSource(QUrl.fromLocalFile(str(self.folder / name)))

    def _open_row(self, row: int) -> None:
        if 0 <= row < len(self.pages) and self.current_page() != self.pages[row].name:
            self.open_page(self.pages[row].name)

    def current_page(self) -> str:
        """The file name of the page on show."""
        return Path(self.browser.source().toLocalFile()).name

    def _shade_code(self) -> None:
        """Give code blocks a background, as on the web (Qt's Markdown import marks them non-breakable)."""
        document = self.browser.document()
        block = document.begin()
        while block.isValid():
            if block.blockFormat().nonBreakableLines():
                cursor = QTextCursor(block)
                shaded = QTextBlockFormat()
                shaded.setBackground(QColor("#f1f5f9"))
                shaded.setLeftMargin(8)
                cursor.mergeBlockFormat(shaded)
            block = block.next()

    def _on_source_changed(self, url: QUrl) -> None:
        self._shade_code()
        names = [p.name for p in self.pages]
        name = Path(url.toLocalFile()).name
        if name in names:
            self.contents.blockSignals(True)
            self.contents.setCurrentRow(names.index(name))
            self.contents.blockSignals(False)


def show_docs(parent: QWidget | None = None, folder: Path | None = None) -> DocsViewer:
    """Open the documentation window (not modal)."""
    viewer = DocsViewer(folder, parent)
    viewer.show()
    return viewer
