"""Review's override panel: failure-mode tags and a corrected reply saved with the labels, and a
refused save (one override of the batch names a verdict re-judged away meanwhile) saving nothing
while its values, tags, reason and reply stay on screen.

Expected values come from the store's ordinary API, never from the screen's own models.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
from gui_helpers import open_review
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from sqlalchemy import update

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.judge.heuristic import SOURCE as HEURISTIC
from sage_desk.core.judge.heuristic import HeuristicJudge
from sage_desk.core.locations import sops_dir
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store
from sage_desk.core.store.schema import ConversationRow, RunRow, table_of

sys.path.insert(0, str(Path(__file__).parents[1] / "core" / "review"))
from team_data import make_run

MODES = ["cold_tone", "wrong_refund_amount", "missed_escalation"]


@pytest.fixture(scope="module")
def db_file(tmp_path_factory):
    """A judged run on a copy of Northline whose domain.yaml declares three failure modes."""
    root = tmp_path_factory.mktemp("kinds")
    folder = root / "northline-tagged"
    shutil.copytree(sops_dir() / "northline", folder)
    with (folder / "domain.yaml").open("a", encoding="utf-8") as handle:
        handle.write(f"\nfailure_modes: [{', '.join(MODES)}]\n")
    path = root / "runs.db"
    with Store(f"sqlite:///{path}") as store:
        runner = Runner(store, post=verdict_hook(store, [HeuristicJudge()]))
        run_id = runner.create(
            RunSpec(domain=str(folder), agents=["baseline:oracle", "baseline:complier"], cases=["nl-001", "nl-145"], repeats=1)
        )
        asyncio.run(runner.execute(run_id))
        with store._engine.begin() as conn:  # the run names its folder, as a run created on a path does
            for table in (table_of(RunRow), table_of(ConversationRow)):
                key = table.c.id if table.name == "runs" else table.c.run_id
                conn.execute(update(table).where(key == run_id).values(domain=str(folder)))
    return path


@pytest.fixture
def store(db_file, tmp_path):
    copy = tmp_path / "runs.db"
    shutil.copyfile(db_file, copy)
    with Store(f"sqlite:///{copy}") as s:
        yield s


def make_screen(qtbot, store):
    return open_review(qtbot, store, size=(1500, 900), author="ann")


@pytest.fixture
def screen(qtbot, store):
    return make_screen(qtbot, store)


def select_verdict(screen, criterion, source="rules"):
    row = screen.verdict_model.row_of(criterion, source)
    assert row is not None, criterion
    screen.verdicts.selectRow(row)
    screen.list.setFocus()
    return screen.verdict_model.verdict(row)


def key(k):
    QTest.keyClick(QApplication.focusWidget(), k, Qt.KeyboardModifier.NoModifier)


def tick(screen, tag):
    """Tick a failure mode in the panel's tag menu, as a click on it does."""
    action = next(a for a in screen.override.tags_menu.actions() if a.text() == tag)
    action.trigger()


def type_reply(qtbot, screen, text):
    qtbot.mouseClick(screen.override.reply_toggle, Qt.MouseButton.LeftButton)
    assert screen.override.corrected_reply.isVisible()
    QTest.keyClicks(screen.override.corrected_reply, text)


def test_the_tag_menu_lists_the_domains_failure_modes(screen):
    panel = screen.override
    assert panel.tags_button.isVisible() and [a.text() for a in panel.tags_menu.actions()] == MODES
    assert not panel.corrected_reply.isVisible() and panel.reply_toggle.text() == "▸ Corrected reply"


def test_tags_and_a_corrected_reply_are_saved_with_the_labels(qtbot, screen, store):
    cid = screen.detail.id
    empathy = select_verdict(screen, "judge.empathy", HEURISTIC)
    key(Qt.Key.Key_2)  # 0.25: a fail
    tick(screen, "cold_tone")
    assert screen.override.tags_button.text() == "Tags: cold_tone ▾"
    outcome = select_verdict(screen, "outcome")
    assert screen.override.tags_button.text() == "Tags ▾"  # tags are per verdict
    tick(screen, "missed_escalation")  # no value keyed: the reviewer agrees with the machine, and tags it
    assert screen.verdict_model.pending[outcome.id].passed is outcome.passed
    type_reply(qtbot, screen, "I am sorry.")
    key(Qt.Key.Key_Return)  # a new line in the reply, not a save
    QTest.keyClicks(screen.override.corrected_reply, "I will escalate this now.")
    assert store.overrides(conversation_id=cid) == [] and screen.detail.id == cid
    assert screen.override.reply_toggle.text() == "▾ Corrected reply ✓"
    screen.override.reason.setText("cold, and should have escalated")
    screen.list.setFocus()
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        key(Qt.Key.Key_Return)
    saved = {o.criterion: o for o in store.overrides(conversation_id=cid)}
    reply = "I am sorry.\nI will escalate this now."
    assert (
        saved["judge.empathy"].human_score,
        saved["judge.empathy"].human_passed,
        saved["judge.empathy"].tags,
        saved["judge.empathy"].corrected_reply,
    ) == (0.25, False, ["cold_tone"], reply)
    assert (saved["outcome"].human_passed, saved["outcome"].tags, saved["outcome"].corrected_reply) == (
        outcome.passed,
        ["missed_escalation"],
        reply,
    )
    assert {o.reason for o in saved.values()} == {"cold, and should have escalated"}
    assert {o.author for o in saved.values()} == {"ann"} and {o.kind for o in saved.values()} == {"label"}
    assert saved["judge.empathy"].verdict_id == empathy.id
    # the panel is empty for the next conversation; back on this one, the history shows tags and the reply
    assert screen.detail.id != cid and screen.override.reply_text() == "" and not screen.override.corrected_reply.isVisible()
    assert screen.show_conversation(cid)
    select_verdict(screen, "judge.empathy", HEURISTIC)
    history = screen.override.history.text()
    assert "tags: cold_tone" in history and "corrected reply" in history and "ann" in history


def test_a_refused_batch_saves_nothing_and_keeps_the_edits_on_screen(qtbot, screen, store):
    cid = screen.detail.id
    select_verdict(screen, "outcome")
    key(Qt.Key.Key_X)
    empathy = select_verdict(screen, "judge.empathy", HEURISTIC)
    key(Qt.Key.Key_5)
    tick(screen, "wrong_refund_amount")
    type_reply(qtbot, screen, "Refund 40, not 400.")
    screen.override.reason.setText("refund amount")
    # meanwhile the judge runs again on this conversation: the empathy verdict keyed above is replaced
    store.save_verdicts(
        cid,
        HEURISTIC,
        [
            Verdict(criterion="judge.empathy", passed=True, score=0.8),
            Verdict(criterion="judge.resolution_quality", passed=True, score=0.7),
        ],
    )
    screen.list.setFocus()
    key(Qt.Key.Key_Return)
    screen.wait_for_saves()
    assert store.overrides() == []  # the rules verdict's override was fine, and is not saved either
    # back on the conversation, both values keyed again and unsaved, with the tag, reason and reply
    assert screen.detail.id == cid
    pending = {v.criterion: value for v, value in screen.verdict_model.pending_items()}
    assert {k: (v.passed, v.score) for k, v in pending.items()} == {"outcome": (False, None), "judge.empathy": (True, 1.0)}
    fresh = select_verdict(screen, "judge.empathy", HEURISTIC)
    assert fresh.id != empathy.id and screen.override.tags_of(fresh.id) == ("wrong_refund_amount",)
    assert screen.override.tags_button.text() == "Tags: wrong_refund_amount ▾"
    assert screen.override.reason.text() == "refund amount" and screen.override.reply_text() == "Refund 40, not 400."
    assert screen.override.pending.text() == "2 unsaved"
    # saved again, on the verdicts as they are now
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        key(Qt.Key.Key_Return)
    saved = {o.criterion: o for o in store.overrides(conversation_id=cid)}
    assert sorted(saved) == ["judge.empathy", "outcome"]
    assert (saved["judge.empathy"].verdict_id, saved["judge.empathy"].tags) == (fresh.id, ["wrong_refund_amount"])
    assert {o.corrected_reply for o in saved.values()} == {"Refund 40, not 400."}


def test_a_refused_save_waits_while_values_are_keyed_elsewhere(qtbot, screen, store, monkeypatch):
    """The reviewer moved on and keyed a value there before the save failed: no jump back, no value dropped."""
    import threading

    release = threading.Event()
    original = store.add_overrides
    monkeypatch.setattr(store, "add_overrides", lambda news: (release.wait(10), original(news))[1])
    cid = screen.detail.id
    select_verdict(screen, "judge.empathy", HEURISTIC)
    key(Qt.Key.Key_1)
    store.save_verdicts(cid, HEURISTIC, [Verdict(criterion="judge.empathy", passed=True, score=0.8)])
    key(Qt.Key.Key_Return)
    nxt = screen.detail.id
    assert nxt != cid
    select_verdict(screen, "outcome")
    key(Qt.Key.Key_P)
    release.set()
    screen.wait_for_saves()
    assert store.overrides() == [] and screen.detail.id == nxt  # still here, the new value still keyed
    assert [v.criterion for v, _ in screen.verdict_model.pending_items()] == ["outcome"]
    with qtbot.waitSignal(screen.workspace.verdicts_changed):
        key(Qt.Key.Key_Return)
    assert [(o.conversation_id, o.criterion) for o in store.overrides()] == [(nxt, "outcome")]
    assert screen.show_conversation(cid)  # the failed value comes back on its conversation
    pending = {v.criterion: (value.passed, value.score) for v, value in screen.verdict_model.pending_items()}
    assert pending == {"judge.empathy": (False, 0.0)}


def test_a_domain_without_failure_modes_shows_no_tags(qtbot, tmp_path):
    with Store(f"sqlite:///{tmp_path / 'plain.db'}") as store:
        make_run(store, n=2)
        screen = make_screen(qtbot, store)
        assert screen.detail is not None and screen.verdict_model.rowCount() > 0
        assert not screen.override.tags_button.isVisible() and screen.override.tags_menu.actions() == []
        assert screen.override.reply_toggle.isVisible()
        screen.can_close()
