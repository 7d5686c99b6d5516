"""The Leaderboard's columns fit its width in the main window at 1280x720 and 1440x900 (issue 35): the most
telling first, no sideways scroll, every other column a tick in the header's context menu."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store

CASES = ["nl-001", "nl-003", "nl-121", "nl-145", "nl-146"]


@pytest.fixture(scope="module")
def db_url(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('fit') / 'runs.db'}"
    with Store(url) as store:
        runner = Runner(store, post=verdict_hook(store))
        run_id = runner.create(
            RunSpec(domain="northline", agents=["baseline:oracle", "baseline:complier"], cases=CASES, repeats=2)
        )
        asyncio.run(runner.execute(run_id))
    return url


def open_leaderboard(qtbot, tmp_path, db_url, size):
    from sage_desk.gui.main_window import MainWindow

    window = MainWindow(settings_home=tmp_path / "home", db_url=db_url)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.show_screen("leaderboard")
    screen = window.screen_widget("leaderboard")
    qtbot.waitUntil(lambda: not screen.loading and screen.model.rowCount() == 2, timeout=15_000)
    qtbot.wait(50)  # the layout settles: the table gets its width
    return window, screen


def shown_headers(screen) -> list[str]:
    header, model = screen.table.horizontalHeader(), screen.model
    columns = [header.logicalIndex(v) for v in range(header.count())]
    return [model.columns[c].header for c in columns if not header.isSectionHidden(c)]


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_the_columns_fit_the_width_most_telling_first(qtbot, tmp_path, db_url, size):
    window, screen = open_leaderboard(qtbot, tmp_path, db_url, size)
    table, header = screen.table, screen.table.horizontalHeader()
    assert window.width() <= size[0]
    shown = shown_headers(screen)
    # success, then the unsafe count, then how many conversations: whatever the width, these lead
    assert shown[:4] == ["Success", "Unsafe", "Convs", "Errored"], shown
    assert "Model" not in shown  # the row header names the model
    from sage_desk.gui.leaderboard.fit_columns import ranked

    in_order = [
        screen.model.columns[screen.model.column_of(k)].header
        for k in ranked(screen.columns_fit.keys(), screen.columns_fit.no_traps())
    ]
    assert shown == [h for h in in_order if h != "Model"][: len(shown)]  # the most telling, none skipped
    assert table.horizontalScrollBar().maximum() == 0, (shown, header.length(), table.viewport().width())
    assert header.length() <= table.viewport().width()
    # the rest are a right-click away, ticked when shown, most telling first
    hidden = screen.columns_fit.hidden_keys()
    assert hidden, "25 columns cannot all fit on a laptop"
    menu = screen.columns_fit.menu()
    ticks = {a.text(): a.isChecked() for a in menu.actions() if a.isCheckable()}
    assert [t for t, on in ticks.items() if on] == shown
    assert "Fit Columns to the Width" in [a.text() for a in menu.actions()]


def test_a_column_ticked_in_the_header_menu_shows_and_fit_forgets_the_choice(qtbot, tmp_path, db_url):
    _, screen = open_leaderboard(qtbot, tmp_path, db_url, (1280, 720))
    wanted = screen.model.columns[screen.model.column_of(screen.columns_fit.hidden_keys()[-1])].header
    before = shown_headers(screen)
    action = next(a for a in screen.columns_fit.menu().actions() if a.text() == wanted)
    action.trigger()  # as a click on its tick
    assert wanted in shown_headers(screen) and len(shown_headers(screen)) == len(before) + 1
    success = next(a for a in screen.columns_fit.menu().actions() if a.text() == "Success")
    success.trigger()  # unticked: hidden whatever the room
    assert "Success" not in shown_headers(screen)
    screen.model.set_rows(screen.model.rows)  # picking runs again keeps the reader's choices
    assert wanted in shown_headers(screen) and "Success" not in shown_headers(screen)
    fit = next(a for a in screen.columns_fit.menu().actions() if a.text() == "Fit Columns to the Width")
    fit.trigger()
    assert shown_headers(screen) == before
    screen.table.sortByColumn(screen.model.column_of("success_rate"), Qt.SortOrder.DescendingOrder)
    assert shown_headers(screen) == before  # sorting moves rows, never columns


def test_an_audit_without_traps_shows_its_unsafe_kinds_after_success():
    from sage_desk.gui.leaderboard.fit_columns import ranked

    keys = ["success_rate", "unsafe_actions", "conversations", "catastrophic.wrongful_cancel", "pass_k"]
    assert ranked(keys) == ["success_rate", "unsafe_actions", "conversations", "pass_k", "catastrophic.wrongful_cancel"]
    # an imported tau audit: 'Unsafe' is '–' (no traps), the kinds' counts are what it says about safety
    assert ranked(keys, kinds_first=True) == [
        "success_rate",
        "catastrophic.wrongful_cancel",
        "unsafe_actions",
        "conversations",
        "pass_k",
    ]
