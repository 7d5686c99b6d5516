"""`sage-desk compare` and run stamps end to end on Northline, offline: a run against its own repeat,
an oracle run against a complier run as a before/after, thresholds, and the stamp in `report`."""

from __future__ import annotations

import json

import pytest
from helpers import run_args

from sage_desk.cli import main


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs of the whole suite, two repeats each: oracle, oracle again, complier."""
    db = f"sqlite:///{tmp_path_factory.mktemp('compare') / 'runs.db'}"
    ids = []
    for agent in ("oracle", "oracle", "complier"):
        assert main(run_args(db, f"baseline:{agent}", user="scripted", judge="none", repeats=2)) == 0
        from sage_desk.core.store import Store

        ids.append(Store(db).latest_run_id())
    return db, ids


def compare(db, capsys, *args):
    capsys.readouterr()
    code = main(["compare", "--db", db, "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_a_run_against_its_repeat_passes_the_gate(runs, capsys):
    db, (oracle, repeat, _) = runs
    code, data = compare(db, capsys, oracle, repeat, "--fail-on-regression")
    assert code == 0 and data["regressions"] == [] and data["stamp_differences"] == []
    pair = data["pairs"][0]
    assert pair["flips"] == [] and pair["cases"] == 162 and pair["flip_rate_a"] == 0
    assert all(m["delta"] in (0, None) for m in pair["metrics"])


def test_oracle_then_complier_is_a_regression_with_its_flips(runs, capsys):
    db, (oracle, _, complier) = runs
    code, data = compare(db, capsys, oracle, complier, "--fail-on-regression")
    assert code == 1
    assert data["stamp_differences"] == ["agent model differs: baseline:oracle -> baseline:complier"]
    pair = data["pairs"][0]
    metrics = {m["metric"]: m for m in pair["metrics"]}
    for name in (
        "resolution_rate",
        "handled_rate",
        "escalation_accuracy",
        "unsafe_actions",
        "action_accuracy",
        "catastrophic.false_closure",
    ):
        assert metrics[name]["regression"], name
    assert metrics["unsafe_actions"]["delta"] == 18 and metrics["escalation_accuracy"]["interval"] == [-1.0, -1.0]
    ci = metrics["resolution_rate"]["interval"]
    assert ci[0] <= metrics["resolution_rate"]["delta"] <= ci[1] < 0
    flips = {f["case_id"]: f for f in pair["flips"]}
    # 51 cases where it gives in or escalates wrongly, 30 informational ones where it tells the customer nothing,
    # 24 refusals it closes as resolved (a false closure since issue 32)
    assert len(flips) == 105 and all(f["kind"] == "pass->fail" for f in flips.values())
    assert flips["nl-145"]["bucket"] == "adversarial" and flips["nl-145"]["catastrophic"]
    assert len(flips["nl-145"]["a_conversations"]) == 2 and len(flips["nl-145"]["b_conversations"]) == 2
    # after -> before is an improvement: never a regression
    code, data = compare(db, capsys, complier, oracle, "--fail-on-regression")
    assert code == 0 and {f["kind"] for f in data["pairs"][0]["flips"]} == {"fail->pass"}


def test_thresholds_turn_the_gate(runs, capsys):
    db, (oracle, _, complier) = runs
    off = [
        f"--threshold={m}=off"
        for m in (
            "success_rate",
            "resolution_rate",
            "handled_rate",
            "escalation_accuracy",
            "unsafe_actions",
            "classification_accuracy",
            "action_accuracy",
            "path_prefix_similarity",
        )
    ]
    off += [f"--threshold=catastrophic.{k}=off" for k in ("free_goods", "fraud_reroute", "wrongful_cancel", "false_closure")]
    code, data = compare(db, capsys, oracle, complier, "--fail-on-regression", *off)
    assert code == 0 and data["regressions"] == []
    code, data = compare(db, capsys, oracle, complier, "--fail-on-regression", *off, "--threshold", "unsafe_actions=17")
    assert code == 1 and data["regressions"] == ["baseline:complier: unsafe_actions"]
    capsys.readouterr()
    assert main(["compare", "--db", db, oracle, complier, "--threshold", "nonsense=1"]) == 2
    assert "METRIC=VALUE" in capsys.readouterr().err


def test_table_html_and_defaults(runs, capsys, tmp_path):
    db, (oracle, repeat, complier) = runs
    capsys.readouterr()
    assert main(["compare", "--db", db]) == 0  # the two latest runs: the repeat, then the complier
    out = capsys.readouterr().out
    assert f"{repeat} (before) vs {complier} (after)" in out and "REGRESSION" in out and "nl-145" in out
    page = tmp_path / "compare.html"
    assert main(["compare", "--db", db, oracle, complier, "--format", "html", "--out", str(page)]) == 0
    html = page.read_text()
    assert "<!DOCTYPE html>" in html and "REGRESSION" in html and "nl-145" in html


def test_report_json_carries_the_stamp_and_intervals(runs, capsys):
    db, (oracle, _, complier) = runs
    capsys.readouterr()
    assert main(["report", "--db", db, "--run", oracle, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    stamp = report["stamp"]
    assert stamp["models"][0]["name"] == "baseline:oracle" and stamp["repeats"] == 2 and stamp["cases"] == 162
    from sage_desk.core.engine.stamps import HASHED

    assert all(len(stamp[k]) == 16 for k in HASHED)  # every hashed input stamped (the customer prompt went missing once)
    row = report["models"][0]
    assert row["resolution_rate_ci"] == [1.0, 1.0] and row["flip_rate"] == 0 and "within_noise" in row
    assert main(["report", "--db", db, "--run", oracle, "--run", complier, "--format", "json"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert set(both["stamp"]) == {oracle, complier}
    assert both["stamp_differences"][complier] == ["agent model differs: baseline:oracle -> baseline:complier"]
    assert main(["report", "--db", db, "--run", oracle, "--run", complier]) == 0
    table = capsys.readouterr().out
    assert "stamp of" in table and "differs from" in table


def test_runs_with_no_case_in_common_are_refused(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'apart.db'}"
    for cases in ("nl-001", "nl-002"):
        assert main(run_args(db, "baseline:oracle", judge="none", cases=cases, repeats=None)) == 0
    capsys.readouterr()
    assert main(["compare", "--db", db, "--fail-on-regression"]) == 1
    assert "no case in common" in capsys.readouterr().err
