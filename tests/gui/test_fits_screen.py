"""Every window and dialog fits a laptop screen (1280x720, 1366x768): sized to the screen's available area,
a saved geometry restored only when it fits, no control sticking out of its parent, the tour walked by arrows.

Offscreen Qt has one 800x800 screen in this process, so the laptop's available area is passed in; the
screenshot test runs the real command, on a virtual screen of each size, in its own process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget

from sage_desk.gui.common.geometry import (
    FRAME_ALLOWANCE,
    cut_off_widgets,
    fits,
    initial_size,
    keep_on_screen,
    restore_if_fits,
)
from sage_desk.gui.main_window import DEFAULT_SIZE, MainWindow

LAPTOPS = [QRect(0, 0, 1280, 720), QRect(0, 0, 1366, 768)]
ROOT = Path(__file__).parents[2]


def outer(window: QWidget) -> QRect:
    """The window with the frame a window manager adds (offscreen draws none)."""
    return QRect(window.pos(), window.size() + FRAME_ALLOWANCE)


def test_the_first_window_takes_a_small_screen_and_keeps_its_size_on_a_big_one(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    for screen in LAPTOPS:
        initial_size(DEFAULT_SIZE, window, screen)
        assert screen.contains(outer(window)), (screen, window.geometry())
        assert window.width() >= screen.width() - 20 and window.height() >= screen.height() - 60  # uses the room
    initial_size(DEFAULT_SIZE, window, QRect(0, 0, 2560, 1440))
    assert window.size() == DEFAULT_SIZE
    assert window.x() > 0 and window.y() > 0  # centred


def test_a_saved_geometry_comes_back_only_when_it_fits(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    window.setGeometry(100, 80, 1400, 860)  # saved on a 1920x1080 screen
    big = window.saveGeometry()
    window.setGeometry(40, 30, 700, 500)  # (Qt itself clamps to the 800x800 test screen)
    small = window.saveGeometry()
    laptop = LAPTOPS[0]
    assert not restore_if_fits(window, big, DEFAULT_SIZE, laptop)
    assert laptop.contains(outer(window)) and window.width() > 1200
    assert restore_if_fits(window, small, DEFAULT_SIZE, laptop)
    assert window.geometry().size() == QSize(700, 500)
    assert not restore_if_fits(window, "not a geometry", DEFAULT_SIZE, laptop)  # a damaged settings file
    assert laptop.contains(outer(window))


def test_a_window_shown_off_screen_is_brought_back_whole(qtbot):
    dialog = QWidget()
    qtbot.addWidget(dialog)
    dialog.setGeometry(900, 500, 1280, 820)  # the Compare dialog's old size, opened over a window's corner
    keep_on_screen(dialog, LAPTOPS[0])
    assert LAPTOPS[0].contains(outer(dialog)), dialog.geometry()


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, shop_dir):
    monkeypatch.setenv("SAGE_DESK_SOPS", str(shop_dir.parent))
    win = MainWindow(settings_home=tmp_path / "home", db_url=f"sqlite:///{tmp_path / 'runs.db'}")
    qtbot.addWidget(win)
    win.open_initial_graph()
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.mark.parametrize("screen", LAPTOPS, ids=["1280x720", "1366x768"])
def test_the_main_window_and_every_screen_fit_with_no_control_cut_off(qtbot, window, screen):
    initial_size(DEFAULT_SIZE, window, screen)
    assert fits(window, screen) and window.width() >= screen.width() - FRAME_ALLOWANCE.width()
    for spec in window.specs:
        window.show_screen(spec.key)
        hint = window.minimumSizeHint().expandedTo(window.minimumSize()) + FRAME_ALLOWANCE
        assert hint.width() <= screen.width() and hint.height() <= screen.height(), (spec.key, hint)
        qtbot.wait(10)
        assert cut_off_widgets(window) == [], spec.key


@pytest.mark.parametrize("screen", LAPTOPS, ids=["1280x720", "1366x768"])
def test_every_dialog_fits_with_no_control_cut_off(qtbot, window, screen):
    from sage_desk.gui.screenshots import _dialogs

    initial_size(DEFAULT_SIZE, window, screen)
    opened = []
    for name, opener in _dialogs(window):
        dialog = opener()
        if dialog is None:  # a dialog that needs runs with data: the screenshot test below opens those
            continue
        opened.append(name)
        qtbot.wait(10)
        if dialog.isWindow():
            keep_on_screen(dialog, screen)
            hint = dialog.minimumSizeHint().expandedTo(dialog.minimumSize()) + FRAME_ALLOWANCE
            assert hint.width() <= screen.width() and hint.height() <= screen.height(), (name, hint)
            assert fits(dialog, screen), (name, dialog.frameGeometry())
            qtbot.wait(10)
        else:
            assert window.rect().contains(dialog.geometry()), name
        assert cut_off_widgets(dialog if dialog.isWindow() else window) == [], name
        dialog.close()
    assert {
        "tour",
        "help-shortcuts",
        "help-documentation",
        "reviewer-name",
        "import-conversations",
        "runs-api-keys",
        "sop-editor-import-prose",
        "review-shortcuts",
    } <= set(opened)


def test_the_tour_walks_on_the_arrow_keys_wherever_the_focus_is(qtbot, window):
    from PySide6.QtWidgets import QLineEdit

    initial_size(DEFAULT_SIZE, window, LAPTOPS[0])
    card = window.take_tour()
    assert window.rect().contains(card.geometry()) and card.next_button.isVisible()
    window.nav.setFocus()  # the screen a step shows takes the focus: the card has none
    qtbot.keyClick(window.nav, Qt.Key.Key_Right)
    assert window.current_key() == "runs" and card.index == 1
    qtbot.keyClick(window.nav, Qt.Key.Key_Right)
    qtbot.keyClick(window.nav, Qt.Key.Key_Left)
    assert window.current_key() == "runs"
    field = window.screen_widget("runs").findChild(QLineEdit)
    if field is not None and field.isVisible():  # typing in a field moves its cursor, not the tour
        field.setFocus()
        field.setText("abc")
        qtbot.keyClick(field, Qt.Key.Key_Left)
        assert window.current_key() == "runs" and field.cursorPosition() == 2
    with qtbot.waitSignal(card.finished):
        qtbot.keyClick(window.nav, Qt.Key.Key_Escape)


@pytest.mark.skipif(not (ROOT / "sample_runs" / "sample.db").is_file(), reason="needs the sample runs")
@pytest.mark.parametrize("size", ["1280x720", "1366x768"])
def test_screenshots_of_every_screen_and_dialog_fit_the_screen(tmp_path, size):
    """The real command on the sample runs: one PNG per screen and dialog, none bigger than the screen, nothing cut off."""
    env = {**os.environ, "SAGE_DESK_HOME": str(tmp_path / "home")}
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run(
        [sys.executable, "-m", "sage_desk", "--screenshot", str(tmp_path / "shots"), "--size", size],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "cut off" not in done.stderr, done.stderr
    width, height = (int(v) for v in size.split("x"))
    shots = sorted((tmp_path / "shots").glob("*.png"))
    names = {p.stem.split("-", 1)[1] for p in shots}
    assert {"sop-editor", "review", "tour", "help-shortcuts", "review-compare", "calibration-adjudicate"} <= names
    for shot in shots:
        image = QImage(str(shot))
        assert 0 < image.width() <= width and 0 < image.height() <= height, (shot.name, image.size())
