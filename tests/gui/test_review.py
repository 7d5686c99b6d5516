"""The Review screen on a real judged run: list and filters, linked views, keyboard overrides, compare.

Expected figures come from the store's ordinary API (conversations, verdicts, overrides) or from
core metrics, never from the screen's own models.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import statistics

import pytest
from gui_helpers import open_review
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.judge.heuristic import SOURCE as HEURISTIC
from sage_desk.core.judge.heuristic import HeuristicJudge
from sage_desk.core.metrics.aggregate import model_metrics
from sage_desk.core.metrics.load import results_for_runs
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store
from sage_desk.gui.common.workspace import Workspace
from sage_desk.gui.review import ReviewScreen
from sage_desk.gui.review.list_model import ConversationListModel
from sage_desk.gui.review.screen import EMPTY_TEXT
from sage_desk.gui.review.transcript import HIGHLIGHT
from sage_desk.gui.review.verdict_model import VerdictModel

CASES = ["nl-001", "nl-053", "nl-121", "nl-145", "nl-150"]
AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]


@pytest.fixture(scope="module")
def db_file(tmp_path_factory):
    """One judged run: three baselines on five Northline cases, two repeats, the heuristic judge."""
    path = tmp_path_factory.mktemp("review") / "runs.db"
    with Store(f"sqlite:///{path}") as store:
        runner = Runner(store, post=verdict_hook(store, [HeuristicJudge()]))
        run_id = runner.create(RunSpec(domain="northline", agents=AGENTS, cases=CASES, repeats=2))
        asyncio.run(runner.execute(run_id))
    return path


@pytest.fixture
def db_url(db_file, tmp_path):
    copy = tmp_path / "runs.db"
    shutil.copyfile(db_file, copy)
    return f"sqlite:///{copy}"


@pytest.fixture
def store(db_url):
    with Store(db_url) as s:
        yield s


def make_screen(qtbot, store):
    # a name for the labels: saving would ask for one (test_reviewer_name.py)
    return open_review(qtbot, store, size=(1500, 900), author="tester")


@pytest.fixture
def screen(qtbot, store):
    return make_screen(qtbot, store)


def shown_ids(screen):
    model = screen.list_model
    return [model.conversation_id(i) for i in range(model.rowCount())]


def select_verdict(screen, criterion, source="rules"):
    row = screen.verdict_model.row_of(criterion, source)
    assert row is not None, criterion
    screen.verdicts.selectRow(row)
    return screen.verdict_model.verdict(row)


def highlighted_anchors(html):
    """The event anchors inside highlighted cells of the transcript."""
    return re.findall(rf'<td[^>]*bgcolor="{HIGHLIGHT}"[^>]*>\s*<p[^>]*><a name="(e\d+)">', html)


def key(screen, k, text=""):
    QTest.keyClick(QApplication.focusWidget() or screen.list, k, Qt.KeyboardModifier.NoModifier)


def test_models_pass_the_model_tester(qtmodeltester, screen):
    qtmodeltester.check(screen.list_model, force_py=True)
    qtmodeltester.check(screen.verdict_model, force_py=True)
    qtmodeltester.check(ConversationListModel(), force_py=True)
    qtmodeltester.check(VerdictModel(), force_py=True)


def test_the_list_shows_every_conversation_with_its_summary(screen, store):
    run_id = store.latest_run_id()
    records = store.conversations(run_id)
    assert shown_ids(screen) == [c.id for c in records]
    assert screen.filters.count.text() == f"{len(records)} conversations"
    model = screen.list_model
    complier = next(
        i
        for i in range(model.rowCount())
        if store.conversation(model.conversation_id(i)).agent == "baseline:complier"
        and store.conversation(model.conversation_id(i)).case_id == "nl-145"
    )
    failed = [v for v in store.verdicts(conversation_id=model.conversation_id(complier), source="rules") if v.passed is False]
    rules = model.data(model.index(complier, model.column_of("rules")))
    catastrophic = any(v.criterion.startswith("catastrophic.") for v in failed)
    assert rules == f"{'⚠' if catastrophic else '✗'} {len(failed)}"
    assert model.data(model.index(complier, model.column_of("agent"))) == "complier"


def test_filters_narrow_the_list(screen, store, qtbot):
    run_id = store.latest_run_id()
    oracle = [c.id for c in store.conversations(run_id, agent="baseline:oracle")]
    screen.filters.set_value("agent", "baseline:oracle")
    assert shown_ids(screen) == oracle
    screen.filters.set_value("agent", None)
    screen.filters.set_value("bucket", "adversarial")
    assert shown_ids(screen) == [c.id for c in store.conversations(run_id, bucket="adversarial")]
    screen.filters.clear_filters()
    screen.filters.failures.setChecked(True)
    failing = {v.conversation_id for v in store.verdicts(run_id=run_id, source="rules") if v.passed is False}
    assert set(shown_ids(screen)) == failing and 0 < len(failing) < len(oracle) * 3
    screen.filters.failures.setChecked(False)
    screen.filters.set_value("failing", "catastrophic.*")
    unsafe = {
        v.conversation_id for v in store.verdicts(run_id=run_id) if v.criterion.startswith("catastrophic.") and not v.passed
    }
    assert set(shown_ids(screen)) == unsafe and unsafe
    assert screen.filters.count.text() == f"{len(unsafe)} of {len(oracle) * 3}"
    screen.filters.clear_filters()
    screen.filters.in_transcripts.setChecked(False)
    screen.filters.search.setText("nl-121")
    assert {store.conversation(cid).case_id for cid in shown_ids(screen)} == {"nl-121"} and len(shown_ids(screen)) == 6
    screen.filters.clear_filters()
    assert len(shown_ids(screen)) == len(oracle) * 3


def test_search_reaches_into_transcripts_after_a_pause(screen, store, qtbot):
    run_id = store.latest_run_id()
    word = "photo"
    said = {
        cid
        for cid, events in store.events_many([c.id for c in store.conversations(run_id)]).items()
        if any(e.type in ("customer_message", "agent_message") and word in e.text.lower() for e in events)
    }
    assert said
    screen.filters.search.setText(word)
    qtbot.waitUntil(lambda: set(shown_ids(screen)) >= said, timeout=3000)
    assert screen.filters.text_ids == frozenset(said)


def test_selecting_a_verdict_highlights_its_event_and_node(screen, store):
    run_id = store.latest_run_id()
    cid = next(c.id for c in store.conversations(run_id, agent="baseline:complier", case_id="nl-145"))
    screen.show_conversation(cid)
    verdict = next(v for v in store.verdicts(conversation_id=cid) if v.criterion.startswith("catastrophic.") and not v.passed)
    select_verdict(screen, verdict.criterion)
    events = {e.seq: e for e in store.events(cid)}
    assert events[verdict.event_seq].type == "tool_call"
    assert screen.transcript.highlighted_seq == verdict.event_seq
    assert highlighted_anchors(screen.transcript.toHtml()) == [f"e{verdict.event_seq}"]
    assert screen.timeline.selected_seq() == verdict.event_seq
    assert screen.timeline.currentItem().text(1).endswith(events[verdict.event_seq].name)
    # the tool call is money-moving (a `record` tool): marked in the timeline
    assert screen.timeline.currentItem().text(1).startswith("$")
    no_event = next(v for v in store.verdicts(conversation_id=cid) if v.event_seq is None)
    select_verdict(screen, no_event.criterion, no_event.source)
    assert highlighted_anchors(screen.transcript.toHtml()) == [] and screen.timeline.selected_seq() is None
    # a verdict about a graph node selects that node on the route
    step = next(v for v in store.verdicts(conversation_id=cid) if v.node)
    select_verdict(screen, step.criterion)
    assert [n for n, item in screen.route.scene.nodes.items() if item.isSelected()] == [step.node]
    assert screen.override.title.text().startswith(f"<b>{step.criterion}</b>")


def test_the_route_marks_where_the_agent_left_the_expected_path(screen, store):
    run_id = store.latest_run_id()
    escalator = next(c.id for c in store.conversations(run_id, agent="baseline:escalator", case_id="nl-001"))
    screen.show_conversation(escalator)
    trace = screen.detail.trace
    assert trace.divergence is not None and trace.taken != trace.expected
    assert "Left the expected route" in screen.route.summary.text()
    labels = [i.text() for i in screen.route.scene.overlays if hasattr(i, "text")]
    assert labels == ["first divergence"]
    oracle = next(c.id for c in store.conversations(run_id, agent="baseline:oracle", case_id="nl-001"))
    screen.show_conversation(oracle)
    assert "Followed the expected route." in screen.route.summary.text()


def test_keyboard_moves_between_conversations_and_verdicts(screen):
    assert screen.current_position() == 0
    key(screen, Qt.Key.Key_J)
    key(screen, Qt.Key.Key_J)
    assert screen.current_position() == 2
    key(screen, Qt.Key.Key_K)
    assert screen.current_position() == 1
    key(screen, Qt.Key.Key_Down)
    assert screen.current_position() == 2 and screen.detail.id == screen.list_model.conversation_id(2)
    screen.verdicts.selectRow(0)
    screen.list.setFocus()
    key(screen, Qt.Key.Key_Right)
    key(screen, Qt.Key.Key_Right)
    assert screen.selected_verdict_row() == 2
    key(screen, Qt.Key.Key_Left)
    assert screen.selected_verdict_row() == 1


def click_header(screen, column_key):
    header = screen.list.horizontalHeader()
    column = screen.list_model.column_of(column_key)
    point = QPoint(header.sectionViewportPosition(column) + header.sectionSize(column) // 2, header.height() // 2)
    QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)


def test_sorting_keeps_the_conversation_you_act_on(qtbot, screen, store):
    key(screen, Qt.Key.Key_J)
    key(screen, Qt.Key.Key_J)
    key(screen, Qt.Key.Key_J)
    chosen = screen.detail.id
    before = shown_ids(screen)
    click_header(screen, "agent")
    click_header(screen, "agent")  # descending: the chosen row surely moves
    after = shown_ids(screen)
    assert after != before and after.index(chosen) != before.index(chosen)
    # the highlight followed the conversation; the detail pane still shows it
    assert screen.list_model.conversation_id(screen.current_position()) == chosen == screen.detail.id
    assert [i.row() for i in screen.list.selectionModel().selectedRows()] == [after.index(chosen)]
    # a keyed value and Save & next land on the shown conversation, then J follows the new order
    select_verdict(screen, "outcome")
    screen.list.setFocus()
    key(screen, Qt.Key.Key_P)
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        key(screen, Qt.Key.Key_Return)
    assert [o.conversation_id for o in store.overrides()] == [chosen]
    assert screen.detail.id == after[after.index(chosen) + 1]


def test_keyed_override_is_saved_moves_on_and_survives_a_restart(qtbot, screen, store, db_url):
    run_id = store.latest_run_id()
    cid = screen.detail.id
    verdict = select_verdict(screen, "judge.empathy", HEURISTIC)
    screen.list.setFocus()
    key(screen, Qt.Key.Key_4)  # 0.75 on the five-step scale
    assert screen.verdict_model.pending == {verdict.id: screen.verdict_model.pending[verdict.id]}
    assert screen.verdict_model.data(screen.verdict_model.index(screen.selected_verdict_row(), 3)) == "0.75 · pass (unsaved)"
    key(screen, Qt.Key.Key_R)
    assert QApplication.focusWidget() is screen.override.reason
    QTest.keyClicks(screen.override.reason, "warm and personal")
    screen.override.author.setText("ann")
    with qtbot.waitSignal(screen.workspace.verdicts_changed) as signal:
        key(screen, Qt.Key.Key_Return)
    assert signal.args == [run_id]
    [saved] = store.overrides(conversation_id=cid)
    assert (saved.criterion, saved.human_score, saved.human_passed, saved.reason, saved.author) == (
        "judge.empathy",
        0.75,
        True,
        "warm and personal",
        "ann",
    )
    assert (saved.original_score, saved.original_passed) == (verdict.score, verdict.passed)
    assert screen.current_position() == 1 and screen.detail.id != cid  # moved on
    model = screen.list_model
    assert model.data(model.index(0, model.column_of("human"))).startswith("✎1")
    # a restart: a new store on the same file, a new screen
    store.close()
    again = make_screen(qtbot, Store(db_url))
    assert again.show_conversation(cid)
    row = again.verdict_model.row_of("judge.empathy", HEURISTIC)
    cells = [again.verdict_model.data(again.verdict_model.index(row, c)) for c in (2, 3)]
    assert cells == [f"{verdict.score:.2f} · {'pass' if verdict.passed else 'fail'}", "0.75 · pass"]
    assert again.verdict_model.data(again.verdict_model.index(row, 2), Qt.ItemDataRole.FontRole).strikeOut()
    again.store.close()


def policy_metric(store, run_id, agent):
    row = next(r for r in model_metrics(results_for_runs(store, [run_id])) if r["agent"] == agent)
    return row["policy_adherence"]


def test_an_override_changes_the_metric(qtbot, screen, store):
    run_id = store.latest_run_id()
    agent = "baseline:escalator"
    before = policy_metric(store, run_id, agent)
    target = store.conversations(run_id, agent=agent)[0]
    screen.show_conversation(target.id)
    select_verdict(screen, "judge.policy_adherence", HEURISTIC)
    screen.list.setFocus()
    key(screen, Qt.Key.Key_5)  # 1.00
    with qtbot.waitSignal(screen.workspace.verdicts_changed):  # saved on a thread
        key(screen, Qt.Key.Key_Return)
    # expected, by hand: the mean score per repeat (the human's 1.0 in place of the judge's), then the median
    scores = {}
    for c in store.conversations(run_id, agent=agent):
        judged = next(v for v in store.verdicts(conversation_id=c.id) if v.criterion == "judge.policy_adherence")
        scores.setdefault(c.repeat, []).append(1.0 if c.id == target.id else judged.score)
    expected = statistics.median(statistics.fmean(v) for v in scores.values())
    after = policy_metric(store, run_id, agent)
    assert after == pytest.approx(expected) and after != pytest.approx(before)


def test_keys_that_mean_nothing_here_say_so_and_key_nothing(screen, qtbot):
    select_verdict(screen, "outcome")
    screen.list.setFocus()
    for number in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3):  # numbers are scores: never pass or fail
        with qtbot.waitSignal(screen.message) as signal:
            key(screen, number)
        assert "P = pass, X = fail" in signal.args[0] and not screen.verdict_model.pending
    key(screen, Qt.Key.Key_P)
    assert len(screen.verdict_model.pending) == 1
    key(screen, Qt.Key.Key_0)
    assert not screen.verdict_model.pending


def test_each_key_has_one_meaning_on_every_verdict(screen, qtbot):
    """P and X are pass and fail (on any verdict), 1-5 are scores; a key that does not fit a verdict keys nothing."""
    outcome = select_verdict(screen, "outcome")
    screen.list.setFocus()
    key(screen, Qt.Key.Key_X)
    assert screen.verdict_model.pending[outcome.id].passed is False
    empathy = select_verdict(screen, "judge.empathy", HEURISTIC)
    screen.list.setFocus()
    key(screen, Qt.Key.Key_2)
    assert screen.verdict_model.pending[empathy.id].score == 0.25
    key(screen, Qt.Key.Key_P)  # a scored verdict takes pass or fail without a score too (issue 35)
    assert screen.verdict_model.pending[empathy.id].passed is True and screen.verdict_model.pending[empathy.id].score is None
    assert [b.text() for b in screen.override.value_buttons if not b.isHidden()][:2] == ["1: 0", "2: 0.25"]


def test_enter_with_nothing_keyed_just_moves_on(screen, store):
    key(screen, Qt.Key.Key_Return)
    assert screen.current_position() == 1 and store.overrides() == []


def test_show_conversation_clears_filters_that_hide_it(screen, store):
    run_id = store.latest_run_id()
    target = store.conversations(run_id, agent="baseline:escalator")[3]
    screen.filters.set_value("agent", "baseline:oracle")
    assert target.id not in shown_ids(screen)
    assert screen.show_conversation(target.id)
    assert screen.detail.id == target.id and screen.filters.combos["agent"].currentIndex() == 0
    assert screen.list_model.conversation_id(screen.current_position()) == target.id


def test_show_conversation_switches_to_its_run(qtbot, screen, store):
    first_run = store.latest_run_id()
    other = store.create_run("northline", {"agents": ["x"]}, [{"id": "other-1", "case_id": "nl-001", "agent": "x"}])
    screen.refresh()
    assert screen.filters.run_id() in (first_run, other)
    screen.filters.choose_run(first_run)
    assert screen.show_conversation("other-1")
    assert screen.filters.run_id() == other and screen.detail.id == "other-1"
    assert screen.route.summary.text() != ""  # pending, no events: the views stay usable


def test_compare_shows_two_conversations_of_the_case(screen, store):
    run_id = store.latest_run_id()
    cid = next(c.id for c in store.conversations(run_id, agent="baseline:oracle", case_id="nl-145", repeat=1))
    screen.show_conversation(cid)
    dialog = screen.compare()
    assert dialog is not None and dialog.isVisible()
    left, right = store.conversation(dialog.left.conversation_id()), store.conversation(dialog.right.conversation_id())
    assert left.id == cid and right.case_id == "nl-145" and right.agent != left.agent and right.repeat == left.repeat
    assert dialog.left.picker.count() == len(store.conversations(run_id, case_id="nl-145"))
    first_words = store.events(right.id)[0].text.split()[0]
    assert first_words in dialog.right.transcript.toPlainText()
    repeat = next(c.id for c in store.conversations(run_id, agent="baseline:oracle", case_id="nl-145", repeat=2))
    dialog.right.show_conversation(repeat)
    assert dialog.right.conversation_id() == repeat
    calls = [e for e in store.events(repeat) if e.type == "tool_call" and e.name not in ("tag_ticket", "close_ticket")]
    timeline = dialog.right.timeline
    # the oracle tags the ticket before it acts (issue 32's classification.timing), then makes its first call
    assert timeline.topLevelItem(0).text(1) == "tag_ticket" and timeline.topLevelItem(1).text(1).endswith(calls[0].name)
    dialog.close()


def test_question_mark_lists_the_shortcuts(screen, qtbot):
    key(screen, Qt.Key.Key_Question)
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.objectName() == "reviewShortcuts")
    assert dialog.isVisible() and "Enter" in dialog.findChild(type(screen.title)).text()
    dialog.close()


def test_a_new_run_appears_when_runs_change(screen, store, qtbot):
    before = screen.filters.run.count()
    store.create_run("northline", {"agents": ["y"]}, [{"id": "late-1", "case_id": "nl-001", "agent": "y"}])
    screen.workspace.runs_changed.emit()
    screen.workspace.runs_changed.emit()  # a burst is read once, after a short delay
    qtbot.waitUntil(lambda: screen.filters.run.count() == before + 1, timeout=4000)


def test_an_empty_store_says_how_to_get_runs(qtbot, tmp_path):
    screen = make_screen(qtbot, Store(f"sqlite:///{tmp_path / 'empty.db'}"))
    assert screen.empty.isVisible() and screen.empty.text() == EMPTY_TEXT
    key(screen, Qt.Key.Key_J)  # nothing to move to, nothing breaks
    screen.store.close()


def test_text_fields_keep_their_keys(screen):
    select_verdict(screen, "outcome")
    key(screen, Qt.Key.Key_P)
    key(screen, Qt.Key.Key_R)
    QTest.keyClicks(screen.override.reason, "j k 1 0 ?")
    QTest.keyClick(screen.override.reason, Qt.Key.Key_Backspace)
    assert screen.override.reason.text() == "j k 1 0 "
    assert screen.current_position() == 0 and len(screen.verdict_model.pending) == 1  # no shortcut fired
    key(screen, Qt.Key.Key_Escape)
    assert QApplication.focusWidget() is screen.list
    screen._focus_search()
    QTest.keyClicks(screen.filters.search, "nl-0")
    QTest.keyClick(screen.filters.search, Qt.Key.Key_Return)  # Enter in the search box only goes back to the list
    assert QApplication.focusWidget() is screen.list and len(screen.verdict_model.pending) == 1


def test_changes_made_elsewhere_reach_the_list_and_idle_ticks_do_not_reread_it(screen, store, qtbot):
    table = screen.list_model.table
    screen.workspace.runs_changed.emit()  # nothing changed in this run
    qtbot.wait(1500)
    assert screen.list_model.table is table
    cid = screen.list_model.conversation_id(0)
    store.add_override(cid, "outcome", "rules", human_passed=False, author="label import")
    screen.workspace.verdicts_changed.emit(store.latest_run_id())  # e.g. Calibration or `sage-desk label`
    qtbot.waitUntil(lambda: screen.list_model.table is not table, timeout=4000)
    model = screen.list_model
    assert model.data(model.index(0, model.column_of("human"))).startswith("✎1")


def test_panes_become_tabs_on_a_laptop_and_sizes_are_remembered(qtbot, screen, store, tmp_path):
    from PySide6.QtCore import QSettings

    screen.resize(1500, 900)
    qtbot.waitUntil(lambda: not screen.reading.tabbed)
    assert screen.route.isVisible() and screen.transcript.isVisible()
    screen.resize(1200, 600)  # the detail is too short for the transcript over the route: tabs
    qtbot.waitUntil(lambda: screen.reading.tabbed)
    assert screen.transcript.isVisible() and not screen.route.isVisible()
    screen.reading.show_pane(screen.route)
    assert screen.route.isVisible()
    key(screen, Qt.Key.Key_L)  # the list folds away, and comes back
    assert screen.splitters["main"].sizes()[0] == 0
    key(screen, Qt.Key.Key_L)
    assert screen.splitters["main"].sizes()[0] > 300
    screen.resize(1500, 900)
    qtbot.waitUntil(lambda: not screen.reading.tabbed and screen.reading.splitter.sizes()[1] > 0)
    screen.reading.splitter.setSizes([300, 420])
    screen.splitters["panes"].setSizes([500, 420])
    qtbot.waitUntil(lambda: screen.reading.splitter.sizes()[1] > 0)
    kept = screen.reading.splitter.sizes(), screen.splitters["panes"].sizes()
    settings = QSettings(str(tmp_path / "review.ini"), QSettings.Format.IniFormat)
    screen.save_state(settings)
    again = make_screen(qtbot, store)
    again.resize(1500, 900)
    again.restore_state(settings)
    qtbot.waitUntil(lambda: not again.reading.tabbed)
    assert (again.reading.splitter.sizes(), again.splitters["panes"].sizes()) == kept


def test_widths_saved_by_the_first_layout_give_way_to_this_one(qtbot, screen, store, tmp_path):
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "review.ini"), QSettings.Format.IniFormat)
    screen.splitters["panes"].setSizes([200, 560])  # a transcript as narrow as the first layout's override panel forced
    screen.override.author.setText("ines")
    screen.save_state(settings)
    again = make_screen(qtbot, store)
    again.restore_state(settings)
    assert again.splitters["panes"].sizes()[0] < 300  # this layout's own save stands, narrow or not
    settings.remove("review/layout")  # as the first layout saved it: no version
    first = make_screen(qtbot, store)
    first.restore_state(settings)
    assert first.override.author.text() == "ines"  # what is not a width still comes back
    assert first.splitters["panes"].sizes()[0] > 300


def test_review_and_calibration_share_the_chosen_run(qtbot, store):
    from sage_desk.gui.calibration import CalibrationScreen

    first = store.latest_run_id()
    runner = Runner(store, post=verdict_hook(store, [HeuristicJudge()]))
    second = runner.create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=["nl-001"], repeats=1))
    asyncio.run(runner.execute(second))
    workspace = Workspace(store=store)
    review = ReviewScreen(workspace=workspace)
    calibration = CalibrationScreen(workspace=workspace)
    for widget in (review, calibration):
        qtbot.addWidget(widget)
        widget.show()
    review.filters.choose_run(first)
    assert calibration.current_run() == first == workspace.run_id
    calibration.select_run(second)
    assert review.filters.run_id() == second and review.detail.record.run_id == second


def test_saving_waits_for_the_store_off_the_gui_thread(qtbot, screen, store, monkeypatch):
    """A save that waits on the database (a run writing) leaves the window working and lands later."""
    import threading

    release = threading.Event()
    original = store.add_overrides
    monkeypatch.setattr(store, "add_overrides", lambda *a, **k: (release.wait(10), original(*a, **k))[1])
    cid = screen.detail.id
    select_verdict(screen, "outcome")
    screen.list.setFocus()
    key(screen, Qt.Key.Key_X)
    key(screen, Qt.Key.Key_Return)
    assert screen.current_position() == 1  # moved on at once, the store still waiting
    key(screen, Qt.Key.Key_J)
    assert screen.current_position() == 2 and store.overrides() == []
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        release.set()
    assert [(o.conversation_id, o.criterion, o.human_passed) for o in store.overrides()] == [(cid, "outcome", False)]
    model = screen.list_model
    assert model.data(model.index(0, model.column_of("human"))).startswith("✎1")
