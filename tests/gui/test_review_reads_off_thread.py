"""Review reads a run's domain and suite in a thread (issue 35): the first conversation of a run shows at once,
its graph, case and route follow, and a label keyed meanwhile stays."""

from __future__ import annotations

import asyncio
import threading

import pytest

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.review.session import HumanValue
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store
from sage_desk.gui.common.workspace import Workspace
from sage_desk.gui.review import ReviewScreen
from sage_desk.gui.review import detail as detail_module


@pytest.fixture
def store(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        runner = Runner(s, post=verdict_hook(s))  # rules and the heuristic judge, as sage-desk run stores them
        run_id = runner.create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=["nl-001", "nl-053"]))
        asyncio.run(runner.execute(run_id))
        yield s


def test_the_first_conversation_shows_at_once_and_its_graph_follows_from_a_thread(qtbot, store, monkeypatch):
    readers: list[int] = []
    load_domain = detail_module.load_domain

    def counted(*args, **kwargs):
        readers.append(threading.get_ident())
        return load_domain(*args, **kwargs)

    monkeypatch.setattr(detail_module, "load_domain", counted)
    screen = ReviewScreen(workspace=Workspace(store=store))
    qtbot.addWidget(screen)
    screen.resize(1280, 720)
    screen.show()
    shown = screen.detail  # shown by show() itself: the run's list and first conversation are read at once
    assert shown is not None and shown.reading
    assert shown.events and shown.verdicts and shown.bundle is None and shown.trace is None
    assert "Reading the domain's graph" in screen.route.summary.text()
    screen.verdict_model.set_pending(0, HumanValue(False))  # the reviewer keys a label before the graph is there
    qtbot.waitUntil(lambda: not screen.detail.reading, timeout=15_000)
    assert screen.detail is shown  # filled in, not replaced
    assert shown.bundle is not None and shown.case is not None and shown.trace is not None
    assert screen.route.scene.nodes  # drawn
    assert screen.override.failure_modes == list(shown.bundle.domain.failure_modes)
    assert readers and threading.get_ident() not in readers  # load_domain never ran on the GUI thread
    keyed = screen.verdict_model.pending_items()  # the label keyed meanwhile stays
    assert [(v.id, value.passed) for v, value in keyed] == [(shown.verdicts[0].id, False)]
    # the run's second conversation reads nothing from disk: it shows whole at once
    screen.select_position(1)
    assert not screen.detail.reading and screen.detail.trace is not None
    assert len(readers) == 1
