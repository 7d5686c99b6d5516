"""File > Import Conversations… and the Slots panel: production logs into a run, read and completed in Review.

The log is tests/data/imports/northline_production.jsonl (see tests/core/imports/test_import.py
for what a careful auditor says of each conversation). Expected figures come from the store.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gui_helpers import wait_graph
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from sage_desk.core.imports import importer
from sage_desk.core.store import Store
from sage_desk.gui.imports.dialog import ImportDialog
from sage_desk.gui.main_window import MainWindow

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"
OPENAI = DATA / "northline_production.jsonl"
TIMEOUT_MS = 30_000


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.db'}"


@pytest.fixture
def window(qtbot, tmp_path: Path, db_url: str):
    """The main window on an empty temporary store, at laptop size."""
    window = MainWindow(settings_home=tmp_path / "home", db_url=db_url)
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    yield window
    dialog = getattr(window, "import_dialog", None)
    if dialog is not None and dialog.is_importing():
        dialog._worker.wait(10_000)
    window.screen_widget("review").slots.wait()


def open_dialog(window) -> ImportDialog:
    action = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "Import Conversations…")
    action.trigger()
    dialog = window.import_dialog
    assert isinstance(dialog, ImportDialog) and dialog.isVisible()
    return dialog


def run_import(qtbot, dialog: ImportDialog) -> str:
    """Click Import, wait for the background import, and give back the summary's text."""
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert dialog.progress.isVisible() and not dialog.import_button.isEnabled()  # busy while it runs
    qtbot.waitUntil(lambda: not dialog.is_importing() and dialog._worker is None, timeout=TIMEOUT_MS)
    return dialog.report.toPlainText()


def test_an_import_runs_off_the_ui_thread_sums_up_and_opens_in_review(qtbot, window, db_url, monkeypatch):
    threads = []
    original = importer.import_files
    monkeypatch.setattr(importer, "import_files", lambda *a, **k: threads.append(threading.current_thread()) or original(*a, **k))
    dialog = open_dialog(window)
    dialog.add_files([OPENAI])
    assert dialog.format_combo.currentData() == "openai"  # guessed from the first line
    assert dialog.domain_combo.currentData() == "northline"
    assert dialog.redact_box.isChecked() and not dialog.skip_box.isChecked()
    dialog.name_edit.setText("production sample")
    text = run_import(qtbot, dialog)
    assert threads and threads[0] is not threading.main_thread()
    (run,) = Store(db_url).list_runs()
    assert run.total == 9 and run.config["imported"]["name"] == "production sample"
    assert "Read\n9 conversations from 1 file" in text and f"Imported\n9, as run {run.id}" in text
    assert "Already imported\nnone" in text and "Skipped lines\nnone" in text
    assert "On one path\n4: placed on one path" in text and "Need a slot\n5: several paths fit" in text
    assert "Personal data\nmasked 1 card, 1 email, 1 phone" in text
    assert dialog.open_button.isVisible()
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    review = window.screen_widget("review")
    qtbot.waitUntil(lambda: window.current_key() == "review" and review.detail is not None)
    assert review.filters.run_id() == run.id and review.list_model.rowCount() == 9
    assert not dialog.isVisible()
    # the same content again: nothing new, every conversation named as already imported
    again = open_dialog(window)
    again.add_files([OPENAI])
    text = run_import(qtbot, again)
    assert "9 already imported" in text and "Nothing new to import" in text and "zd-48817" in text
    assert not again.open_button.isVisible() and len(Store(db_url).list_runs()) == 1


def test_setting_slots_in_review_rescores_the_conversation(qtbot, window, db_url):
    dialog = open_dialog(window)
    dialog.add_files([OPENAI])
    run_import(qtbot, dialog)
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    review = window.screen_widget("review")
    qtbot.waitUntil(lambda: review.detail is not None)
    review.override.author.setText("ines")
    review.filters.search.setText("zd-48817")  # the list's search knows source ids
    qtbot.waitUntil(lambda: review.list_model.rowCount() == 1)
    review.select_position(0)
    assert review.detail.record.source_id == "zd-48817" and "zd-48817" in review.title.text()
    wait_graph(qtbot, review)  # the slots come with the run's domain, read in a thread since 31d967e
    slots = review.slots
    assert slots.isVisible() and list(slots.combos) == [
        "Escalation",
        "CoreDemand",
        "EvidenceProvided",
        "NewAddressType",
        "FaultType",
    ]
    assert slots.value_of("CoreDemand") is None and slots.sources["CoreDemand"].text() == "—"  # nobody set it
    assert "#b45309" in slots.names["CoreDemand"].text()  # amber: unscored verdicts wait on it

    def free_goods():
        model = review.verdict_model
        row = model.row_of("catastrophic.free_goods", "rules")
        return model.verdicts[row], model.index(row, 2).data()

    combo = slots.combos["CoreDemand"]
    wheel = QWheelEvent(
        QPointF(5, 5),
        combo.mapToGlobal(QPointF(5, 5)),
        QPoint(),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(combo, wheel)
    assert slots.value_of("CoreDemand") is None and not slots.is_setting()  # a wheel turned in passing sets nothing
    verdict, shown = free_goods()
    assert verdict.unscored and shown == "needs slot"  # readable as waiting on a slot, which the tooltip names
    row = review.verdict_model.row_of("catastrophic.free_goods", "rules")
    assert "CoreDemand" in review.verdict_model.index(row, 2).data(Qt.ItemDataRole.ToolTipRole)
    for field, value in (("CoreDemand", "product_fault"), ("FaultType", "wear_and_tear")):
        with qtbot.waitSignal(slots.slot_set, timeout=TIMEOUT_MS):
            assert slots.set_value(field, value)
        qtbot.waitUntil(lambda f=field, v=value: slots.value_of(f) == v and slots.sources[f].text() == "ines (reviewer)")
    verdict, shown = free_goods()
    assert verdict.passed is False and shown == "fail"  # a replacement for wear and tear: free goods
    store = Store(db_url)
    data = store.imported_cases(review.detail.record.run_id)[review.detail.id]
    assert data["slot_sources"]["FaultType"] == "reviewer:ines"
    assert [(h["field"], h["value"]) for h in data["history"]] == [
        ("CoreDemand", "product_fault"),
        ("FaultType", "wear_and_tear"),
    ]
    row = review.list_model.position_of(review.detail.id)
    assert review.list_model.index(row, review.list_model.column_of("rules")).data().startswith("⚠")  # catastrophic in the list


def test_a_bad_line_is_named_and_nothing_is_imported_unless_skipped(qtbot, window, db_url, tmp_path):
    bad = tmp_path / "mixed.jsonl"
    lines = OPENAI.read_text().splitlines()
    bad.write_text(
        "\n".join([lines[0], '{"id": "x", "messages": [', lines[1], '{"id": "y", "messages": [{"role": "robot"}]}']) + "\n"
    )
    dialog = open_dialog(window)
    dialog.add_files([bad])
    text = run_import(qtbot, dialog)
    assert "Nothing imported: 2 bad lines" in text
    assert "mixed.jsonl:2 not JSON" in text and "mixed.jsonl:4 message 1: unknown role 'robot'" in text
    assert Store(db_url).list_runs() == [] and not dialog.open_button.isVisible()
    dialog.skip_box.setChecked(True)
    text = run_import(qtbot, dialog)
    assert "Imported 2" in text and "Skipped 2 bad lines" in text and "mixed.jsonl:2" in text
    assert [r.total for r in Store(db_url).list_runs()] == [2]
