"""The Leaderboard screen on a real stored run: the table model, sorting, bands, spreads, charts, saving."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store
from sage_desk.gui.leaderboard import LeaderboardScreen
from sage_desk.gui.leaderboard.model import LeaderboardModel
from sage_desk.gui.leaderboard.screen import EMPTY_TEXT

CASES = ["nl-001", "nl-003", "nl-121", "nl-145", "nl-146"]
AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]
DEFAULT_ORDER = ["baseline:oracle", "baseline:escalator", "baseline:complier"]
"""The three on CASES in the default order: success rate 1.0, 0.4 and 0.4, the tie broken by safety band."""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store with two small runs: three baselines, then the oracle alone."""
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('lb') / 'runs.db'}")
    runner = Runner(store, post=verdict_hook(store))
    for agents in (AGENTS, ["baseline:oracle"]):
        run_id = runner.create(RunSpec(domain="northline", agents=agents, cases=CASES, repeats=2))
        asyncio.run(runner.execute(run_id))
    return store


@pytest.fixture
def screen(qtbot, store):
    widget = LeaderboardScreen(store=store)
    qtbot.addWidget(widget)
    widget.resize(1300, 900)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.waitUntil(lambda: not widget.loading)  # runs are read on a thread
    return widget


def choose(screen, qtbot, run_ids):
    screen.select_runs(run_ids)
    qtbot.waitUntil(lambda: not screen.loading)


def agents_in_view(model):
    """The agents' specs, row by row (the rows show display names: test_agents_show_under_distinct_names)."""
    return [model.rows[r]["spec"] for r in range(model.rowCount())]


def test_model_passes_the_model_tester(qtmodeltester, screen, qtbot):
    choose(screen, qtbot, [r.id for r in screen.store.list_runs()])
    qtmodeltester.check(screen.model, force_py=True)
    qtmodeltester.check(LeaderboardModel(), force_py=True)


def test_newest_run_is_chosen_first_and_rows_come_in_default_order(screen, qtbot):
    assert screen.runs.count() == 2
    assert screen.runs.item(0).data(Qt.ItemDataRole.UserRole) == screen.selected_runs()[0]
    assert agents_in_view(screen.model) == ["baseline:oracle"]  # the newest run had the oracle alone
    choose(screen, qtbot, [r.id for r in screen.store.list_runs() if "baseline:complier" in r.config["agents"]])
    # success first (issue 32): the oracle succeeds on all 5 cases, complier and escalator on the same 2 of 5; the
    # tie goes to the safety band, where the escalator is safe and the complier, paying out on traps, reckless
    assert agents_in_view(screen.model) == DEFAULT_ORDER


def test_sorting_by_a_header_and_the_unsafe_band_colours(screen, qtbot):
    choose(screen, qtbot, [r.id for r in screen.store.list_runs() if "baseline:complier" in r.config["agents"]])
    model = screen.model
    unsafe = model.column_of("unsafe_actions")
    screen.table.sortByColumn(unsafe, Qt.SortOrder.DescendingOrder)
    assert agents_in_view(model)[0] == "baseline:complier"
    cell = model.index(0, unsafe)
    assert model.data(cell) == "2/2  reckless"
    assert model.data(cell, Qt.ItemDataRole.BackgroundRole).color().name() == "#fbe3e0"
    tier = model.data(model.index(0, model.column_of("cost_tier")))
    assert tier == "free"
    screen.table.sortByColumn(model.column_of("escalation_accuracy"), Qt.SortOrder.AscendingOrder)
    assert agents_in_view(model)[0] == "baseline:complier"


def test_tooltips_give_the_spread_over_repeats(screen):
    model = screen.model
    cell = model.index(0, model.column_of("resolution_rate"))
    tip = model.data(cell, Qt.ItemDataRole.ToolTipRole)
    assert tip  # the column's meaning when every repeat agreed, min and max when they differed
    screen.model.set_rows(
        [{"agent": "x", "domain": "d", "repeats": 3, "resolution_rate": 0.5, "resolution_rate_range": [0.25, 0.75]}]
    )
    tip = model.data(model.index(0, model.column_of("resolution_rate")), Qt.ItemDataRole.ToolTipRole)
    assert tip == "Resolution: median 50.0%, min 25.0%, max 75.0% over 3 repeats"


def test_rows_have_a_fixed_height(screen):
    from PySide6.QtWidgets import QHeaderView

    assert screen.table.verticalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.Fixed


def test_charts_show_every_model_and_save_as_png_and_svg(screen, tmp_path, qtbot):
    choose(screen, qtbot, [r.id for r in screen.store.list_runs()])
    assert [p.chart.key for p in screen.panels] == [
        "unsafe-vs-cost",
        "escalation-calibration",
        "execution-gap",
        "empathy-resilience",
    ]
    assert all("complier" in p.chart.svg for p in screen.panels)  # by display name (issue 35)
    panel = screen.panels[0]
    with qtbot.waitSignal(panel.saved):
        png = panel.save(tmp_path / "unsafe.png")
    svg = panel.save(tmp_path / "unsafe.svg")
    image = QImage(str(png))
    assert image.width() == 2 * 940
    assert svg.read_text(encoding="utf-8").startswith("<svg")


def test_domain_filter_lists_the_chosen_runs_domains(screen):
    assert [screen.domain.itemText(i) for i in range(screen.domain.count())] == ["All domains", "northline"]
    screen.domain.setCurrentText("northline")
    assert screen.model.rowCount() == 1


def test_a_run_is_read_off_the_gui_thread_and_shown_when_read(screen, qtbot):
    other = [r.id for r in screen.store.list_runs() if "baseline:complier" in r.config["agents"]]
    screen.select_runs(other)
    assert screen.loading and screen.reading.isVisible() and "Reading the metrics of 1 run" in screen.reading.text()
    assert not screen.export_action.isEnabled()
    qtbot.waitUntil(lambda: not screen.loading)
    assert not screen.reading.isVisible() and screen.export_action.isEnabled()
    assert agents_in_view(screen.model) == DEFAULT_ORDER


def test_a_read_made_stale_by_a_write_is_read_again(screen, qtbot):
    run_id = screen.selected_runs()[0]
    screen.results.clear()
    screen._on_runs_changed()  # a read starts ...
    screen._on_verdicts_written(run_id)  # ... and new verdicts arrive before it ends
    qtbot.waitUntil(lambda: not screen.loading)
    assert run_id in screen.results and screen.model.rowCount() == 1


def test_html_export_from_the_screen(screen, tmp_path):
    page = screen.export_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert "baseline:oracle" in page and page.count("<svg ") == 4


def test_an_empty_store_says_how_to_get_runs(qtbot, tmp_path):
    widget = LeaderboardScreen(store=Store(f"sqlite:///{tmp_path / 'empty.db'}"))
    qtbot.addWidget(widget)
    widget.show()
    assert widget.empty.text() == EMPTY_TEXT and widget.empty.isVisible()
    assert not widget.table.isVisible()


def test_model_names_stay_in_view_and_every_figure_has_a_column(screen, qtbot):
    choose(screen, qtbot, [r.id for r in screen.store.list_runs() if "baseline:complier" in r.config["agents"]])
    model, table = screen.model, screen.table
    assert table.horizontalHeader().isSectionHidden(model.column_of("agent"))  # the row header names the model
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in range(model.rowCount())] == [
        a.removeprefix("baseline:") for a in agents_in_view(model)
    ]  # each agent's display name
    table.horizontalScrollBar().setValue(table.horizontalScrollBar().maximum())
    assert table.verticalHeader().isVisible()
    row = agents_in_view(model).index("baseline:complier")
    texts = {model.columns[c].header: model.data(model.index(row, c)) for c in range(model.columnCount())}
    assert texts["pass^k"].endswith("(k=2)") and texts["False closure"].replace(".", "").isdigit()
    assert ".0/" not in texts["Unsafe"] and not texts["Unsafe"].split()[0].endswith(".0")
    assert screen.order.text().startswith("Sorted by:")  # core's own words for its default order
    model.sort(model.column_of("pass_k"), Qt.SortOrder.DescendingOrder)
    assert screen.order.text().startswith("Sorted by pass^k, highest first")


def test_runs_of_two_domains_are_never_pooled_into_one_row(qtbot, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'two.db'}")
    runner = Runner(store, post=verdict_hook(store))
    for domain, cases in (("northline", ["nl-001"]), ("airline", None)):
        spec = RunSpec(domain=domain, agents=["baseline:oracle"], cases=cases, repeats=1)
        run_id = runner.create(spec)
        asyncio.run(runner.execute(run_id))
    screen = LeaderboardScreen(store=store)
    qtbot.addWidget(screen)
    qtbot.waitUntil(lambda: not screen.loading)
    choose(screen, qtbot, [r.id for r in store.list_runs()])
    domains = [screen.model.data(screen.model.index(r, screen.model.column_of("domain"))) for r in range(screen.model.rowCount())]
    assert sorted(domains) == ["airline", "northline"]
    store.close()


def test_a_long_model_name_is_cut_in_the_row_header_and_whole_in_its_tooltip(qtbot, tmp_path):
    from sage_desk.gui.leaderboard.screen import MODEL_NAME_WIDTH

    long_name = "baseline:imperfect?classify=0.95&act=0.85&believe=0.1&escalate=0.15"
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, post=verdict_hook(store))
    run_id = runner.create(RunSpec(domain="northline", agents=["baseline:oracle", long_name], cases=CASES[:2], repeats=1))
    asyncio.run(runner.execute(run_id))
    widget = LeaderboardScreen(store=store)
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    qtbot.waitUntil(lambda: not widget.loading)
    names = widget.table.verticalHeader()
    assert names.width() <= MODEL_NAME_WIDTH  # the metrics keep the rest of the width
    model = widget.table.model()
    row = next(
        r
        for r in range(model.rowCount())
        if long_name in model.headerData(r, Qt.Orientation.Vertical, Qt.ItemDataRole.ToolTipRole)
    )
    assert model.headerData(row, Qt.Orientation.Vertical) == "imperfect"  # its display name; the spec on hover
    assert model.headerData(row, Qt.Orientation.Vertical, Qt.ItemDataRole.ToolTipRole) == f"imperfect = {long_name}"
    store.close()


def test_agents_show_under_distinct_names_in_rows_legends_and_axes(qtbot, tmp_path):
    """Issue 35: two `baseline:imperfect?...` variants shared one name in legends, axes and the model column."""
    plain, variant = "baseline:imperfect", "baseline:imperfect?classify=0.95&act=0.85"
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, post=verdict_hook(store))
    run_id = runner.create(RunSpec(domain="northline", agents=[plain, variant, "baseline:oracle"], cases=CASES[:2], repeats=1))
    asyncio.run(runner.execute(run_id))
    widget = LeaderboardScreen(store=store)
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    qtbot.waitUntil(lambda: not widget.loading and widget.model.rowCount() == 3)
    model = widget.model
    shown = {model.headerData(r, Qt.Orientation.Vertical): model.rows[r]["spec"] for r in range(model.rowCount())}
    assert shown == {"imperfect": plain, "imperfect-2": variant, "oracle": "baseline:oracle"}
    assert {model.data(model.index(r, 0)) for r in range(model.rowCount())} == set(shown)  # the Model column too
    charts = "".join(panel.chart.svg for panel in widget.panels if panel.chart is not None)
    assert "imperfect-2" in charts and variant not in charts.replace("&amp;", "&")  # legends and axes by name
    store.close()


def test_a_big_report_is_computed_off_the_gui_thread(qtbot, tmp_path, monkeypatch):
    """Picking a 2,430-conversation run stalled the window 0.4 s while its report was computed (issue 35)."""
    import threading

    from sage_desk.core.export.leaderboard import leaderboard_report
    from sage_desk.core.metrics.load import results_for_runs
    from sage_desk.gui.leaderboard import loader
    from sage_desk.gui.leaderboard import screen as screen_module

    monkeypatch.setattr(screen_module, "REPORT_IN_THREAD_FROM", 1)  # every report in the thread, on a small run
    threads = []
    computed = loader.leaderboard_report
    monkeypatch.setattr(
        loader,
        "leaderboard_report",
        lambda results, domain: threads.append(threading.current_thread()) or computed(results, domain),
    )
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, post=verdict_hook(store))
    run_id = runner.create(
        RunSpec(domain="northline", agents=["baseline:oracle", "baseline:escalator"], cases=CASES[:2], repeats=1)
    )
    asyncio.run(runner.execute(run_id))
    widget = LeaderboardScreen(store=store)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitUntil(lambda: not widget.loading and widget.model.rowCount() == 2)
    assert threads and all(t is not threading.main_thread() for t in threads)
    expected = leaderboard_report(results_for_runs(store, [run_id]), None)
    assert [r["spec"] for r in widget.model.rows] == [r["agent"] for r in expected["models"]]
    store.close()
