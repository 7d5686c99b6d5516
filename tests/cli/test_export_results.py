"""`sage-desk export-results`: one record per conversation, effective verdicts, JSONL and CSV."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from helpers import run_args

from sage_desk.cli import main
from sage_desk.core.export.results import FIELDS
from sage_desk.core.store import Store

CASES = ["nl-001", "nl-121", "nl-145", "nl-154", "nl-159"]  # resolvable, must-escalate, three adversarial traps


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('results') / 'runs.db'}"
    args = run_args(url, "baseline:oracle", "baseline:complier", user="scripted", judge="none", cases=",".join(CASES))
    assert main(args) == 0
    return url


def records(db: str, tmp_path: Path, fmt: str = "jsonl", *extra: str) -> list[dict]:
    out = tmp_path / f"results.{fmt}"
    assert main(["export-results", "--db", db, "--out", str(out), *extra]) == 0
    if fmt == "csv":
        with out.open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_every_conversation_is_one_record_with_every_field(db, tmp_path):
    rows = records(db, tmp_path)
    assert len(rows) == 2 * len(CASES) and all(tuple(r) == FIELDS for r in rows)
    oracle = {r["case"]: r for r in rows if r["agent"] == "baseline:oracle"}
    complier = {r["case"]: r for r in rows if r["agent"] == "baseline:complier"}
    assert oracle["nl-001"]["resolved"] is True and oracle["nl-001"]["ticket"] == "resolved"
    assert oracle["nl-121"]["resolved"] is None and oracle["nl-121"]["ticket"] == "escalated"  # must-escalate: n/a
    # the ending in the words `conversations` prints for the same conversations
    assert (oracle["nl-001"]["ending"], oracle["nl-121"]["ending"]) == ("closed", "handed_over")
    assert all(r["unsafe_acts"] == [] for r in oracle.values())
    assert oracle["nl-154"]["trap_failed"] is False and oracle["nl-001"]["trap_failed"] is None
    assert complier["nl-154"]["unsafe_acts"] == ["fraud_reroute"] and complier["nl-154"]["trap_failed"] is True
    assert complier["nl-159"]["unsafe_acts"] == ["false_closure"] and complier["nl-159"]["trap_failed"] is True
    names = {v["criterion"] for v in oracle["nl-001"]["verdicts"]}
    assert {
        "classification",
        "path.action_accuracy",
        "outcome",
        "escalation.unneeded",
        "catastrophic.free_goods",
        "catastrophic.fraud_reroute",
        "catastrophic.wrongful_cancel",
        "catastrophic.false_closure",
    } <= names


def test_a_human_override_is_the_exported_value_and_marked(db, tmp_path):
    store = Store(db)
    target = next(c for c in store.conversations() if c.agent == "baseline:oracle" and c.case_id == "nl-001")
    store.add_override(target.id, "outcome", "rules", human_passed=False, reason="the tracking number was wrong", author="qa")
    row = next(r for r in records(db, tmp_path) if r["conversation"] == target.id)
    outcome = next(v for v in row["verdicts"] if v["criterion"] == "outcome")
    assert (outcome["passed"], outcome["overridden"]) == (False, True)
    assert row["resolved"] is False  # resolution follows the effective verdicts


def test_csv_holds_the_same_records_with_lists_as_json(db, tmp_path):
    rows = records(db, tmp_path, "csv", "--verdicts", "json")
    assert len(rows) == 2 * len(CASES) and list(rows[0]) == list(FIELDS)
    trap = next(r for r in rows if r["agent"] == "baseline:complier" and r["case"] == "nl-154")
    assert json.loads(trap["unsafe_acts"]) == ["fraud_reroute"] and trap["trap_failed"] == "True"
    assert isinstance(json.loads(trap["verdicts"]), list)


def test_csv_has_a_value_and_a_source_column_per_criterion(db, tmp_path):
    """For a spreadsheet: the complier's fraud reroute trap fails in its own cell; the oracle's passes."""
    rows = records(db, tmp_path, "csv")
    assert "verdicts" not in rows[0]
    header = list(rows[0])
    assert header[: len(FIELDS) - 1] == [f for f in FIELDS if f != "verdicts"]
    assert "catastrophic.fraud_reroute" in header and "catastrophic.fraud_reroute source" in header
    trap = {r["agent"]: r for r in rows if r["case"] == "nl-154"}
    assert trap["baseline:complier"]["catastrophic.fraud_reroute"] == "fail"
    assert trap["baseline:oracle"]["catastrophic.fraud_reroute"] == "pass"
    assert trap["baseline:oracle"]["catastrophic.fraud_reroute source"] == "rules"
    assert all(r["classification"] in ("pass", "fail") for r in rows)
    both = records(db, tmp_path, "csv", "--verdicts", "both")
    assert "verdicts" in both[0] and "classification" in both[0]


def test_without_out_it_writes_jsonl_to_stdout(db, capsys):
    assert main(["export-results", "--db", db]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 * len(CASES) and json.loads(lines[0])["conversation"].startswith("c-")
