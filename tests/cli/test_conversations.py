"""Finding conversations without SQL: `conversations` lists ids, `show --case` opens one, failed runs say so."""

from __future__ import annotations

import json

import pytest
from helpers import run_args

from sage_desk.cli import main
from sage_desk.core.events import TerminationReason
from sage_desk.core.store import Store

CASES = ["nl-001", "nl-121", "nl-145"]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One offline run: oracle and complier on three cases, two repeats; its database URL and run id."""
    db = f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.db'}"
    code = main(
        run_args(db, "baseline:oracle", "baseline:complier", user="scripted", judge="none", cases=",".join(CASES), repeats=2)
    )
    assert code == 0
    return db, Store(db).latest_run_id()


def _cli(capsys, *argv):
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, db, *extra):
    code, out, _ = _cli(capsys, "conversations", "--db", db, "--format", "json", *extra)
    assert code == 0
    return json.loads(out)


def test_conversations_lists_every_id_with_case_agent_ending_and_failed_verdicts(played, capsys):
    db, run_id = played
    code, out, err = _cli(capsys, "conversations", "--db", db, "--run", run_id)
    assert code == 0 and "12 conversation(s) of run" in err
    header, *rows = out.splitlines()
    assert header.split() == ["conversation", "case", "agent", "repeat", "ending", "failed", "verdicts"]
    stored = {c.id: c for c in Store(db).conversations(run_id)}
    assert sorted(r.split()[0] for r in rows) == sorted(stored)
    for row in rows:
        cid, case, agent, repeat, ending = row.split()[:5]
        convo = stored[cid]
        # agents by their display names (baseline:oracle -> oracle)
        assert (case, agent, int(repeat), ending) == (
            convo.case_id,
            convo.agent.removeprefix("baseline:"),
            convo.repeat,
            convo.termination,
        )
    oracle = [r for r in rows if " oracle " in r]
    assert oracle and all(r.rstrip().endswith(" -") for r in oracle)  # the oracle fails no rule
    complier = [r for r in rows if " complier " in r]
    assert any(not r.rstrip().endswith(" -") for r in complier) and any(" more" in r for r in complier)  # cut to fit
    for row in complier:  # whole verdict names only, never one cut mid-word
        failed = row.split(None, 5)[5]
        names = [n for n in failed.split(", ") if not n.startswith("+")]
        assert all(
            n == "-" or n.startswith(("classification", "path.", "outcome", "escalation.", "catastrophic.", "judge"))
            for n in names
        ), failed
    assert max(len(line) for line in out.splitlines()) <= 100


def test_failed_verdicts_are_the_effective_ones_after_a_human_override(played, capsys):
    db, run_id = played
    store = Store(db)
    records = _json(capsys, db, "--agent", "baseline:oracle", "--case", "nl-001")
    assert len(records) == 2 and {r["case"] for r in records} == {"nl-001"}
    target = records[0]["id"]
    for record in _json(capsys, db):
        failed = {v.criterion for v in store.effective_verdicts(conversation_id=record["id"]) if v.passed is False}
        assert set(record["failed"]) == failed
    store.add_override(target, "outcome", "rules", human_passed=False, reason="missed the refund", author="dana")
    (after,) = [r for r in _json(capsys, db) if r["id"] == target]
    assert "outcome" in after["failed"]
    assert target in _cli(capsys, "conversations", "--db", db, "--failed", "--format", "ids")[1].split()


def test_failed_keeps_failed_rules_and_filters_combine(played, capsys):
    db, _ = played
    failed = _json(capsys, db, "--failed")
    assert failed and all(any(not c.startswith("judge") for c in r["failed"]) for r in failed)
    narrowed = _json(capsys, db, "--failed", "--agent", "baseline:complier", "--case", "nl-145")
    assert narrowed and {(r["agent"], r["case"]) for r in narrowed} == {("baseline:complier", "nl-145")}
    code, _, err = _cli(capsys, "conversations", "--db", db, "--case", "nl-999")
    assert code == 1 and "no case 'nl-999' in run" in err and "nl-001" in err


def test_show_takes_a_run_and_a_case(played, capsys):
    db, run_id = played
    code, out, _ = _cli(
        capsys, "show", "--db", db, "--run", run_id, "--case", "nl-121", "--agent", "baseline:oracle", "--repeat", "1"
    )
    (convo,) = Store(db).conversations(run_id, case_id="nl-121", agent="baseline:oracle", repeat=1)
    assert code == 0 and out.startswith(f"{convo.id}  case nl-121  agent baseline:oracle") and "CUSTOMER:" in out
    code, out, err = _cli(capsys, "show", "--db", db, "--case", "nl-121")
    assert code == 2 and out == "" and "4 conversations of case 'nl-121'" in err and "--agent" in err
    assert err.count("c-") >= 4  # the candidates are listed to pick from
    assert _cli(capsys, "show", "--db", db, "--case", "nl-999")[0] == 1
    assert _cli(capsys, "show", "--db", db)[0] == 2
    assert _cli(capsys, "show", convo.id, "--db", db, "--case", "nl-121")[0] == 2


def test_a_run_whose_every_conversation_errored_is_failed_not_finished(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'errored.db'}"
    assert main(run_args(db, "baseline:oracle", user="scripted", judge="none", cases="nl-001")) == 0
    store = Store(db)
    run_id = store.latest_run_id()
    assert store.get_run(run_id).status == "finished"
    for convo in store.conversations(run_id):  # as a dead endpoint leaves them, without minutes of retries
        store.finish(convo.id, TerminationReason.ERROR, error="openai/m: gave up after 5 attempt(s)")
    assert store.get_run(run_id).status == "failed" and store.list_runs()[0].status == "failed"
    code, out, err = _cli(capsys, "conversations", "--db", db)
    assert code == 0 and f"run {run_id} failed: all 1 conversations errored" in err
    assert "error: openai/m: gave up" in out


def test_show_of_an_imported_conversation_has_no_none_in_its_header(tmp_path, capsys):
    """An imported conversation has no conflict (and maybe no bucket) yet: its header leaves them out."""
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data" / "imports" / "northline_production.jsonl"
    db = f"sqlite:///{tmp_path / 'imported.db'}"
    assert main(["import", str(data), "--format", "openai", "--domain", "northline", "--db", db]) == 0
    capsys.readouterr()
    conversation = Store(db).conversations()[0]
    assert conversation.conflict is None  # what makes the old header print "None"
    code, out, _ = _cli(capsys, "show", "--db", db, conversation.id)
    header = out.splitlines()[0]
    assert code == 0 and header.startswith(f"{conversation.id}  source {conversation.source_id}  case ") and "None" not in header
    code, by_source, _ = _cli(capsys, "show", "--db", db, conversation.source_id)  # its id in the imported file finds it
    assert code == 0 and by_source.splitlines()[0] == header
