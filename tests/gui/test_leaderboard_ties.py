"""The Leaderboard names models that are tied within noise: neighbours in the order whose resolution
intervals overlap (two seeds of one imperfect agent), never one that is clearly apart (the oracle)."""

from __future__ import annotations

import asyncio

import pytest

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store
from sage_desk.gui.leaderboard import LeaderboardScreen

AGENTS = ["baseline:oracle", "baseline:imperfect?seed=1", "baseline:imperfect?seed=2"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('ties') / 'runs.db'}")
    runner = Runner(store, post=verdict_hook(store))
    cases = [f"nl-{i:03d}" for i in range(1, 41)]
    run_id = runner.create(RunSpec(domain="northline", agents=AGENTS, cases=cases, repeats=2))
    asyncio.run(runner.execute(run_id))
    return store


def test_tied_models_are_named_under_the_table(qtbot, store):
    screen = LeaderboardScreen(store=store)
    qtbot.addWidget(screen)
    screen.show()
    qtbot.waitExposed(screen)
    qtbot.waitUntil(lambda: not screen.loading and screen.model.rowCount() == 3)
    text = screen.order.text()
    # by display name (issue 35): the two variants apart as imperfect and imperfect-2, their specs on the row names
    assert "Tied within noise" in text and "imperfect ≈ imperfect-2" in text
    assert "oracle ≈" not in text and "≈ oracle" not in text
    rows = {r["spec"]: r for r in screen.model.rows}
    assert rows["baseline:oracle"]["resolution_rate_ci"] == [1.0, 1.0]
    assert "baseline:imperfect?seed=2" in rows["baseline:imperfect?seed=1"]["within_noise"]["resolution_rate"]
