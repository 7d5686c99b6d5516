"""`sage-desk --screenshot DIR [--size WxH]`: every screen and dialog as a PNG, for docs and reviews.

The window is sized as on a screen of that size (the app draws on a virtual screen of it), then each
screen is shown in turn, then each dialog the window opens (Help, File, Runs, Review, Calibration).
A control cut off by its parent is named on stderr, so a layout too big for the screen is noticed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication, QWidget

from sage_desk.core.sop.model import NodeKind
from sage_desk.gui.common.geometry import available_geometry, cut_off_widgets, keep_on_screen
from sage_desk.gui.main_window import MainWindow
from sage_desk.gui.sop_editor.editor import SopEditor


def _settle(screen: object = None, timeout_s: float = 20.0) -> None:
    """Let pending events run, and wait (bounded) for a screen still reading in the background."""
    deadline = time.monotonic() + timeout_s
    while getattr(screen, "loading", False) and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.01)
    for _ in range(5):
        QApplication.processEvents()


def take_screenshots(window: MainWindow, out_dir: Path, size: tuple[int, int]) -> list[Path]:
    """Show each screen in turn and save it as `NN-<screen>.png` in `out_dir`; returns the files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    window.resize(QSize(*size).boundedTo(available_geometry(window).size()))
    window.show()
    _settle()
    written: list[Path] = []
    for number, spec in enumerate(window.specs, start=1):
        window.show_screen(spec.key)
        _settle(window.screen_widget(spec.key))
        if spec.key == "sop-editor":
            written += _editor_shots(window, out_dir, number)
            continue
        written.append(_save(window, out_dir / f"{number:02d}-{spec.key}.png"))
    written += _dialog_shots(window, out_dir, len(window.specs) + 1)
    window.show_screen(window.specs[0].key)
    return written


def _editor_shots(window: MainWindow, out_dir: Path, number: int) -> list[Path]:
    """The editor twice: as a graph opens, with a decision selected in the inspector; then one path highlighted."""
    editor = window.screen_widget("sop-editor")
    assert isinstance(editor, SopEditor)
    editor.view.open_view()
    decision = next((n.id for n in editor.doc.graph.nodes if n.kind == NodeKind.DECISION), None)
    if decision:
        editor.scene.select_only([decision])
    _settle()
    shots = [_save(window, out_dir / f"{number:02d}-sop-editor.png")]
    editor.scene.clearSelection()
    if editor.paths.model.rows:
        editor.bottom_tabs.setCurrentWidget(editor.paths)
        rows = editor.paths.model.rows
        longest = max(range(len(rows)), key=lambda i: len(rows[i].nodes))
        editor.paths.view.selectRow(longest)  # the editor highlights it and brings it into view
        _settle()
        shots.append(_save(window, out_dir / f"{number:02d}b-sop-editor-path.png"))
        editor.paths.view.clearSelection()
        editor.bottom_tabs.setCurrentWidget(editor.problems)
        editor.view.open_view()
    return shots


def _dialogs(window: MainWindow) -> list[tuple[str, Callable[[], QWidget | None]]]:
    """(file name, opener) of every dialog the screenshots show; an opener returns None when there is nothing to show."""

    def in_screen(key: str, opener: Callable[[QWidget], QWidget | None]) -> Callable[[], QWidget | None]:
        def open_() -> QWidget | None:
            if key not in window.screens:
                return None
            window.show_screen(key)
            screen = window.screen_widget(key)
            _settle(screen)
            return opener(screen)

        return open_

    return [
        ("tour", window.take_tour),
        ("help-shortcuts", window.show_shortcuts),
        ("help-documentation", window.show_documentation),
        ("reviewer-name", lambda: _shown(_reviewer_dialog(window))),
        ("import-conversations", lambda: _import_dialog(window)),
        ("runs-api-keys", in_screen("runs", _api_keys)),
        ("sop-editor-import-prose", in_screen("sop-editor", _import_prose)),
        ("review-shortcuts", in_screen("review", _review_shortcuts)),
        ("review-compare", in_screen("review", _review_compare)),
        ("calibration-adjudicate", in_screen("calibration", _adjudicate)),
    ]


def _shown(dialog: QWidget) -> QWidget:
    dialog.show()
    return dialog


def _reviewer_dialog(window: MainWindow) -> QWidget:
    from sage_desk.gui.common.reviewer_dialog import ReviewerDialog

    return ReviewerDialog(window, reason="Labels, flags and adjudications are saved under your reviewer name.")


def _import_dialog(window: MainWindow) -> QWidget:
    from sage_desk.gui.imports.dialog import show_import_dialog

    return show_import_dialog(window)


def _api_keys(screen: QWidget) -> QWidget:
    from sage_desk.gui.runs.keys_dialog import ApiKeysDialog

    return _shown(ApiKeysDialog(parent=screen))


def _import_prose(screen: QWidget) -> QWidget:
    from sage_desk.gui.sop_editor.import_dialog import ImportProseDialog

    return _shown(ImportProseDialog(parent=screen))


def _review_shortcuts(screen: QWidget) -> QWidget:
    from sage_desk.gui.review.keys import shortcuts_dialog

    return _shown(shortcuts_dialog(screen))


def _review_compare(screen: QWidget) -> QWidget | None:
    from sage_desk.gui.review.compare import open_compare

    view = getattr(screen, "list", None)
    if view is None or not hasattr(screen, "detail"):
        return None
    view.selectRow(0)
    _settle(screen)
    return open_compare(screen)  # type: ignore[arg-type]  # the Review screen (it has `detail`)


def _adjudicate(screen: QWidget) -> QWidget | None:
    tab = getattr(screen, "between_reviewers", None)
    if tab is None or not tab.disagreements.rows:
        return None
    screen.tabs.setCurrentWidget(tab)  # type: ignore[attr-defined]  # the Calibration screen's tabs
    tab.disagreement_view.selectRow(0)
    _settle()
    return tab.adjudicate(0)


def _dialog_shots(window: MainWindow, out_dir: Path, number: int) -> list[Path]:
    """Each dialog as it opens on this screen (the tour on the window), then closed again."""
    written = []
    for name, opener in _dialogs(window):
        dialog = opener()
        if dialog is None:
            continue
        _settle()
        if dialog.isWindow():
            keep_on_screen(dialog)
            _settle()
            written.append(_save(dialog, out_dir / f"{number:02d}-{name}.png"))
        else:  # the tour card lives in the window
            written.append(_save(window, out_dir / f"{number:02d}-{name}.png"))
        dialog.close()
        _settle()
        number += 1
    return written


def _save(window: QWidget, path: Path) -> Path:
    for problem in cut_off_widgets(window):
        print(f"{path.name}: cut off: {problem}", file=sys.stderr)
    if not window.grab().save(str(path)):
        raise OSError(f"could not write {path}")
    return path
