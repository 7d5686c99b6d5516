"""The offline pipeline end to end through the CLI: run, report (json/csv), show, rejudge."""

from __future__ import annotations

import json

import pytest
from helpers import run_args

from sage_desk.cli import main


@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory):
    db = f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.db'}"
    code = main(run_args(db, "baseline:oracle", "baseline:complier", "baseline:escalator", user="scripted", judge="none"))
    assert code == 0
    return db


def report(db, capsys, *extra):
    capsys.readouterr()
    assert main(["report", "--db", db, "--format", "json", *extra]) == 0
    return {m["agent"]: m for m in json.loads(capsys.readouterr().out)["models"]}


def test_baseline_figures_come_out_of_the_engine(baseline_run, capsys):
    models = report(baseline_run, capsys)
    oracle, complier, escalator = models["baseline:oracle"], models["baseline:complier"], models["baseline:escalator"]
    assert oracle["conversations"] == 162 and oracle["errored"] == 0
    assert (oracle["classification_accuracy"], oracle["action_accuracy"]) == (1.0, 1.0)
    assert oracle["unsafe_actions"] == 0 and oracle["escalation_accuracy"] == 1.0 and oracle["over_escalation"] == 0.0
    assert oracle["adversarial_cases"] == 18 and oracle["unsafe_band"] == "safe"
    assert complier["unsafe_actions"] >= 16 and complier["unsafe_band"] == "reckless"
    assert all(complier["catastrophic"][k] > 0 for k in ("free_goods", "fraud_reroute", "wrongful_cancel", "false_closure"))
    assert escalator["over_escalation"] == 1.0
    assert "sage_score" not in oracle


def test_sage_view_is_a_labelled_extra(baseline_run, capsys):
    models = report(baseline_run, capsys, "--view", "sage")
    assert "sage_score" in models["baseline:oracle"]


def test_csv_and_table(baseline_run, capsys):
    assert main(["report", "--db", baseline_run, "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("agent,domain") and len(lines) == 4
    assert main(["report", "--db", baseline_run]) == 0
    assert "no composite score" in capsys.readouterr().out


def test_show_and_rejudge(baseline_run, capsys):
    from sage_desk.core.store import Store

    store = Store(baseline_run)
    run_id = store.latest_run_id()
    cid = store.conversations(run_id=run_id, agent="baseline:complier", bucket="adversarial")[0].id
    assert main(["show", cid, "--db", baseline_run]) == 0
    out = capsys.readouterr().out
    assert "CUSTOMER:" in out and "FAIL" in out and "catastrophic." in out
    assert main(["rejudge", "--db", baseline_run, "--run", run_id, "--judge", "baseline:heuristic"]) == 0
    assert any(v.source == "baseline:heuristic" for v in store.verdicts(conversation_id=cid))


def test_a_run_plays_each_case_three_times_unless_told(tmp_path):
    from sage_desk.core.store import Store

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    assert main(run_args(db, "baseline:oracle", judge="none", cases="nl-001", repeats=None)) == 0
    assert sorted(c.repeat for c in Store(db).conversations()) == [1, 2, 3]  # the median of three, as SupportAgentBench


def test_usage_errors(capsys):
    assert main(["run", "--domain", "northline"]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["run", "--repeats", "x"])
    assert exc.value.code == 2


def test_the_report_counts_conversations_still_missing_judge_verdicts(tmp_path, capsys):
    from sage_desk.core.store import Store

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    assert main(run_args(db, "baseline:oracle", judge="baseline:heuristic", cases="nl-001,nl-002", repeats=None)) == 0
    store = Store(db)
    first = store.conversations()[0].id
    store.save_verdicts(first, "baseline:heuristic", [])  # as a judge call cut short by a kill would leave it
    capsys.readouterr()
    assert main(["report", "--db", db, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unjudged"] == {store.latest_run_id(): 1}
    assert main(["report", "--db", db]) == 0
    said = " ".join(capsys.readouterr().out.split())  # wrapped to COLUMNS, whatever the terminal running the tests says
    assert "1 finished conversation(s) still lack rule or judge verdicts" in said
