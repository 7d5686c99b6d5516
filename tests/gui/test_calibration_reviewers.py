"""The Calibration screen's "Between reviewers" tab on two reviewers' labels (the issue's 40-item example)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "core" / "review"))

from team_data import kappa_labels, make_run

from sage_desk.core.store import Store
from sage_desk.core.store.reviews import NewOverride
from sage_desk.gui.calibration import CalibrationScreen
from sage_desk.gui.common.workspace import Workspace


@pytest.fixture
def store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'team.db'}") as s:
        ids = make_run(s)
        s.add_overrides(kappa_labels(ids))
        yield s


def test_the_tab_shows_kappa_and_the_disagreements(qtbot, store):
    screen = CalibrationScreen(workspace=Workspace(store=store))
    qtbot.addWidget(screen)
    screen.show()
    qtbot.waitUntil(lambda: screen.between_reviewers.criteria.rowCount() == 1)
    tab = screen.between_reviewers
    model = tab.criteria
    texts = [model.index(0, c).data() for c in range(model.columnCount())]
    assert texts[:6] == ["empathy", "alice, bob", "40", "88%", "+0.75", texts[5]]
    assert tab.disagreements.rowCount() == 5 and "5 unresolved" in tab.summary.text()
    titles = [screen.tabs.tabText(i) for i in range(screen.tabs.count())]
    assert "Between reviewers" in titles
    store.add_overrides(
        [
            NewOverride(
                "r-team-c15",
                "judge.empathy",
                "baseline:heuristic",
                human_passed=True,
                author="lead",
                reason="sorry is said",
                kind="adjudication",
            )
        ]
    )
    screen.refresh()
    qtbot.waitUntil(lambda: "4 unresolved" in tab.summary.text())
    screen.can_close()
