"""The main window: screens, menus, settings kept between sessions, errors shown, screenshots."""

from __future__ import annotations

from PySide6.QtCore import QSize

from sage_desk.gui.common.widgets import PlaceholderScreen
from sage_desk.gui.main_window import MainWindow
from sage_desk.gui.screenshots import take_screenshots


def make_window(qtbot, home, monkeypatch, sops):
    monkeypatch.setenv("SAGE_DESK_SOPS", str(sops))
    window = MainWindow(settings_home=home)
    qtbot.addWidget(window)
    window.open_initial_graph()
    window.show()
    qtbot.waitExposed(window)
    return window


def test_every_screen_is_listed_and_unbuilt_ones_say_so(qtbot, tmp_path, monkeypatch, shop_dir):
    window = make_window(qtbot, tmp_path / "home", monkeypatch, shop_dir.parent)
    names = ["SOP Editor", "Runs", "Review", "Calibration", "Leaderboard", "Compare Runs"]
    window.resize(1600, 900)
    qtbot.waitUntil(lambda: [window.nav.item(i).text() for i in range(window.nav.count())] == names)
    window.resize(1280, 720)  # a laptop: icons only, the names on hover
    qtbot.waitUntil(lambda: window.nav.width() < 80)
    assert [window.nav.item(i).toolTip().split(" (")[0] for i in range(window.nav.count())] == names
    window.nav.setCurrentRow(1)
    assert [a.text() for a in window.menuBar().actions()] == ["&File", "&Runs", "&Help"]
    unbuilt = [key for key, widget in window.screens.items() if isinstance(widget, PlaceholderScreen)]
    for key in unbuilt:
        window.show_screen(key)
        assert window.screen_widget(key).text.startswith(
            f"{window.specs[window.nav.currentRow()].name} arrives in a later release"
        )
        assert not window.toolbar.isVisible()
        assert [a.text() for a in window.menuBar().actions()] == ["&File", "&Help"]
    window.show_screen("sop-editor")
    assert [a.text() for a in window.menuBar().actions()] == ["&File", "&Edit", "&View", "&Help"]
    assert window.toolbar.isVisible()


def test_every_screen_fits_a_laptop(qtbot, tmp_path, monkeypatch, shop_dir):
    """1280x720 with a task bar and a title bar leaves about 1280x680: every screen fits in it."""
    window = make_window(qtbot, tmp_path / "home", monkeypatch, shop_dir.parent)
    window.resize(1280, 680)
    for spec in window.specs:
        window.show_screen(spec.key)
        hint = window.minimumSizeHint().expandedTo(window.minimumSize())
        assert hint.width() <= 1280 and hint.height() <= 680, (spec.key, hint)
        qtbot.waitUntil(lambda: window.size() == QSize(1280, 680))
        screen = window.screen_widget(spec.key)
        assert screen.height() <= window.stack.height() and window.statusBar().isVisible()


def test_opens_the_shipped_graph_first_and_restores_the_session(qtbot, tmp_path, monkeypatch, shop_dir):
    home = tmp_path / "home"
    monkeypatch.setenv("SAGE_DESK_SOPS", str(shop_dir.parent))
    (shop_dir.parent / "northline").mkdir()
    (shop_dir.parent / "northline" / "sop.yaml").write_text(
        (shop_dir / "sop.yaml").read_text().replace("name: shop", "name: northline")
    )
    window = make_window(qtbot, home, monkeypatch, shop_dir.parent)
    editor = window.screen_widget("sop-editor")
    assert editor.path.parent.name == "northline" and window.windowTitle().startswith("northline/sop.yaml")
    assert editor.load(shop_dir / "sop.yaml")
    window.resize(QSize(760, 740))
    window.show_screen("review")
    window.close()
    again = make_window(qtbot, home, monkeypatch, shop_dir.parent)
    assert again.screen_widget("sop-editor").path == shop_dir / "sop.yaml"
    assert again.current_key() == "review" and again.size() == QSize(760, 740)


def test_title_shows_a_star_while_modified(qtbot, tmp_path, monkeypatch, shop_dir):
    window = make_window(qtbot, tmp_path / "home", monkeypatch, shop_dir.parent)
    editor = window.screen_widget("sop-editor")
    editor.load(shop_dir / "sop.yaml")
    editor.scene.select_only(["done"])
    editor.delete_selection()
    assert window.windowTitle().startswith("shop/sop.yaml* ")
    editor.undo_stack.undo()
    assert window.windowTitle() == "shop/sop.yaml — SOP Editor — SAGE Desk"
    window.show_screen("leaderboard")  # each screen names the window, not the editor's file
    assert window.windowTitle() == "Leaderboard — SAGE Desk"


def test_errors_reach_the_status_bar_and_a_dialog(qtbot, tmp_path, monkeypatch, shop_dir):
    window = make_window(qtbot, tmp_path / "home", monkeypatch, shop_dir.parent)
    window.notifier.report_worker_error(RuntimeError("the database went away"))
    assert "the database went away" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.last_error_box.isVisible(), timeout=2000)
    assert "RuntimeError" in window.last_error_box.detailedText()
    window.last_error_box.close()


def test_the_shortcut_list_names_the_editor_keys(qtbot, tmp_path, monkeypatch, shop_dir):
    window = make_window(qtbot, tmp_path / "home", monkeypatch, shop_dir.parent)
    rows = dict((text, keys) for keys, text in window.shortcut_rows())
    assert rows["Save"] == "Ctrl+S" and rows["Fit to View"] == "F" and rows["Delete"].startswith("Del")
    assert "Ctrl+Shift+Z" in rows["Redo"] and rows["Go to Review"] == "Ctrl+3"
    dialog = window.show_shortcuts()
    assert dialog.isVisible()
    dialog.close()


def test_screenshots_write_one_png_per_screen(qtbot, tmp_path, monkeypatch, shop_dir):
    window = make_window(qtbot, tmp_path / "home", monkeypatch, shop_dir.parent)
    window.screen_widget("sop-editor").load(shop_dir / "sop.yaml")
    written = take_screenshots(window, tmp_path / "shots", (1200, 800))
    names = [p.name for p in written]
    assert names[0] == "01-sop-editor.png" and "05-leaderboard.png" in names
    assert all(p.stat().st_size > 5000 for p in written)


def test_splitter_sizes_are_kept_between_sessions(qtbot, tmp_path, monkeypatch, shop_dir):
    from PySide6.QtWidgets import QSplitter

    home = tmp_path / "home"
    window = make_window(qtbot, home, monkeypatch, shop_dir.parent)
    window.show_screen("leaderboard")
    splitter = window.screen_widget("leaderboard").findChild(QSplitter, "leaderboardSides")
    qtbot.waitUntil(lambda: splitter.sizes()[0] > 0)
    splitter.setSizes([200, sum(splitter.sizes()) - 200])
    window.close()
    again = make_window(qtbot, home, monkeypatch, shop_dir.parent)
    assert again.current_key() == "leaderboard"
    qtbot.waitUntil(lambda: again.screen_widget("leaderboard").findChild(QSplitter, "leaderboardSides").sizes()[0] == 200)
