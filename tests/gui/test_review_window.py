"""The Review screen inside the main window: wired to the shared workspace, opened from other screens."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from sage_desk.core.locations import sample_runs_dir
from sage_desk.core.store import Store
from sage_desk.gui.common.widgets import stylesheet
from sage_desk.gui.main_window import MainWindow
from sage_desk.gui.review import ReviewScreen
from sage_desk.gui.review.list_model import COLUMNS
from sage_desk.gui.review.views import list_width


def test_the_window_opens_review_on_a_conversation_another_screen_asks_for(qtbot, tmp_path):
    db = tmp_path / "sample.db"
    shutil.copyfile(sample_runs_dir() / "sample.db", db)
    with Store(f"sqlite:///{db}") as store:
        run = next(r for r in store.list_runs() if r.domain == "northline")
        target = store.conversations(run.id, agent="baseline:imperfect")[7]  # an agent of the sample runs
    window = MainWindow(settings_home=tmp_path / "home", db_url=f"sqlite:///{db}")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    review = window.screen_widget("review")
    assert isinstance(review, ReviewScreen) and review.workspace is window.workspace
    window.workspace.open_conversation_requested.emit(target.id)
    assert window.current_key() == "review"
    assert review.filters.run_id() == run.id and review.detail.id == target.id
    assert [a.text() for a in window.menuBar().actions()] == ["&File", "&Review", "&Help"]
    rows = dict((text, keys) for keys, text in window.shortcut_rows())
    assert rows["Next Conversation"] == "J" and rows["Save and Next"].startswith("Return")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    review.list.setFocus()
    position = review.current_position()
    QTest.keyClick(review.list, Qt.Key.Key_J)
    assert review.current_position() == position + 1
    window.close()
    window.workspace.close()


def test_a_newcomer_sees_the_sample_runs(qtbot, tmp_path):
    window = MainWindow(settings_home=tmp_path / "home")  # no database given: a copy of sample_runs/sample.db
    qtbot.addWidget(window)
    window.show()
    window.show_screen("review")
    review = window.screen_widget("review")
    copy = tmp_path / "sample.db"  # never opened in place: opening sets WAL mode, which writes the file
    shutil.copyfile(sample_runs_dir() / "sample.db", copy)
    with Store(f"sqlite:///{copy}") as sample:
        assert review.filters.run.count() == len(sample.list_runs()) > 0
    assert review.list_model.rowCount() > 0 and review.detail is not None and review.transcript.toPlainText()
    window.close()
    window.workspace.close()


def settle(review: ReviewScreen) -> None:
    """Run posted events until the screen's layout stops moving (splitters honour minimum sizes a pass late)."""

    def sizes():
        return [s.sizes() for s in review.splitters.values()], review.transcript.viewport().width()

    before = None
    for _ in range(50):
        QApplication.processEvents()
        if sizes() == before:
            return
        before = sizes()
    raise AssertionError("the Review layout kept moving")


@pytest.fixture
def app_look(qapp):
    """The app's own font and stylesheet (as `sage-desk` starts with them), put back afterwards."""
    font, sheet = qapp.font(), qapp.styleSheet()
    looked = QFont(font)
    looked.setPointSizeF(10)
    qapp.setFont(looked)
    qapp.setStyleSheet(stylesheet())
    yield
    qapp.setStyleSheet(sheet)
    qapp.setFont(font)


def test_a_laptop_screen_shows_every_list_column_and_a_readable_transcript(qtbot, tmp_path, app_look):
    db = tmp_path / "sample.db"
    shutil.copyfile(sample_runs_dir() / "sample.db", db)
    window = MainWindow(settings_home=tmp_path / "home", db_url=f"sqlite:///{db}")
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.show_screen("review")
    review = window.screen_widget("review")
    assert isinstance(review, ReviewScreen) and window.size().toTuple() == (1280, 720)
    qtbot.waitUntil(lambda: review.detail is not None)
    settle(review)
    header = review.list.horizontalHeader()
    shown = [c.key for n, c in enumerate(COLUMNS) if not header.isSectionHidden(n)]
    assert shown == ["case", "agent", "repeat", "ending", "rules", "judge", "human"]  # Bucket and Conflict give way
    assert header.length() <= review.list.viewport().width() and not review.list.horizontalScrollBar().isVisible()
    assert review.transcript.isVisible() and review.transcript.viewport().width() >= 300
    verdicts = review.verdicts.horizontalHeader()
    assert verdicts.length() <= review.verdicts.viewport().width()  # Human, the last shown, is in view
    save = review.override.save
    assert save.isVisible() and save.mapTo(review.override, save.rect().bottomRight()).x() < review.override.width()
    main = review.splitters["main"]  # dragged wider, the list shows Bucket and Conflict again
    main.moveSplitter(list_width(review.list, every=True), 1)
    settle(review)
    hidden = [c.key for n, c in enumerate(COLUMNS) if header.isSectionHidden(n)]
    assert hidden == ["tau"]  # tau's reward column shows only for runs imported from tau (issue 31)
    assert header.length() <= review.list.viewport().width() and review.transcript.viewport().width() >= 250
    window.close()
    window.workspace.close()
