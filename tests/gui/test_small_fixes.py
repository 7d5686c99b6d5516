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
        label.textFormat() == Qt.TextFormat.AutoText and Qt.mightBeRichText(label.text())
    )
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


def test_p_labels_a_scored_verdict_pass_without_a_score(qtbot, tmp_path):
    """The heuristic judge scores every verdict, so P and X were refused on all of them (issue 35)."""
    import asyncio

    from gui_helpers import open_review

    from sage_desk.core.engine.runner import Runner, RunSpec
    from sage_desk.core.judge.heuristic import SOURCE, HeuristicJudge
    from sage_desk.core.scoring.hooks import verdict_hook
    from sage_desk.core.store import Store

    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, post=verdict_hook(store, [HeuristicJudge()]))
    run_id = runner.create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=["nl-001"], repeats=1))
    asyncio.run(runner.execute(run_id))
    screen = open_review(qtbot, store, author="tester")
    qtbot.waitUntil(lambda: screen.detail is not None)
    row = screen.verdict_model.row_of("judge.empathy", SOURCE)
    screen.verdicts.selectRow(row)
    screen.list.setFocus()
    screen.key_value("p")
    assert screen.verdict_model.pending  # keyed (it was refused: "1–5 set the score")
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        screen.save_and_next()
    (label,) = store.overrides(conversation_id=screen.list_model.conversation_id(0))
    assert (label.criterion, label.human_passed, label.human_score) == ("judge.empathy", True, None)
    store.close()
