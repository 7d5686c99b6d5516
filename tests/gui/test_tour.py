"""The first-run tour (shown once, walks the screens, re-opened from Help) and Help > Documentation."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl

from sage_desk.core.locations import docs_dir
from sage_desk.gui.common.docs_viewer import DocsViewer, doc_pages, page_title
from sage_desk.gui.common.tour import SEEN_KEY, STEPS, TourCard, offer_tour, tour_seen
from sage_desk.gui.common.widgets import PlaceholderScreen
from sage_desk.gui.main_window import MainWindow, ScreenSpec, default_screens


class _Screen(PlaceholderScreen):
    def load(self, _path) -> bool:  # what the window asks of the SOP Editor at start
        return True


def light_screens() -> list[ScreenSpec]:
    """The real screens' keys and names, with placeholders instead of the screens (fast, no database)."""
    return [ScreenSpec(s.key, s.name, s.icon, lambda _w, name=s.name: _Screen(name, "")) for s in default_screens()]


def open_cards(window) -> list[TourCard]:
    return [c for c in window.findChildren(TourCard) if c.isVisible()]


@pytest.fixture
def window(qtbot, tmp_path):
    win = MainWindow(screens=light_screens(), settings_home=tmp_path / "home")
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    qtbot.waitExposed(win)
    return win


def help_action(window, text):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return next(a for a in menu.actions() if a.text() == text)


def test_the_tour_covers_the_five_screens_in_navigation_order():
    assert [s.screen for s in STEPS] == [s.key for s in default_screens()]
    assert all(20 < len(s.text) < 260 for s in STEPS)  # one or two sentences each


def test_first_start_walks_every_screen_and_is_shown_once(qtbot, window):
    card = offer_tour(window)
    assert isinstance(card, TourCard) and card.isVisible()
    assert window.current_key() == "sop-editor" and card.counter.text() == "1 of 6" and card.welcome.isVisible()
    seen = []
    for _ in range(5):
        qtbot.mouseClick(card.next_button, Qt.MouseButton.LeftButton)
        seen.append(window.current_key())
        assert card.heading.text() == window.specs[window.nav.currentRow()].name
    assert seen == ["runs", "review", "calibration", "leaderboard", "compare-runs"]
    assert card.next_button.text() == "Done" and not card.skip_button.isVisible() and not card.welcome.isVisible()
    qtbot.mouseClick(card.back_button, Qt.MouseButton.LeftButton)
    assert window.current_key() == "leaderboard"
    qtbot.mouseClick(card.next_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(card.finished):
        qtbot.mouseClick(card.next_button, Qt.MouseButton.LeftButton)
    assert tour_seen(window) and window.settings.value(SEEN_KEY) in (True, "true")
    assert offer_tour(window) is None


def test_skip_and_escape_close_it_and_mark_it_seen(qtbot, window):
    card = offer_tour(window)
    with qtbot.waitSignal(card.finished):
        qtbot.mouseClick(card.skip_button, Qt.MouseButton.LeftButton)
    assert tour_seen(window)
    again = help_action(window, "Take the Tour")
    again.trigger()
    (card,) = open_cards(window)
    assert window.current_key() == "sop-editor"
    qtbot.keyClick(card, Qt.Key.Key_Right)
    assert window.current_key() == "runs"
    with qtbot.waitSignal(card.finished):
        qtbot.keyClick(card, Qt.Key.Key_Escape)


def test_help_never_opens_two_tours(qtbot, window):
    first = window.take_tour()
    first.next()
    second = window.take_tour()
    assert second is first and first.index == 0
    assert open_cards(window) == [first]


def test_the_card_leaves_what_it_describes_in_view(qtbot, window):
    """The screen's navigation item is highlighted; the card sits low in a corner, off the screen's top half."""
    card = offer_tour(window)
    for index in range(len(card.steps)):
        card.show_step(index)
        assert window.nav.currentRow() == [s.key for s in window.specs].index(card.step.screen)
        geometry = card.geometry()
        screen_area = window.stack.geometry().translated(
            window.stack.parentWidget().mapTo(window, window.stack.pos()) - window.stack.pos()
        )
        assert screen_area.contains(geometry) and geometry.left() > window.nav.geometry().right()
        assert geometry.top() > screen_area.top() + screen_area.height() // 3, card.step.screen


def test_screenshots_never_show_the_tour(qtbot, tmp_path, monkeypatch):
    from sage_desk.gui import app as app_module
    from sage_desk.gui import screenshots

    offered = []
    monkeypatch.setattr(app_module, "offer_tour", offered.append)
    monkeypatch.setattr(app_module, "MainWindow", lambda **kw: MainWindow(screens=light_screens(), **kw))
    monkeypatch.setattr(screenshots, "take_screenshots", lambda window, out, size: [])
    assert app_module.run_app(screenshot_dir=str(tmp_path / "shots")) == 0
    assert offered == []


def test_help_documentation_opens_the_shipped_docs(qtbot, window):
    viewer = help_action(window, "Documentation")
    viewer.trigger()
    docs = window.findChild(DocsViewer)
    assert docs is not None and docs.isVisible()
    qtbot.addWidget(docs)
    assert docs.folder == docs_dir() and docs.contents.count() == len(doc_pages(docs_dir())) > 0
    for row in range(docs.contents.count()):
        docs.contents.setCurrentRow(row)
        assert docs.current_page() == docs.pages[row].name
        assert docs.browser.toPlainText().strip().startswith(page_title(docs.pages[row]))
    docs.open_page("quickstart.md")
    block, shaded = docs.browser.document().begin(), []
    while block.isValid():
        if block.blockFormat().background().color().name() == "#f1f5f9":
            shaded.append(block.text())
        block = block.next()
    assert "sage-desk doctor" in shaded  # code blocks are set off from the prose


def test_links_between_pages_stay_in_the_viewer(qtbot, tmp_path):
    (tmp_path / "README.md").write_text("# Contents\n\nSee [the other page](other.md).\n", encoding="utf-8")
    (tmp_path / "other.md").write_text("# Other page\n\nHello.\n", encoding="utf-8")
    viewer = DocsViewer(tmp_path)
    qtbot.addWidget(viewer)
    assert [viewer.contents.item(i).text() for i in range(2)] == ["Contents", "Other page"]
    viewer.browser.setSource(viewer.browser.source().resolved(QUrl("other.md")))  # as a click on the link does
    assert viewer.current_page() == "other.md" and viewer.contents.currentRow() == 1
    assert "Hello." in viewer.browser.toPlainText()


def test_no_docs_folder_says_where_it_looked(qtbot, tmp_path):
    viewer = DocsViewer(Path(tmp_path / "missing"))
    qtbot.addWidget(viewer)
    assert "No documentation found" in viewer.browser.toPlainText() and str(tmp_path) in viewer.browser.toPlainText()
