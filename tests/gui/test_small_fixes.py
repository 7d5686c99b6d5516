"""Issue 35's smaller items on the screens: the queue bar's messages read as written, the tour says which
runs it opened on, Compare Runs keeps the toolbar (the navigation no longer jumps)."""

from __future__ import annotations

from PySide6.QtGui import Qt, QTextDocument

from sage_desk.gui.common.tour import WELCOME, WELCOME_OWN, TourCard
from sage_desk.gui.main_window import MainWindow
from sage_desk.gui.review.queue_bar import QueueBar


def shown_text(label) -> str:
    """What the label draws: its text as HTML when it reads it as rich text, else the characters as they are."""
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and Qt.mightBeRichText(label.text()))
    if not rich:
        return label.text()
    document = QTextDocument()
    document.setHtml(label.text())
    return document.toPlainText()


def test_a_queue_message_with_quotes_reads_as_written(qtbot):
    bar = QueueBar()
    qtbot.addWidget(bar)
    bar.say("'lead' is not a reviewer of queue 'week 48' (reviewers: ana, ben)")
    assert shown_text(bar.note) == "'lead' is not a reviewer of queue 'week 48' (reviewers: ana, ben)"
    assert "&#x27;" not in shown_text(bar.note)


def test_the_tour_says_which_runs_it_opened_on(qtbot, tmp_path):
    own = MainWindow(settings_home=tmp_path / "own", db_url=f"sqlite:///{tmp_path / 'team.db'}")
    qtbot.addWidget(own)
    assert TourCard(own).welcome.text() == WELCOME_OWN
    sample = MainWindow(settings_home=tmp_path / "sample", db_url="sample")
    qtbot.addWidget(sample)
    assert TourCard(sample).welcome.text() == WELCOME


def test_compare_runs_keeps_the_toolbar_so_the_navigation_stays_put(qtbot, tmp_path, monkeypatch, shop_dir):
    monkeypatch.setenv("SAGE_DESK_SOPS", str(shop_dir.parent))
    window = MainWindow(settings_home=tmp_path / "home", db_url=f"sqlite:///{tmp_path / 'runs.db'}")
    qtbot.addWidget(window)
    window.resize(1280, 680)
    window.show()
    qtbot.waitExposed(window)
    tops = {}
    for spec in window.specs:
        window.show_screen(spec.key)
        qtbot.wait(5)
        assert window.toolbar.isVisible(), spec.key
        tops[spec.key] = window.nav.mapTo(window, window.nav.rect().topLeft()).y()
    assert len(set(tops.values())) == 1, tops
