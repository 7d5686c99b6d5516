"""Calibration sets: one flat record per labelled judge verdict; JSONL and CSV round trips; no secrets."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from calibration_data import HEURISTIC, fresh_store, judged_run_db, label_all

from sage_desk.core.calibration import split_of
from sage_desk.core.export.calibration import FIELDS, MESSAGE_FIELDS, calibration_records, to_csv, write_calibration_set
from sage_desk.core.judge.rubric import CRITERIA
from sage_desk.core.store import Store

SECRET = "sk-live-SECRETKEY1234567890abcdef"


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return judged_run_db(tmp_path_factory.mktemp("export"))


@pytest.fixture
def labelled(template, tmp_path):
    with fresh_store(template, tmp_path) as store:
        label_all(store, "judge.empathy", limit=6)
        label_all(store, "judge.resolution_quality", limit=4, author="bo")
        first = store.conversations(run_id=store.latest_run_id())[0].id
        store.add_override(first, "judge.content_utility", HEURISTIC, human_score=0.3, reason="vague", author="cy")
        yield store


def types_of(records):
    """key -> the set of non-null value types across records."""
    seen = {}
    for r in records:
        for k, v in r.items():
            seen.setdefault(k, set())
            if v is not None:
                seen[k].add(type(v).__name__)
    return seen


def test_every_record_has_the_same_keys_and_one_type_per_key(labelled):
    records = calibration_records(labelled, labelled.latest_run_id())
    assert len(records) == 11
    assert all(tuple(r) == FIELDS for r in records)
    assert {k: t for k, t in types_of(records).items() if len(t) != 1} == {}  # no mixed types, no all-null column
    messages = [m for r in records for m in r["messages"]]
    assert messages and all(tuple(m) == MESSAGE_FIELDS and all(isinstance(v, str) for v in m.values()) for m in messages)


def test_a_record_holds_what_a_calibration_set_needs(labelled):
    records = calibration_records(labelled, labelled.latest_run_id())
    record = next(r for r in records if r["criterion"] == "judge.empathy")
    convo = labelled.conversation(record["conversation_id"])
    (verdict,) = [v for v in labelled.verdicts(convo.id, source=HEURISTIC) if v.criterion == "judge.empathy"]
    (override,) = [o for o in labelled.overrides(conversation_id=convo.id) if o.criterion == "judge.empathy"]
    assert record["case_id"] == convo.case_id and record["domain"] == "northline" and record["agent"] == convo.agent
    assert record["rubric"] == next(c.rubric for c in CRITERIA if c.name == "judge.empathy")
    assert record["judge_model"] == HEURISTIC
    assert (record["judge_passed"], record["judge_score"], record["judge_rationale"]) == (
        verdict.passed,
        verdict.score,
        verdict.rationale,
    )
    assert (record["human_passed"], record["human_reason"], record["human_author"]) == (
        override.human_passed,
        override.reason,
        "ana",
    )
    assert record["human_label"] == ("pass" if override.human_passed else "fail")
    assert record["labelled_at"] == override.created_at.isoformat()
    assert record["split"] == split_of(convo.case_id)
    assert record["transcript"].startswith("CUSTOMER: ")
    roles = [m["role"] for m in record["messages"]]
    assert roles[0] == "customer" and "tool" in roles and "agent" in roles
    tool = next(m for m in record["messages"] if m["role"] == "tool")
    assert tool["tool_name"] and json.loads(tool["tool_arguments"]) is not None


def test_jsonl_and_csv_round_trip(labelled, tmp_path):
    run_id = labelled.latest_run_id()
    records = calibration_records(labelled, run_id)
    assert write_calibration_set(labelled, run_id, tmp_path / "set.jsonl") == 11
    lines = (tmp_path / "set.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records
    assert write_calibration_set(labelled, run_id, tmp_path / "set.csv", "csv") == 11
    with open(tmp_path / "set.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    assert json.loads(rows[0]["messages"]) == records[0]["messages"]
    assert rows[0]["transcript"] == records[0]["transcript"]  # multi-line text survives quoting
    assert rows[0]["judge_passed"] in ("true", "false")
    assert sorted(r["human_score"] for r in rows)[-2:] == ["", "0.3"]
    with pytest.raises(ValueError, match="unknown format"):
        write_calibration_set(labelled, run_id, tmp_path / "x.xml", "xml")


def test_one_judge_only_and_an_unlabelled_run_exports_nothing(labelled, template, tmp_path):
    assert calibration_records(labelled, labelled.latest_run_id(), source="judge:openai/none") == []
    with fresh_store(template, tmp_path) as clean:
        assert calibration_records(clean, clean.latest_run_id()) == []
        assert to_csv([]).strip() == ",".join(FIELDS)


def test_api_keys_never_reach_the_export(template, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    db = tmp_path / "secret.db"
    shutil.copyfile(template, db)
    with Store(f"sqlite:///{db}") as store:
        run_id = store.latest_run_id()
        convs = [
            {
                "id": "secret-conv",
                "case_id": store.conversation(store.conversations(run_id=run_id)[0].id).case_id,
                "agent": "openai/gpt",
                "bucket": "resolvable",
            }
        ]
        secret_run = store.create_run(
            "northline",
            {
                "agents": ["openai/gpt"],
                "api_key": SECRET,
                "api_base": f"https://user:{SECRET}@llm.example/v1",
                "env": {"OPENAI_API_KEY": SECRET},
            },
            convs,
        )
        from sage_desk.core.events import AgentMessage, CustomerMessage
        from sage_desk.core.rules.verdict import Verdict

        store.append_many(
            "secret-conv",
            [
                CustomerMessage(seq=0, turn=1, text=f"my key is {SECRET} oops"),
                AgentMessage(seq=1, turn=1, text="Please never share keys."),
            ],
        )
        store.save_verdicts(
            "secret-conv",
            "judge:openai/j",
            [Verdict(criterion="judge.empathy", passed=True, score=0.9, rationale=f"api_key={SECRET}")],
        )
        store.add_override(
            "secret-conv", "judge.empathy", "judge:openai/j", human_passed=False, reason=f"leaked Bearer {SECRET}", author="ana"
        )
        for fmt in ("jsonl", "csv"):
            out = tmp_path / f"set.{fmt}"
            assert write_calibration_set(store, secret_run, out, fmt) == 1
            text = out.read_text(encoding="utf-8")
            assert SECRET not in text and "SECRETKEY" not in text
            assert "my key is *** oops" in text
