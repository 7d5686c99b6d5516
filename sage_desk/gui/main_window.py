"""The main window: a navigation list of screens, the current screen's menus and toolbar, a status bar.

Screens plug in through `ScreenSpec` (key, name, icon, factory). A screen is built the first time it
is shown (the runner, the store and their libraries load then, not before the first window);
`screen(key)` builds it on demand. A screen is any QWidget; it may also offer, and the window then uses:
  menus() -> {menu title: [QAction | None]}   toolbar_actions() -> [QAction | None]
  save_state(QSettings) / restore_state(QSettings)   can_close() -> bool   window_title() -> str
  title_changed(str) and message(str) signals
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QByteArray, QSize, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from sage_desk import __version__
from sage_desk.core.locations import sops_dir
from sage_desk.gui.common.errors import ErrorNotifier
from sage_desk.gui.common.geometry import restore_if_fits
from sage_desk.gui.common.screen import as_screen
from sage_desk.gui.common.settings import open_settings, restore_splitters, save_splitters
from sage_desk.gui.common.widgets import PlaceholderScreen, icon
from sage_desk.gui.common.workspace import Workspace

DEFAULT_SIZE = QSize(1400, 860)
"""The first size on a big screen; a smaller screen's available area (less the window frame) otherwise."""
MINIMUM_SIZE = QSize(760, 560)
"""Every screen fits this (a 1280x720 laptop with its task bar and title bar leaves about 1280x680)."""
STATUS_TIMEOUT_MS = 8000
NAV_WIDTH, NAV_COMPACT_WIDTH = 176, 76
COMPACT_NAV_BELOW = 1500
"""Narrower windows show the navigation as icons over short names (full names as tooltips): the screens need the room."""


@dataclass(frozen=True)
class ScreenSpec:
    """One screen of the main window: how it is named, drawn in the navigation and built."""

    key: str
    name: str
    icon: str
    factory: Callable[[MainWindow], QWidget]
    short: str = ""
    """The name under the icon in the narrow navigation (the name itself when empty)."""


def _editor(window: MainWindow) -> QWidget:
    from sage_desk.gui.sop_editor import SopEditor

    return SopEditor(window.notifier)


def _calibration(window: MainWindow) -> QWidget:
    from sage_desk.gui.calibration import CalibrationScreen

    return CalibrationScreen(workspace=window.workspace, notifier=window.notifier)


def _leaderboard(window: MainWindow) -> QWidget:
    from sage_desk.gui.leaderboard import LeaderboardScreen

    return LeaderboardScreen(workspace=window.workspace, notifier=window.notifier)


def _review(window: MainWindow) -> QWidget:
    from sage_desk.gui.review import ReviewScreen

    return ReviewScreen(workspace=window.workspace, notifier=window.notifier)


def _compare_runs(window: MainWindow) -> QWidget:
    from sage_desk.gui.compare import CompareRunsScreen

    return CompareRunsScreen(workspace=window.workspace, notifier=window.notifier)


def _runs(window: MainWindow) -> QWidget:
    from sage_desk.gui.runs import RunsScreen

    return RunsScreen(workspace=window.workspace, notifier=window.notifier)


def _placeholder(title: str, text: str) -> Callable[[MainWindow], QWidget]:
    return lambda _window: PlaceholderScreen(title, text)


def default_screens() -> list[ScreenSpec]:
    """The screens of SAGE Desk, in navigation order."""
    return [
        ScreenSpec("sop-editor", "SOP Editor", "editor", _editor, "Editor"),
        ScreenSpec("runs", "Runs", "runs", _runs),
        ScreenSpec("review", "Review", "review", _review),
        ScreenSpec("calibration", "Calibration", "calibration", _calibration, "Calibrate"),
        ScreenSpec("leaderboard", "Leaderboard", "leaderboard", _leaderboard, "Leaders"),
        ScreenSpec("compare-runs", "Compare Runs", "compare", _compare_runs, "Compare"),
    ]


def default_graph_path() -> Path:
    """The graph opened the first time: the shipped Northline domain's."""
    return sops_dir() / "northline" / "sop.yaml"


class Screens(Mapping[str, QWidget]):
    """Every screen of the window by key; looking one up builds it the first time."""

    def __init__(self, window: MainWindow):
        self.window = window
        self.built: dict[str, QWidget] = {}

    def __getitem__(self, key: str) -> QWidget:
        if key not in self.built:
            self.window._build_screen(key)
        return self.built[key]

    def __iter__(self) -> Iterator[str]:
        return (spec.key for spec in self.window.specs)

    def __len__(self) -> int:
        return len(self.window.specs)

    def __contains__(self, key: object) -> bool:
        return any(spec.key == key for spec in self.window.specs)


class MainWindow(QMainWindow):
    """SAGE Desk's one window."""

    def __init__(
        self,
        screens: list[ScreenSpec] | None = None,
        settings_home: str | Path | None = None,
        notifier: ErrorNotifier | None = None,
        db_url: str | None = None,
    ):
        super().__init__()
        self.notifier = notifier or ErrorNotifier(self)
        self.settings = open_settings(settings_home)
        self.db_url = db_url
        self.workspace = Workspace(db_url=db_url, parent=self)
        self.workspace.open_conversation_requested.connect(self._open_in_review)
        self.specs = screens if screens is not None else default_screens()
        self.screens = Screens(self)
        self._initial_graph_pending = False
        self.nav = QListWidget()
        self.stack = QStackedWidget()
        self.toolbar = QToolBar("Main toolbar")
        from sage_desk.gui.imports.dialog import import_action  # File > Import Conversations…, on every screen

        self.import_conversations = import_action(self)
        from sage_desk.gui.common.reviewer_dialog import reviewer_action  # File > Reviewer Name…, on every screen

        self.reviewer_name = reviewer_action(self)
        self._build()
        self.notifier.reported.connect(self._on_error)
        self._restore()

    # --- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        self.setWindowTitle("SAGE Desk")
        self.setObjectName("mainWindow")
        self.nav.setObjectName("navigation")
        self.nav.setIconSize(QSize(22, 22))
        self.nav.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.nav.setTextElideMode(Qt.TextElideMode.ElideNone)  # the short names fit whole
        self.nav.setFixedWidth(NAV_WIDTH)
        self._compact_nav = False
        self.stack.setObjectName("screens")
        self.toolbar.setObjectName("mainToolbar")
        self.toolbar.setMovable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addToolBar(self.toolbar)
        for number, spec in enumerate(self.specs, start=1):
            self._add_screen(spec, number)
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.setMinimumSize(MINIMUM_SIZE)
        self.statusBar().showMessage("Ready")
        self.nav.currentRowChanged.connect(self._on_screen_changed)

    def _add_screen(self, spec: ScreenSpec, number: int) -> None:
        self.stack.addWidget(QWidget())  # holds the screen's place until it is first shown
        item = QListWidgetItem(icon(spec.icon), spec.name)
        item.setSizeHint(QSize(160, 42))
        item.setToolTip(f"{spec.name} (Ctrl+{number})")
        self.nav.addItem(item)
        switch = QAction(f"Go to {spec.name}", self)
        switch.setShortcut(QKeySequence(f"Ctrl+{number}"))
        switch.triggered.connect(lambda _checked=False, row=number - 1: self.nav.setCurrentRow(row))
        self.addAction(switch)

    def _build_screen(self, key: str) -> None:
        """Make the screen `key` in its place in the stack, restore its state, hook up its signals."""
        row = [s.key for s in self.specs].index(key)
        widget = self.specs[row].factory(self)
        self.screens.built[key] = widget
        placeholder = self.stack.widget(row)
        assert placeholder is not None, f"no place in the stack for screen {key!r}"
        current = self.stack.currentIndex()
        self.stack.insertWidget(row, widget)
        self.stack.removeWidget(placeholder)
        placeholder.deleteLater()
        self.stack.setCurrentIndex(current)
        restore_splitters(widget, self.settings, key)
        screen = as_screen(widget)
        screen.restore_state(self.settings)
        if screen.title_changed is not None:
            screen.title_changed.connect(self._update_title)
        if screen.message is not None:
            screen.message.connect(lambda text: self.statusBar().showMessage(text, STATUS_TIMEOUT_MS))
        if key == "sop-editor" and self._initial_graph_pending:
            self._initial_graph_pending = False
            self.open_initial_graph()

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt API
        super().resizeEvent(event)
        self.set_compact_navigation(event.size().width() < COMPACT_NAV_BELOW)

    def set_compact_navigation(self, compact: bool) -> None:
        """Show the navigation as icons only (True) or icons with names."""
        if compact == self._compact_nav:
            return
        self._compact_nav = compact
        # narrow: a short name under each icon (icons alone left people guessing), else icon and name side by side
        mode = QListView.ViewMode.IconMode if compact else QListView.ViewMode.ListMode
        self.nav.setViewMode(mode)
        self.nav.setFlow(QListView.Flow.TopToBottom)
        self.nav.setWrapping(False)
        self.nav.setMovement(QListView.Movement.Static)
        self.nav.setGridSize(QSize(NAV_COMPACT_WIDTH - 4, 56) if compact else QSize(-1, -1))
        for row, spec in enumerate(self.specs):
            item = self.nav.item(row)
            item.setText((spec.short or spec.name) if compact else spec.name)
            item.setSizeHint(QSize(NAV_COMPACT_WIDTH - 6, 52) if compact else QSize(160, 42))
            align = Qt.AlignmentFlag.AlignHCenter if compact else Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            item.setTextAlignment(align)
        self.nav.setFixedWidth(NAV_COMPACT_WIDTH if compact else NAV_WIDTH)
        self.nav.setProperty("compact", compact)  # style.qss: tighter items, smaller names
        self.nav.style().unpolish(self.nav)
        self.nav.style().polish(self.nav)

    def screen_widget(self, key: str) -> QWidget:
        """The widget of the screen `key` (built now if it has not been shown yet)."""
        return self.screens[key]

    def current_key(self) -> str:
        """The key of the screen on show."""
        return self.specs[max(self.nav.currentRow(), 0)].key

    def show_screen(self, key: str) -> None:
        """Switch to the screen `key`."""
        self.nav.setCurrentRow([s.key for s in self.specs].index(key))

    def _open_in_review(self, conversation_id: str) -> None:
        review = self.screens.get("review")
        if review is None or not hasattr(review, "show_conversation"):
            return
        self.show_screen("review")
        review.show_conversation(conversation_id)

    def _on_screen_changed(self, row: int) -> None:
        if row < 0:
            return
        widget = self.screens[self.specs[row].key]
        self.stack.setCurrentIndex(row)
        self._rebuild_menus(widget)
        self._rebuild_toolbar(widget)
        self._update_title()

    def _rebuild_menus(self, widget: QWidget) -> None:
        bar = self.menuBar()
        for old in bar.actions():
            if old.menu() is not None:
                old.menu().deleteLater()  # the screen's actions live on; only the menus go
        bar.clear()
        screen_menus = as_screen(widget).menus()
        file_actions = list(screen_menus.pop("&File", []))
        file_actions += [None, self.import_conversations] if file_actions else [self.import_conversations]
        file_actions.append(self.reviewer_name)
        file_menu = bar.addMenu("&File")
        quit_action = QAction("Quit", file_menu)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        self._fill_menu(file_menu, [*file_actions, None, quit_action] if file_actions else [quit_action])
        for title, actions in screen_menus.items():
            self._fill_menu(bar.addMenu(title), actions)
        help_menu = bar.addMenu("&Help")
        shortcuts = help_menu.addAction("Keyboard Shortcuts")
        shortcuts.setShortcut(QKeySequence("F1"))
        shortcuts.triggered.connect(self.show_shortcuts)
        help_menu.addAction("Take the Tour").triggered.connect(self.take_tour)
        help_menu.addAction("Documentation").triggered.connect(self.show_documentation)
        help_menu.addAction("About SAGE Desk").triggered.connect(self._about)

    @staticmethod
    def _fill_menu(menu, actions: list[QAction | None]) -> None:
        for action in actions:
            menu.addSeparator() if action is None else menu.addAction(action)

    def _rebuild_toolbar(self, widget: QWidget) -> None:
        # not QToolBar.clear(): in Qt 6.12 it deletes QUndoStack's undo/redo actions with the buttons
        for old in self.toolbar.actions():
            self.toolbar.removeAction(old)
            if old.isSeparator():
                old.deleteLater()
        for action in as_screen(widget).toolbar_actions():
            self.toolbar.addSeparator() if action is None else self.toolbar.addAction(action)
        self.toolbar.setVisible(bool(self.toolbar.actions()))

    def _update_title(self, *_args) -> None:
        # the screen on show names the window; the editor adds its file (with * when modified)
        spec = self.specs[max(self.nav.currentRow(), 0)]
        widget = self.screens.built.get(spec.key)
        detail = as_screen(widget).window_title() if widget is not None else ""
        self.setWindowTitle(" — ".join(part for part in (detail, spec.name, "SAGE Desk") if part))

    # --- messages ---------------------------------------------------------------------------

    def _on_error(self, title: str, message: str, details: str) -> None:
        self.statusBar().showMessage(f"{title}: {message}", STATUS_TIMEOUT_MS * 2)
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Close, self)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # not exec(): an error never blocks the event loop (or a test)
        self.last_error_box = box

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(keys, what they do) for every shortcut of the window and the current screen."""
        rows = []
        for menu in self.menuBar().actions():
            submenu = menu.menu()
            for action in submenu.actions() if isinstance(submenu, QMenu) else []:
                keys = ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts())
                if keys:
                    rows.append((keys, action.text().replace("&", "")))
        rows += [(f"Ctrl+{i}", f"Go to {s.name}") for i, s in enumerate(self.specs, start=1)]
        if self.current_key() == "sop-editor":
            rows += [
                ("Drag from a node's handle / Shift+drag", "Connect two nodes"),
                ("Drag on empty canvas", "Select with a rubber band"),
                ("Wheel", "Zoom"),
                ("Middle-drag / Space+drag", "Pan"),
            ]
        return rows

    def show_shortcuts(self) -> QDialog:
        """A dialog listing the keyboard shortcuts (Help > Keyboard Shortcuts)."""
        dialog = QDialog(self)
        dialog.setWindowTitle("Keyboard shortcuts")
        rows = "".join(
            f"<tr><td style='padding:3px 18px 3px 0'><b>{k}</b></td><td>{t}</td></tr>" for k, t in self.shortcut_rows()
        )
        label = QLabel(f"<table>{rows}</table>")
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # the list is taller than a laptop screen: it scrolls, the dialog fits
        scroll = QScrollArea()
        scroll.setWidget(label)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setMinimumWidth(label.sizeHint().width() + 24)
        scroll.setMinimumHeight(min(label.sizeHint().height() + 4, 420))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)
        dialog.resize(dialog.sizeHint().width(), label.sizeHint().height() + 80)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def take_tour(self) -> QWidget:
        """Open the tour of the screens (Help > Take the Tour; shown by itself on the first start)."""
        from sage_desk.gui.common.tour import start_tour

        return start_tour(self)

    def show_documentation(self) -> QWidget:
        """Open the shipped docs in a window (Help > Documentation)."""
        from sage_desk.gui.common.docs_viewer import show_docs

        return show_docs(self)

    def _about(self) -> None:
        QMessageBox.about(
            self,
            "About SAGE Desk",
            f"<b>SAGE Desk {__version__}</b><p>Test LLM customer-service "
            "agents against Standard Operating Procedures drawn as graphs.</p>",
        )

    # --- sessions ---------------------------------------------------------------------------

    def _restore(self) -> None:
        # a geometry saved on a bigger screen (or one no longer attached) would put edges off this one
        restore_if_fits(self, self.settings.value("window/geometry"), DEFAULT_SIZE)
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        keys = [s.key for s in self.specs]
        last = self.settings.value("window/screen", keys[0])
        self.nav.setCurrentRow(keys.index(last) if last in keys else 0)
        self._on_screen_changed(self.nav.currentRow())

    def open_initial_graph(self) -> None:
        """Open the graph of the last session, or the shipped Northline graph the first time.

        With the editor not built yet (the window opened on another screen), the graph opens when it is.
        """
        if "sop-editor" not in self.screens:
            return
        if "sop-editor" not in self.screens.built:
            self._initial_graph_pending = True
            return
        editor = self.screens.built["sop-editor"]
        load = getattr(editor, "load", None)  # the SOP Editor's; a stand-in screen (tests) has none
        if load is None:
            return
        last = str(self.settings.value("sop_editor/last_file", "") or "")
        for candidate in (Path(last) if last else None, default_graph_path()):
            if candidate is not None and candidate.is_file() and load(candidate):
                return

    def save_settings(self) -> None:
        """Write the window's size, layout, screen and each screen's state."""
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("window/screen", self.current_key())
        for key, widget in self.screens.built.items():
            save_splitters(widget, self.settings, key)
            as_screen(widget).save_state(self.settings)
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt API
        for widget in self.screens.built.values():
            if not as_screen(widget).can_close():
                event.ignore()
                return
        self.save_settings()
        event.accept()
