"""The Calibration screen on a real judged run: labels written as Review writes them change the figures."""

from __future__ import annotations

import json

import pytest
from calibration_data import HEURISTIC, fresh_store, human_says_pass, judge_script, judged_run_db
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from sage_desk.core.calibration import calibration_report
from sage_desk.gui.calibration import CalibrationScreen
from sage_desk.gui.calibration.models import agreement_words
from sage_desk.gui.common.workspace import Workspace


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return judged_run_db(tmp_path_factory.mktemp("gui-calibration"))


@pytest.fixture
def store(template, tmp_path):
    with fresh_store(template, tmp_path) as s:
        yield s


@pytest.fixture
def screen(qtbot, store):
    widget = CalibrationScreen(workspace=Workspace(store=store))
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.can_close()


def row_texts(model, row):
    """What one row of a table model shows."""
    return [model.data(model.index(row, c)) for c in range(model.columnCount())]


def label(store, workspace, convos, criterion="judge.empathy"):
    """Write overrides as the Review screen does, then tell the other screens."""
    for convo in convos:
        store.add_override(
            convo.id,
            criterion,
            HEURISTIC,
            human_passed=human_says_pass(convo),
            reason="warm" if human_says_pass(convo) else "cold",
            author="ana",
        )
    workspace.verdicts_changed.emit(store.latest_run_id())


def test_models_pass_the_model_tester(qtmodeltester, screen, store):
    label(store, screen.workspace, store.conversations(run_id=store.latest_run_id()))
    qtmodeltester.check(screen.agreement, force_py=True)
    qtmodeltester.check(screen.disagreements, force_py=True)
    qtmodeltester.check(screen.results, force_py=True)


def test_an_unlabelled_run_says_how_to_get_labels(screen, store):
    assert screen.current_run() == store.latest_run_id()
    assert screen.empty.isVisible() and not screen.table.isVisible()
    text = screen.empty.text()
    assert "No human labels" in text and "Review" in text and f"sage-desk label --run {store.latest_run_id()}" in text
    assert "baseline:heuristic" in text
    assert not screen.panel.start.isEnabled() and not screen.export_action.isEnabled()


def test_labelling_changes_the_figures_on_screen(screen, store):
    convos = store.conversations(run_id=store.latest_run_id())
    label(store, screen.workspace, convos[:6])
    assert screen.table.isVisible() and not screen.empty.isVisible()
    assert row_texts(screen.agreement, 0)[:2] == ["empathy", "6"]
    assert "too few labels: 6 of the 20 needed" in row_texts(screen.agreement, 0)[-1]
    label(store, screen.workspace, convos[6:])
    row = row_texts(screen.agreement, 0)
    expected = calibration_report(store, store.latest_run_id()).rows(HEURISTIC)[0].agreement
    assert row == [
        "empathy",
        "40",
        f"{expected.accuracy:.0%}",
        f"{expected.kappa:+.2f}",
        f"{expected.true_pass_rate:.0%}",
        f"{expected.true_fail_rate:.0%}",
        f"enough labels: {agreement_words(expected.kappa)}",
    ]
    assert agreement_words(0.0) == "no better than chance" == agreement_words(-0.1)
    assert agreement_words(0.1) == "slight agreement"
    assert agreement_words(0.85) == "almost perfect agreement"  # never a bare "ok" beside 48 % and kappa 0.00
    c = expected.confusion
    assert screen.matrix.counts() == {"tp": c.tp, "fn": c.fn, "fp": c.fp, "tn": c.tn}
    assert screen.disagreements.rowCount() == c.fp + c.fn > 0
    assert screen.tabs.tabText(0) == f"Disagreements ({c.fp + c.fn})"
    assert screen.judges.currentText() == HEURISTIC and screen.export_action.isEnabled()


def test_the_matrix_and_disagreements_follow_the_selected_criterion(screen, store):
    convos = store.conversations(run_id=store.latest_run_id())
    label(store, screen.workspace, convos)
    label(store, screen.workspace, convos[:10], "judge.linguistic_quality")
    assert [row_texts(screen.agreement, r)[0] for r in range(2)] == ["linguistic quality", "empathy"]
    screen.table.selectRow(1)
    assert screen.matrix.title.text() == "Confusion matrix: empathy"
    screen.table.selectRow(0)
    assert screen.matrix.title.text() == "Confusion matrix: linguistic quality"
    assert {d.criterion for d in screen.disagreements.rows} == {"judge.linguistic_quality"}
    screen.all_criteria.setChecked(True)
    assert {d.criterion for d in screen.disagreements.rows} == {"judge.empathy", "judge.linguistic_quality"}


def test_a_disagreement_opens_in_review_by_double_click_and_by_enter(qtbot, screen, store):
    label(store, screen.workspace, store.conversations(run_id=store.latest_run_id()))
    view = screen.disagreement_view
    first = screen.disagreements.rows[0].conversation_id
    rect = view.visualRect(screen.disagreements.index(0, 0))
    with qtbot.waitSignal(screen.workspace.open_conversation_requested) as opened:
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # a double-click starts with a click
        QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened.args == [first]
    view.setFocus()
    view.setCurrentIndex(screen.disagreements.index(1, 0))
    with qtbot.waitSignal(screen.workspace.open_conversation_requested) as opened:
        QTest.keyClick(view, Qt.Key.Key_Return)
    assert opened.args == [screen.disagreements.rows[1].conversation_id]


def test_a_baseline_judge_cannot_be_calibrated_and_the_screen_says_so(screen, store):
    label(store, screen.workspace, store.conversations(run_id=store.latest_run_id()))
    assert screen.panel.model_name() == ""  # the run has only the heuristic judge
    assert "baseline:heuristic has no prompt" in screen.panel.note.text()
    assert not screen.panel.start.isEnabled() and not screen.start_calibration()
    screen.panel.model.setCurrentText("baseline:heuristic")
    assert "no prompt" in screen.panel.note.text() and not screen.panel.start.isEnabled()
    screen.panel.model.setCurrentText("openai/gpt-4o-mini")
    assert screen.panel.start.isEnabled() and not screen.panel.note.isVisible()


def test_calibrate_runs_in_the_background_and_shows_before_and_after(qtbot, screen, store, fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_openai.script = judge_script
    label(store, screen.workspace, store.conversations(run_id=store.latest_run_id()))
    screen.panel.model.setCurrentText("openai/fake-judge")
    screen.panel.api_base.setText(fake_openai.base_url)
    progress = []
    screen.panel.progress.valueChanged.connect(progress.append)
    assert screen.start_calibration()
    assert screen.panel.cancel.isVisible() and not screen.panel.start.isEnabled()
    qtbot.waitUntil(lambda: screen._worker is None, timeout=30000)
    assert screen.results.rowCount() == 1 and screen.tabs.currentIndex() == 1
    cells = row_texts(screen.results, 0)
    assert cells[0] == "empathy" and cells[2].endswith("→ 100%") and cells[3].endswith("→ +1.00")
    assert "accuracy" in screen.results_summary.text() and "stored verdicts are unchanged" in screen.results_summary.text()
    assert screen.panel.start.isEnabled() and not screen.panel.cancel.isVisible()
    assert progress and progress[-1] == screen.panel.progress.maximum() > 0


def test_cancel_stops_a_calibration(qtbot, screen, store, fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_openai.script = judge_script
    fake_openai.latency = 0.3
    label(store, screen.workspace, store.conversations(run_id=store.latest_run_id()))
    screen.panel.model.setCurrentText("openai/fake-judge")
    screen.panel.api_base.setText(fake_openai.base_url)
    messages = []
    screen.message.connect(messages.append)
    assert screen.start_calibration()
    assert fake_openai.wait_for_requests(1, timeout=10)
    screen.cancel_calibration()
    qtbot.waitUntil(lambda: screen._worker is None, timeout=10000)
    assert messages[-1] == "Calibration cancelled" and screen.results.rowCount() == 0


def test_export_writes_the_set(screen, store, tmp_path):
    label(store, screen.workspace, store.conversations(run_id=store.latest_run_id())[:5])
    assert screen.export_set(tmp_path / "set.jsonl") == 5
    records = [json.loads(line) for line in (tmp_path / "set.jsonl").read_text().splitlines()]
    assert {r["criterion"] for r in records} == {"judge.empathy"}
    assert screen.export_set(tmp_path / "set.csv") == 5
    assert (tmp_path / "set.csv").read_text().startswith("id,conversation_id")


def test_calibrating_against_a_dead_endpoint_reports_the_error(qtbot, screen, store, monkeypatch):
    """Every call fails: that is a failed calibration with the reason on screen, never an empty success."""
    import socket

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    label(store, screen.workspace, store.conversations(run_id=store.latest_run_id()))
    screen.panel.model.setCurrentText("openai/fake-judge")
    screen.panel.api_base.setText(dead)
    messages = []
    screen.message.connect(messages.append)
    assert screen.start_calibration()
    qtbot.waitUntil(lambda: screen._worker is None, timeout=15_000)  # one probe, not minutes of retries
    assert messages[-1].startswith(f"Calibration failed: openai/fake-judge at {dead} does not answer")
    # the reason is the connection's own (issue 38's plain-HTTP client words it 'cannot reach URL: ConnectionRefusedError')
    assert f"cannot reach {dead}: ConnectionRefusedError" in messages[-1] and screen.results.rowCount() == 0


def test_a_judge_that_answers_nothing_usable_is_a_failed_calibration(qtbot, screen, store, fake_openai, monkeypatch):
    from fakes import FakeReply

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_openai.script = lambda _request: FakeReply(content="OK")  # answers, but never a verdict
    label(store, screen.workspace, store.conversations(run_id=store.latest_run_id()))
    screen.panel.model.setCurrentText("openai/fake-judge")
    screen.panel.api_base.setText(fake_openai.base_url)
    messages = []
    screen.message.connect(messages.append)
    assert screen.start_calibration()
    qtbot.waitUntil(lambda: screen._worker is None, timeout=30_000)
    assert messages[-1].startswith("Calibration failed: openai/fake-judge answered none of")
    assert "answered none" in screen.results_summary.text() and screen.results.rowCount() == 0
