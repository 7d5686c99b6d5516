"""Review draws a run on the graph it was played with: an edited or broken sop.yaml changes nothing in the
review of an old run, a note says when today's graph differs or cannot be read, and F5 reads the folder again.

The domain is a copy of the shipped Northline folder, edited on disk as an author would (issue 35: an
invalid graph saved from the editor broke Review for every run of its domain until a restart).
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3

import pytest
from gui_helpers import open_review

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.locations import sops_dir
from sage_desk.core.store import Store

CASES = ["nl-001", "nl-053"]


@pytest.fixture
def domain(tmp_path, monkeypatch):
    """A Northline folder of the test's own, found by name through SAGE_DESK_SOPS."""
    root = tmp_path / "sops"
    shutil.copytree(sops_dir() / "northline", root / "northline")
    monkeypatch.setenv("SAGE_DESK_SOPS", str(root))
    return root / "northline"


@pytest.fixture
def store(tmp_path, domain):
    with Store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        runner = Runner(s)
        run_id = runner.create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=CASES, repeats=1))
        asyncio.run(runner.execute(run_id))
        yield s


def first_conversation(store):
    run_id = store.latest_run_id()
    return next(c.id for c in store.conversations(run_id, case_id="nl-001"))


def press_f5(screen):
    """What F5 does (offscreen, a key reaches a shortcut only in an active window: the action is triggered)."""
    refresh = screen.actions_by_name["refresh"]
    assert refresh.shortcut().toString() == "F5"
    refresh.trigger()


def drawn_labels(screen) -> set[str]:
    return {item.node.label for item in screen.route.scene.nodes.values()}


def test_the_run_keeps_its_graph_and_review_draws_it_after_sop_yaml_breaks(qtbot, store, domain):
    text, original = domain / "sop.yaml", (domain / "sop.yaml").read_text()
    kept = store.sop_snapshot(store.latest_run_id())
    assert kept is not None and "Look up the order" in kept[1]
    screen = open_review(qtbot, store)
    screen.show_conversation(first_conversation(store))
    assert screen.route.scene is not None and screen.route.note.isHidden()
    before = drawn_labels(screen)

    text.write_text(original.replace("edges:", "edges: [", 1))  # a YAML syntax error, as a bad save leaves it
    press_f5(screen)
    screen.show_conversation(first_conversation(store))
    assert screen.route.scene is not None and drawn_labels(screen) == before
    assert screen.detail.trace is not None and screen.detail.problem == ""
    assert not screen.route.note.isHidden() and "today's sop.yaml cannot be read" in screen.route.note.text()

    text.write_text(original.replace("Look up the order", "Find the order"))  # a valid edit
    press_f5(screen)
    screen.show_conversation(first_conversation(store))
    assert drawn_labels(screen) == before  # still the graph it was played with
    assert "today's sop.yaml differs" in screen.route.note.text()

    text.write_text(original)
    press_f5(screen)
    screen.show_conversation(first_conversation(store))
    assert screen.route.note.isHidden()


def test_a_run_made_before_runs_kept_their_graph_recovers_on_f5(qtbot, store, domain, tmp_path):
    """No snapshot (a run from before migration 0012): today's sop.yaml is all there is. Broken, the route
    pane says so and the transcript still shows; fixed on disk, F5 draws it again without a restart."""
    with sqlite3.connect(tmp_path / "runs.db") as db:  # as a database made before migration 0012 has it
        db.execute("UPDATE runs SET sop_snapshot = NULL")
    text, original = domain / "sop.yaml", (domain / "sop.yaml").read_text()
    text.write_text(original.replace("edges:", "edges: [", 1))
    screen = open_review(qtbot, store)
    screen.show_conversation(first_conversation(store))
    assert screen.route.scene is None and "could not be loaded" in screen.route.summary.text()
    assert screen.detail.events  # the conversation itself still reads
    text.write_text(original)
    press_f5(screen)
    screen.show_conversation(first_conversation(store))
    assert screen.route.scene is not None and screen.detail.trace is not None
    assert screen.route.note.isHidden()  # the stamp's graph hash matches today's: nothing to say

    text.write_text(original.replace("Look up the order", "Find the order"))
    press_f5(screen)
    screen.show_conversation(first_conversation(store))
    assert "differs from the graph this run was played with" in screen.route.note.text()
