"""`report` fits the terminal (COLUMNS, else 100 columns; --wide for one row per model), and no display is one line."""

from __future__ import annotations

import pytest
from helpers import run_args

from sage_desk.cli import main
from sage_desk.cli.report import build_report, render_table, terminal_columns
from sage_desk.core.store import Store

AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.db'}"
    agents = [a for agent in AGENTS for a in ("--agent", agent)]
    assert (
        main(run_args(url, user="scripted", judge="baseline:heuristic", cases="nl-001,nl-121,nl-145", repeats=2, extra=agents))
        == 0
    )
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
    header = next(line for line in out.splitlines() if line.startswith("┃ "))
    assert all(f" {agent.removeprefix('baseline:')} " in header for agent in AGENTS)  # by display name
    assert "no composite score" in out.splitlines()[0]


@pytest.mark.parametrize("columns", [60, 120, 250])
def test_the_table_fits_columns(db, capsys, monkeypatch, columns):
    out = _table(capsys, monkeypatch, db, columns)
    assert max(len(line) for line in out.splitlines()) <= columns
    assert all(f" {name} " in out for name in ("oracle", "complier", "escalator"))  # display names, never cut
    rows_per_model = any(line.startswith("┃ agent ") for line in out.splitlines())
    assert rows_per_model == (columns == 250)


def test_wide_is_one_row_per_model_whatever_the_terminal(db, capsys, monkeypatch):
    out = _table(capsys, monkeypatch, db, 80, "--wide")
    header = next(line for line in out.splitlines() if line.startswith("┃ agent "))
    assert (
        all(f" {h} " in header for _, h in terminal_columns(sage_view=False))
        and max(len(line) for line in out.splitlines()) > 150
    )
    assert sorted(line.split()[1] for line in out.splitlines() if line.startswith("│ ")) == [
        "complier",
        "escalator",
        "oracle",
    ]  # no cell wraps


def test_many_models_come_in_blocks_that_fit(db):
    report = build_report(Store(db), [Store(db).latest_run_id()])
    report["models"] = [{**m, "agent": f"{m['agent']}-{i}"} for i in range(3) for m in report["models"]]
    text = render_table(report, sage_view=False, width=100)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert all(f"{a.removeprefix('baseline:')}-{i}" in text for a in AGENTS for i in range(3))  # display names
    assert sum(1 for line in text.splitlines() if line.startswith("│ resolution ")) > 1


def test_no_display_is_one_line_and_exit_1_before_qt_loads(monkeypatch, capsys):
    import sage_desk.gui.app as app

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app, "run_app", lambda **_: pytest.fail("the app was started without a display"))
    assert main([]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "xvfb-run -a " in err and "QT_QPA_PLATFORM" in err


@pytest.mark.parametrize(
    "launcher, on_path, says",
    [
        ("./dev app", False, "xvfb-run -a ./dev app"),  # ./dev users: sage-desk is not on their PATH (exit 127 before)
        (None, True, "xvfb-run -a sage-desk"),
        (None, False, "bin/sage-desk`"),  # a virtualenv not activated: the script's own path
    ],
)
def test_no_display_advice_names_a_command_that_runs_here(monkeypatch, capsys, launcher, on_path, says):
    import shutil
    import sys

    import sage_desk.gui.app as app

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "SAGE_DESK_LAUNCHER"):
        monkeypatch.delenv(name, raising=False)
    if launcher:
        monkeypatch.setenv("SAGE_DESK_LAUNCHER", launcher)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/sage-desk" if on_path else None)
    monkeypatch.setattr(sys, "argv", ["/home/x/sage-desk/.venv/bin/sage-desk"])
    monkeypatch.setattr(app, "run_app", lambda **_: pytest.fail("the app was started without a display"))
    assert main([]) == 1
    assert says in capsys.readouterr().err


def test_five_sample_agents_sit_side_by_side_at_100_columns_with_rounded_ranges(capsys, monkeypatch):
    """The sample Northline run: five agents, one block, a one-line title, short names with a legend."""
    import re

    from sage_desk.core.store.sample import sample_path

    if not sample_path().is_file():
        pytest.skip("no sample runs built: ./dev builds them (./dev sample-runs)")
    out = _table(capsys, monkeypatch, "sample", 100, "--run", "r-sample-northline")
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0].startswith("Run r-sample-northline: ") and "no composite score" in lines[0]  # one line
    header = next(line for line in lines if line.startswith("┃ "))
    assert {c.strip() for c in header.split("┃")[2:-1]} == {"oracle", "imperfect-2", "imperfect", "imperfect-3", "escalator"}
    assert sum(1 for line in lines if line.startswith("┏")) == 1  # every model in one block
    assert not re.search(r"\d\.\d{3,}", out)  # numbers at the shown precision: never 3.33333
    at = next(i for i, line in enumerate(lines) if line.startswith("│ unsafe "))
    unsafe = " ".join(lines[at : at + 3])  # the row and its wrapped lines
    assert re.search(r"\(\d+(\.\d)?-\d+(\.\d)?\)", unsafe), unsafe  # unsafe's interval as counts, e.g. (3.3-7.7)
    assert "--0." not in out and not re.search(r"\(-\d+\.\d+-", out)  # a negative range reads "-0.18 to -0.07"
    assert "imperfect-2 = baseline:imperfect?classify=0.95&act=0.85&believe=0.1&escalate=0.15" in out


def test_a_negative_range_reads_to_and_numbers_round_to_what_is_shown():
    from sage_desk.cli.report import _fmt

    row = {
        "execution_gap_range": [-0.18, -0.18],
        "execution_gap_ci": [-0.1801, -0.0699],
        "unsafe_actions_ci": [3.33333, 7.66667],
        "adversarial_cases": 18,
        "unsafe_band": "middling",
        "policy_range": [0.5, 0.5],
        "policy_ci": [0.499, 0.501],
    }
    assert _fmt("execution_gap", -0.12, row) == "-0.12 (-0.18 to -0.07)"
    assert _fmt("unsafe_actions", 5, row) == "5/18 middling (3.3-7.7)"
    assert _fmt("policy", -0.001, row) == "0.00"  # no "-0.00", and an interval that rounds to one number is left out


def test_names_given_with_the_run_head_its_columns(tmp_path, capsys, monkeypatch):
    url = f"sqlite:///{tmp_path / 'named.db'}"
    assert main(run_args(url, "careful=baseline:imperfect?act=0.9", "baseline:imperfect", cases="nl-001,nl-002")) == 0
    with Store(url) as store:
        run = store.get_run(store.latest_run_id())
    assert run.config["agents"] == ["baseline:imperfect?act=0.9", "baseline:imperfect"]
    assert run.config["agent_names"] == {"baseline:imperfect?act=0.9": "careful"}
    out = _table(capsys, monkeypatch, url, 100)
    header = next(line for line in out.splitlines() if line.startswith("┃ "))
    assert {c.strip() for c in header.split("┃")[2:4]} == {"careful", "imperfect"}
    assert "careful = baseline:imperfect?act=0.9" in out
    assert main(["runs", "--db", url]) == 0
    assert "careful, imperfect" in capsys.readouterr().out


def test_a_name_given_to_two_agents_is_a_usage_error(tmp_path, capsys):
    assert main(run_args(str(tmp_path / "x.db"), "a=baseline:oracle", "a=baseline:escalator", repeats=None)) == 2
    assert "the name 'a' is already another agent's" in capsys.readouterr().err
