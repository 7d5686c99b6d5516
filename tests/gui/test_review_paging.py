"""A big run's Review list opens on its first page and fills in behind it.

Page sizes are made tiny here (5 rows shown at once, then pages of 7) so a 30-conversation run
exercises what 100,000 would: the first page is shown before the rest is read, a filter or a
sort chosen meanwhile holds for the rows that arrive, the selection survives, and the list ends
up exactly as one full read gives it.
"""

from __future__ import annotations

import asyncio

import pytest

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.store import Store
from sage_desk.core.store.browse import BrowseFilter
from sage_desk.gui.common.workspace import Workspace
from sage_desk.gui.review import ReviewScreen, table_loader
from sage_desk.gui.review import screen as screen_module

CASES = ["nl-001", "nl-053", "nl-121", "nl-145", "nl-150"]
AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]


@pytest.fixture(scope="module")
def db_file(tmp_path_factory):
    """30 conversations: three baselines on five cases, two repeats (rules only: quick)."""
    path = tmp_path_factory.mktemp("paging") / "runs.db"
    with Store(f"sqlite:///{path}") as store:
        runner = Runner(store)
        run_id = runner.create(RunSpec(domain="northline", agents=AGENTS, cases=CASES, repeats=2))
        asyncio.run(runner.execute(run_id))
    return path


@pytest.fixture
def store(db_file):
    with Store(f"sqlite:///{db_file}") as s:
        yield s


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(table_loader, "FIRST_PAGE", 5)
    monkeypatch.setattr(table_loader, "PAGE", 7)
    yield
    table_loader.stop_all()


def open_screen(qtbot, store):
    screen = ReviewScreen(workspace=Workspace(store=store))
    qtbot.addWidget(screen)
    screen.resize(1280, 720)
    screen.show()
    return screen


def shown_ids(screen):
    model = screen.list_model
    return [model.conversation_id(i) for i in range(model.rowCount())]


def wait_read(qtbot, screen):
    qtbot.waitUntil(lambda: not screen.list_reader.reading, timeout=10_000)


def test_the_first_page_shows_before_the_rest_is_read_and_the_whole_list_matches_one_read(qtbot, store, small_pages):
    whole = store.conversation_table(store.latest_run_id())
    assert len(whole) == 30
    screen = open_screen(qtbot, store)
    assert shown_ids(screen) == whole.ids[:5]  # on screen before any page behind it arrived
    assert "reading more" in screen.filters.count.text()
    wait_read(qtbot, screen)
    assert shown_ids(screen) == whole.ids
    assert screen.list_model.table.failing == whole.failing
    assert list(screen.list_model.table.rules_failed) == list(whole.rules_failed)
    assert screen.filters.count.text() == "30 conversations"
    assert screen.filters.combos["agent"].count() == 1 + len(AGENTS)  # every model offered once all is in


def test_a_filter_chosen_while_reading_holds_for_the_pages_that_arrive(qtbot, store, small_pages):
    whole = store.conversation_table(store.latest_run_id())
    screen = open_screen(qtbot, store)
    screen.list_model.set_filter(BrowseFilter(agent="baseline:escalator"))
    wait_read(qtbot, screen)
    assert shown_ids(screen) == [cid for cid, agent in zip(whole.ids, whole.agents, strict=True) if agent == "baseline:escalator"]
    assert len(shown_ids(screen)) == 10


def test_a_sort_chosen_while_reading_sorts_every_row_and_keeps_the_selection(qtbot, store, small_pages):
    whole = store.conversation_table(store.latest_run_id())
    screen = open_screen(qtbot, store)
    chosen = shown_ids(screen)[2]
    screen.select_position(2)
    screen.list.sortByColumn(screen.list_model.column_of("agent"), screen_module.Qt.SortOrder.DescendingOrder)
    wait_read(qtbot, screen)
    agents = [whole.agents[whole.row_of(cid)] for cid in shown_ids(screen)]
    assert agents == sorted(agents, reverse=True) and len(agents) == 30
    assert screen.list_model.conversation_id(screen.list.currentIndex().row()) == chosen


def test_reading_again_drops_pages_of_the_earlier_read(qtbot, store, small_pages):
    whole = store.conversation_table(store.latest_run_id())
    screen = open_screen(qtbot, store)
    screen.refresh(force=True)  # read again before the first read finished: no row twice
    wait_read(qtbot, screen)
    qtbot.wait(50)  # any page of the first read still queued is delivered, and must be dropped
    assert shown_ids(screen) == whole.ids
