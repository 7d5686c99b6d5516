"""`export-results --events` then `import --format events` gives a run back exactly (issue 34): case
ids, buckets, repeats, endings, events, every verdict source as given, reviewers' labels, and an
imported conversation's slots with their history."""

from __future__ import annotations

import json
from pathlib import Path

from fakes import FakeOpenAIServer
from helpers import run_args

from sage_desk.cli import main
from sage_desk.core.judge.rubric import CRITERIA
from sage_desk.core.store import Store

OPENAI = Path(__file__).resolve().parents[1] / "data" / "imports" / "northline_production.jsonl"
JUDGE = "openai/judge-model"


def _judge(_request):
    return json.dumps({"scores": {c.name: {"score": 6, "rationale": "fair"} for c in CRITERIA}})


def _snapshot(store: Store, run_id: str, by_source_id: bool) -> dict[str, dict]:
    """What must survive the round trip, per conversation (keyed by its original id)."""
    cases = store.imported_cases(run_id)
    out = {}
    for c in store.conversations(run_id):
        key = c.source_id if by_source_id else c.id
        case = cases.get(c.id)
        out[key] = {
            "case": c.case_id,
            "bucket": c.bucket,
            "repeat": c.repeat,
            "agent": c.agent,
            "status": c.status.value,
            "ending": c.termination,
            "turns": c.turns,
            "rules_state": c.rules_state,
            "events": [e.model_dump(mode="json", exclude={"t", "latency_ms"}) for e in store.events(c.id)],
            "verdicts": sorted((v.source, v.criterion, v.passed, v.score, v.unscored, v.rationale) for v in store.verdicts(c.id)),
            "labels": [
                (o.criterion, o.source, o.human_passed, o.human_score, o.reason, o.author, o.kind)
                for o in store.overrides(conversation_id=c.id)
            ],
            "slots": None
            if case is None
            else (case["case"]["truth"], case["slot_sources"], [(h["field"], h["value"], h["author"]) for h in case["history"]]),
        }
    return out


def _round_trip(tmp_path: Path, db: str, run_id: str, capsys) -> tuple[str, str]:
    exported = tmp_path / "events.jsonl"
    assert main(["export-results", "--db", db, "--run", run_id, "--events", "--out", str(exported)]) == 0
    other = f"sqlite:///{tmp_path / 'other.db'}"
    assert main(["import", str(exported), "--db", other, "--domain", "northline", "--format", "events"]) == 0
    capsys.readouterr()
    (run,) = Store(other).list_runs()
    return other, run.id


def test_a_simulated_run_with_a_judge_round_trips(tmp_path: Path, capsys) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_judge) as judge:
        assert (
            main(
                run_args(
                    db,
                    "baseline:oracle",
                    "baseline:complier",
                    judge=JUDGE,
                    cases="nl-001,nl-002,nl-003",
                    repeats=2,
                    extra=["--judge-api-base", judge.base_url],
                )
            )
            == 0
        )
    (run,) = Store(db).list_runs()
    first = Store(db).conversations(run.id)[0]
    Store(db).add_override(first.id, "outcome", "rules", human_passed=False, reason="closed too soon", author="ana")
    Store(db).add_override(first.id, "outcome", "rules", human_passed=True, reason="on second look", author="ben")
    before = _snapshot(Store(db), run.id, by_source_id=False)
    other, copy = _round_trip(tmp_path, db, run.id, capsys)
    after = _snapshot(Store(other), copy, by_source_id=True)
    for snapshot in (before, after):
        for record in snapshot.values():
            record.pop("slots")  # a simulated conversation has no import slots; the copy has placed ones
            record.pop("rules_state")
    assert after == before
    assert {v[0] for r in after.values() for v in r["verdicts"]} == {"rules", f"judge:{JUDGE}"}
    assert [label[5] for r in after.values() for label in r["labels"]] == ["ana", "ben"]  # the labels, in order


def test_an_imported_run_with_a_reviewers_slot_round_trips(tmp_path: Path, capsys) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    assert main(["import", str(OPENAI), "--db", db, "--domain", "northline", "--format", "openai"]) == 0
    store = Store(db)
    (run,) = store.list_runs()
    target = next(c for c in store.conversations(run.id) if c.source_id == "zd-48817")
    assert main(["set-slot", target.id, "CoreDemand", "product_fault", "--db", db, "--author", "ines"]) == 0
    capsys.readouterr()
    before = _snapshot(store, run.id, by_source_id=True)
    other, copy = _round_trip(tmp_path, db, run.id, capsys)
    after = _snapshot(Store(other), copy, by_source_id=True)
    assert after == before
    assert after["zd-48817"]["slots"][2] == [("CoreDemand", "product_fault", "ines")]
