"""Review on imported tau runs: tau's reward beside the verdicts, never a tick on unsettled rules.

The runs are the hand-made files of tests/core/imports/test_tau_import.py (its docstring has the
auditor's verdicts): a tau-bench list whose conversations all have an unscored verdict (no one
tagged the request), and two conversations whose request only the agent's own tag gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from sage_desk.core.imports.importer import import_files
from sage_desk.core.store import Store
from tests.gui.gui_helpers import open_review

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "imports"
DOMAIN = str(ROOT / "tests" / "data" / "tau_mini_domain")


@pytest.fixture
def store(tmp_path: Path):
    with Store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        yield s


def cells(screen, key: str) -> dict[str, str]:
    """Source id -> the text of a list column, for every shown row."""
    model = screen.list_model
    column = model.column_of(key)
    shown = {}
    for position in range(model.rowCount()):
        row = model.rows[position]
        shown[model.table.source_ids[row]] = model.data(model.index(position, column))
    return shown


def test_a_tau_run_shows_its_reward_and_no_tick_on_unsettled_rules(qtbot, store):
    run_id = import_files(store, [DATA / "tau_bench_mini.json"], DOMAIN, "tau-bench").run_id
    screen = open_review(qtbot, store)
    qtbot.waitUntil(lambda: screen.filters.run_id() == run_id and screen.list_model.rowCount() == 4)
    tau = screen.list_model.column_of("tau")
    assert not screen.list.horizontalHeader().isSectionHidden(tau)
    assert cells(screen, "tau") == {"task0-t0": "1", "task1-t0": "0", "task2-t1": "1", "task3-t0": "0"}
    rules = cells(screen, "rules")
    assert "✓" not in rules.values()  # every one has an unscored verdict (its request is nobody's word)
    assert rules["task0-t0"].startswith("⚠") and rules["task1-t0"].startswith("✗") and rules["task3-t0"] == "?"
    cid = next(c.id for c in store.conversations(run_id=run_id) if c.source_id == "task0-t0")
    assert screen.show_conversation(cid)
    qtbot.waitUntil(lambda: screen.detail is not None and screen.detail.id == cid)
    assert "tau reward 1 (passed by tau)" in screen.subtitle.text()


def test_provisional_verdicts_are_shown_apart_and_filtered(qtbot, store):
    tagged = import_files(store, [DATA / "tau_mini_tagged.jsonl"], DOMAIN, "openai").run_id
    screen = open_review(qtbot, store)
    qtbot.waitUntil(lambda: screen.filters.run_id() == tagged and screen.list_model.rowCount() == 2)
    assert screen.list.horizontalHeader().isSectionHidden(screen.list_model.column_of("tau"))  # no tau reward here
    assert cells(screen, "rules")["tagged-status"] == "?"
    status = next(c.id for c in store.conversations(run_id=tagged) if c.source_id == "tagged-status")
    from sage_desk.core.imports.importer import set_slot

    set_slot(store, status, "Request", "status", "ana")  # a reviewer's word settles it ...
    screen.refresh()
    qtbot.waitUntil(lambda: cells(screen, "rules").get("tagged-status") == "✓")
    screen.filters.unsettled.setChecked(True)  # ... and the filter keeps only what is still unsettled
    qtbot.waitUntil(lambda: list(cells(screen, "rules")) == ["tagged-cancel"])


def test_the_verdict_table_marks_a_provisional_pass(qtbot, store):
    tagged = import_files(store, [DATA / "tau_mini_tagged.jsonl"], DOMAIN, "openai").run_id
    status = next(c.id for c in store.conversations(run_id=tagged) if c.source_id == "tagged-status")
    screen = open_review(qtbot, store)
    assert screen.show_conversation(status)
    qtbot.waitUntil(lambda: screen.detail is not None and screen.detail.id == status)
    model = screen.verdict_model
    row = model.row_of("path.action_accuracy", "rules")
    assert model.data(model.index(row, 2)) == "provisional pass"
    assert "agent's own tag for Request" in model.data(model.index(row, 2), Qt.ItemDataRole.ToolTipRole)
    settled = model.row_of("catastrophic.wrongful_cancel", "rules")
    assert model.data(model.index(settled, 2)) == "pass"


def test_the_import_summary_names_unknown_tools(store):
    from sage_desk.gui.imports.summary import summary_rows

    summary = import_files(store, [DATA / "tau_bench_mini.json"], DOMAIN, "tau-bench")
    rows = dict(summary_rows(summary, redact=False))
    assert (
        "3 tool names are not tools of domain tau_mini: book_reservation (1), think (1), transfer_to_human_agents (1)"
        in rows["Unknown tools"]
    )
    assert "every verdict of the 1 conversation(s) calling them is unscored" in rows["Unknown tools"]


def test_case_ids_and_endings_read_whole_at_1280(qtbot, store):
    """Every row of a tau import read 'ta…t0' and 'han…ver' in a 52 px Case and 66 px Ending column."""
    run_id = import_files(store, [DATA / "tau_bench_mini.json"], DOMAIN, "tau-bench").run_id
    screen = open_review(qtbot, store, size=(1280, 720))
    qtbot.waitUntil(lambda: screen.filters.run_id() == run_id and screen.list_model.rowCount() == 4)
    header, metrics = screen.list.horizontalHeader(), screen.list.fontMetrics()
    # (at 1280 'customer stopped' stays cut: wider, the list would squeeze the transcript's tabs out of sight)
    for key, texts in (("case", set(cells(screen, "case").values())), ("ending", {"handed over"})):
        width = header.sectionSize(screen.list_model.column_of(key))
        assert texts and all(metrics.horizontalAdvance(t) <= width - 8 for t in texts), (key, texts, width)
    assert screen.list.horizontalScrollBar().maximum() == 0  # and the list still shows every column it shows whole


def test_an_unnamed_imports_title_says_imported_once(qtbot, store):
    run_id = import_files(store, [DATA / "tau_bench_mini.json"], DOMAIN, "tau-bench").run_id
    screen = open_review(qtbot, store)
    qtbot.waitUntil(lambda: screen.filters.run_id() == run_id and screen.detail is not None)
    title = screen.title.text()
    assert title.count("imported") == 1 and title.startswith(f"<b>{screen.detail.record.source_id}</b> · imported"), title
