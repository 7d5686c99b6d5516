"""Acting on the canvas as a user does: mouse gestures in view coordinates."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest


def view_point(editor, scene_pos: QPointF) -> QPoint:
    """Where a scene point is in the canvas viewport."""
    return editor.view.mapFromScene(scene_pos)


def node_centre(editor, node_id: str) -> QPoint:
    """The viewport point at the centre of a node."""
    return view_point(editor, editor.scene.nodes[node_id].pos())


def port_point(editor, node_id: str) -> QPoint:
    """The viewport point of a node's port (its edge handle)."""
    item = editor.scene.nodes[node_id]
    return view_point(editor, item.pos() + item.port_pos())


def drag(editor, start: QPoint, end: QPoint, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """Press at `start`, move in steps to `end`, release."""
    viewport = editor.view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifier, start)
    for step in range(1, 5):
        point = start + (end - start) * (step / 4)
        QTest.mouseMove(viewport, point)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifier, end)


def dispose(widget) -> None:
    """Delete a widget now, while the QApplication lives.

    Left to Python's shutdown, scenes and their items were destroyed after the application, in
    no particular order, and the interpreter crashed on exit (exit code 139) after a green run.
    """
    from PySide6.QtCore import QCoreApplication, QEvent

    widget.close()
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def open_review(qtbot, store, size: tuple[int, int] = (1280, 720), author: str | None = None, wait_focus: bool = False):
    """A Review screen on `store`, shown at `size` with the keyboard on its list, as a reviewer opens it.

    `author` types a name in the Author field (saving with none asks for one: test_reviewer_name.py).
    """
    from sage_desk.gui.common.workspace import Workspace
    from sage_desk.gui.review import ReviewScreen

    screen = ReviewScreen(workspace=Workspace(store=store))
    qtbot.addWidget(screen)
    screen.resize(*size)
    screen.show()
    qtbot.waitExposed(screen)
    screen.activateWindow()
    if author is not None:
        screen.override.author.setText(author)
    screen.list.setFocus()
    if wait_focus:
        qtbot.waitUntil(screen.list.hasFocus)
    wait_graph(qtbot, screen)
    return screen


def wait_graph(qtbot, screen) -> None:
    """Wait until the conversation on show has its graph, case and route (a run's domain is read in a thread)."""
    qtbot.waitUntil(lambda: screen.detail is None or not screen.detail.reading, timeout=15_000)
