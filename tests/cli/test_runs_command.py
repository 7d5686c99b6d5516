"""`sage-desk runs`: every run of a database, and a missing run named in plain words with the nearest ids."""

from __future__ import annotations

import json

import pytest

from sage_desk.cli import main
from sage_desk.core.store import Store


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.db'}"
    for agents in (["--agent", "baseline:oracle", "--agent", "fast=baseline:escalator"], ["--agent", "baseline:complier"]):
        assert (
            main(["run", "--db", url, "--domain", "northline", *agents, "--cases", "nl-001,nl-121", "--repeats", "1", "--quiet"])
            == 0
        )
    return url


def test_runs_lists_every_run_newest_first_with_display_names(db, capsys):
    capsys.readouterr()
    assert main(["runs", "--db", db]) == 0
    out, err = capsys.readouterr()
    header, *rows = out.splitlines()
    assert header.split() == ["run", "domain", "conversations", "status", "created", "agents"]
    ids = [r.id for r in Store(db).list_runs()]
    assert [row.split()[0] for row in rows] == ids  # newest first
    assert rows[0].split()[1:4] == ["northline", "2", "finished"] and rows[0].endswith("complier")
    assert rows[1].split()[2] == "4" and rows[1].endswith("oracle, fast")  # the name given as fast=SPEC
    assert "2 run(s) in the SQLite file " in err and "Store(" not in err


def test_runs_as_json_carries_specs_names_and_counts(db, capsys):
    capsys.readouterr()
    assert main(["runs", "--db", db, "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    older = records[1]
    assert older["agents"] == [{"spec": "baseline:oracle", "name": "oracle"}, {"spec": "baseline:escalator", "name": "fast"}]
    assert older["conversations"] == 4 and older["by_status"] == {"finished": 4} and older["status"] == "finished"


def test_an_empty_database_says_so_and_suggests_the_sample(tmp_path, capsys):
    assert main(["runs", "--db", str(tmp_path / "empty.db")]) == 0
    err = capsys.readouterr().err
    assert "no runs yet in the SQLite file " in err and "--sample" in err


@pytest.mark.parametrize(
    "command",
    [
        ["report", "--run"],
        ["conversations", "--run"],
        ["export-results", "--run"],
        ["calibration", "--run"],
        ["compare", "r-nope"],
    ],
)
def test_a_missing_run_is_named_with_the_database_in_words_and_the_nearest_ids(db, capsys, command):
    latest = Store(db).latest_run_id()
    typo = latest[:-1] + ("x" if latest[-1] != "x" else "y")
    capsys.readouterr()
    argv = [*command, typo, "--db", db] if command[-1] == "--run" else [*command, typo, "--db", db]
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert f"no run '{typo if command[-1] == '--run' else 'r-nope'}' in the SQLite file " in err, err
    near = "nearest" if command[-1] == "--run" else "newest"  # a typo of an id, or no id like it
    assert f"{near}: {latest}" in err and "Store(" not in err and "Traceback" not in err
