"""The Compare Runs screen on real stored runs: an oracle run, its repeat, then a complier run."""

from __future__ import annotations

import asyncio

import pytest

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store
from sage_desk.gui.compare import CompareRunsScreen

CASES = ["nl-001", "nl-060", "nl-121", "nl-145"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('cmp') / 'runs.db'}")
    runner = Runner(store, post=verdict_hook(store))
    ids = []
    for agent in ("baseline:oracle", "baseline:oracle", "baseline:complier"):
        run_id = runner.create(RunSpec(domain="northline", agents=[agent], cases=CASES, repeats=2))
        asyncio.run(runner.execute(run_id))
        ids.append(run_id)
    return store, ids


@pytest.fixture
def screen(qtbot, runs):
    widget = CompareRunsScreen(store=runs[0])
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def compare(screen, qtbot, before, after):
    screen.select_runs(before, after)
    screen.compare()
    qtbot.waitUntil(lambda: not screen.comparing)
    return {screen.deltas.rows[r]["metric"]: screen.deltas.rows[r] for r in range(screen.deltas.rowCount())}


def test_defaults_to_the_two_latest_runs(screen, runs):
    _, (_, repeat, complier) = runs
    assert (screen.before.currentData(), screen.after.currentData()) == (repeat, complier)
    # two runs are there: the screen says what to do with them, not that it needs two runs
    assert screen.summary.text().startswith("Pick the run from before a change")


def test_a_repeat_shows_no_regression_and_no_flip(screen, qtbot, runs):
    _, (oracle, repeat, _) = runs
    metrics = compare(screen, qtbot, oracle, repeat)
    assert metrics["resolution_rate"]["verdict"] == "same" and screen.flips.rowCount() == 0
    assert "No regression" in screen.summary.text() and "same inputs" in screen.summary.text()


def test_oracle_then_complier_lists_regressions_and_opens_a_flip(screen, qtbot, runs, qtmodeltester):
    _, (oracle, _, complier) = runs
    metrics = compare(screen, qtbot, oracle, complier)
    assert metrics["escalation_accuracy"]["verdict"] == "REGRESSION"
    assert screen.deltas.data(screen.deltas.index(0, 0)) == "success_rate"  # the registry's first (issue 32)
    assert "Regressions" in screen.summary.text() and "agent model differs" in screen.summary.text()
    cases = [screen.flips.rows[r]["case_id"] for r in range(screen.flips.rowCount())]
    assert "nl-145" in cases and "nl-001" not in cases
    qtmodeltester.check(screen.deltas)
    qtmodeltester.check(screen.flips)
    dialog = screen.open_flip(cases.index("nl-145"))
    qtbot.addWidget(dialog)
    flip = screen.flips.rows[cases.index("nl-145")]
    assert dialog.left.conversation_id() == flip["a_conversations"][0]
    assert dialog.right.conversation_id() == flip["b_conversations"][0]
    assert dialog.left.picker.count() == 4  # both repeats of both runs


def test_the_default_before_is_the_newest_older_run_of_the_same_domain():
    from types import SimpleNamespace as Run

    from sage_desk.gui.compare.screen import before_of

    runs = [
        Run(id="r4", domain="telecom"),
        Run(id="r3", domain="ecommerce"),
        Run(id="r2", domain="telecom"),
        Run(id="r1", domain="telecom"),
    ]  # newest first, as list_runs gives them
    assert before_of(runs, "r4") == "r2"  # not r3: an ecommerce run against a telecom one compares nothing alike
    assert before_of(runs, "r3") == "r4"  # no other ecommerce run: the newest other
    assert before_of(runs, "r2") == "r1"
    assert before_of(runs[:1], "r4") == "r4"  # alone: nothing else to pick
