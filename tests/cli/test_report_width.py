"""`report` fits the terminal (COLUMNS, else 100 columns; --wide for one row per model), and no display is one line."""

from __future__ import annotations

import pytest

from sage_desk.cli import main
from sage_desk.cli.report import build_report, render_table, terminal_columns
from sage_desk.core.store import Store

AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.db'}"
    agents = [a for agent in AGENTS for a in ("--agent", agent)]
    assert main(["run", "--db", url, "--domain", "northline", *agents, "--user", "scripted", "--judge", "baseline:heuristic",
                 "--cases", "nl-001,nl-121,nl-145", "--repeats", "2", "--quiet"]) == 0
    return url


def _table(capsys, monkeypatch, db, columns=None, *extra):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    assert main(["report", "--db", db, *extra]) == 0
    return capsys.readouterr().out


def test_the_table_fits_100_columns_by_default_with_every_metric(db, capsys, monkeypatch):
    out = _table(capsys, monkeypatch, db)
    assert max(len(line) for line in out.splitlines()) <= 100
    for _, header in terminal_columns(sage_view=False)[1:]:  # one row per metric: nothing is left out to fit
        assert any(line.startswith(f"│ {header} ") for line in out.splitlines()), header
    assert all(agent in out for agent in AGENTS) and "no composite score" in out.replace("\n", " ")


@pytest.mark.parametrize("columns", [60, 120, 250])
def test_the_table_fits_columns(db, capsys, monkeypatch, columns):
    out = _table(capsys, monkeypatch, db, columns)
    assert max(len(line) for line in out.splitlines()) <= columns
    assert "baseline:escalator" in out  # never cut through a name
    rows_per_model = any(line.startswith("┃ agent ") for line in out.splitlines())
    assert rows_per_model == (columns == 250)


def test_wide_is_one_row_per_model_whatever_the_terminal(db, capsys, monkeypatch):
    out = _table(capsys, monkeypatch, db, 80, "--wide")
    header = next(line for line in out.splitlines() if line.startswith("┃ agent "))
    assert all(f" {h} " in header for _, h in terminal_columns(sage_view=False)) and max(len(line) for line in out.splitlines()) > 150
    assert sum(1 for line in out.splitlines() if line.startswith("│ baseline:")) == 3  # no cell wraps


def test_many_models_come_in_blocks_that_fit(db):
    report = build_report(Store(db), [Store(db).latest_run_id()])
    report["models"] = [{**m, "agent": f"{m['agent']}-{i}"} for i in range(3) for m in report["models"]]
    text = render_table(report, sage_view=False, width=100)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert all(f"{a}-{i}" in text for a in AGENTS for i in range(3))
    assert sum(1 for line in text.splitlines() if line.startswith("│ resolution ")) > 1


def test_no_display_is_one_line_and_exit_1_before_qt_loads(monkeypatch, capsys):
    import sage_desk.gui.app as app

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app, "run_app", lambda **_: pytest.fail("the app was started without a display"))
    assert main([]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "xvfb-run -a sage-desk" in err and "QT_QPA_PLATFORM" in err
