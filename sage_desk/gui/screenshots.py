"""`sage-desk --screenshot DIR`: every screen of the main window as a PNG, for docs and reviews."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from sage_desk.core.sop.model import NodeKind
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
    window.resize(*size)
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


def _save(window: MainWindow, path: Path) -> Path:
    if not window.grab().save(str(path)):
        raise OSError(f"could not write {path}")
    return path
