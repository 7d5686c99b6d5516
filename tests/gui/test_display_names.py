"""Agents under their display names in Review (issue 35): two `baseline:imperfect?...` variants read
"imp….05" alike in the Model column; now each has its own short name, the spec on hover."""

from __future__ import annotations

import asyncio

from gui_helpers import open_review
from PySide6.QtCore import Qt

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.store import Store
from sage_desk.gui.review.list_model import COLUMNS

PLAIN, VARIANT = "baseline:imperfect", "baseline:imperfect?classify=0.95&act=0.85"


def test_review_names_each_agent_apart(qtbot, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store)
    run_id = runner.create(
        RunSpec(domain="northline", agents=[PLAIN, VARIANT, "baseline:oracle"], cases=["nl-001", "nl-053"], repeats=1)
    )
    asyncio.run(runner.execute(run_id))
    screen = open_review(qtbot, store)
    qtbot.waitUntil(lambda: screen.list_model.rowCount() == 6)
    model = screen.list_model
    column = [c.key for c in COLUMNS].index("agent")
    shown = {}
    for row in range(model.rowCount()):
        index = model.index(row, column)
        shown[model.data(index)] = model.data(index, Qt.ItemDataRole.ToolTipRole)
    assert set(shown) == {"imperfect", "imperfect-2", "oracle"}
    assert shown["imperfect-2"] == f"imperfect-2 = {VARIANT}" and shown["imperfect"] == f"imperfect = {PLAIN}"
    combo = screen.filters.combos["agent"]
    assert {combo.itemText(i) for i in range(1, combo.count())} == {"imperfect", "imperfect-2", "oracle"}
    variant = next(c.id for c in store.conversations(run_id, agent=VARIANT))
    screen.show_conversation(variant)
    assert "imperfect-2" in screen.title.text()
    store.close()
