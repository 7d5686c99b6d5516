"""Verdicts and human overrides: append-only, the judge's value kept, the latest one in effect."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import func, select

from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import JudgeExample, Store, StoreError
from sage_desk.core.store.schema import OverrideRow

CID = "x-openai/a-c0"
JUDGE = "judge:openai/j"


@pytest.fixture
def judged(any_store: Store, make_run: Callable[..., str]) -> Store:
    """A store with one conversation, two rule verdicts and two judge verdicts."""
    make_run(any_store, n=2)
    any_store.save_verdicts(
        CID,
        "rules",
        [
            Verdict(criterion="outcome", passed=True, event_seq=3, node="end_ok"),
            Verdict(criterion="path.action_accuracy", score=0.5, edge="a->b"),
        ],
    )
    any_store.save_verdicts(
        CID,
        JUDGE,
        [
            Verdict(criterion="judge.empathy", passed=False, score=0.2, rationale="cold"),
            Verdict(criterion="judge.policy", unscored=True, raw="not json"),
        ],
    )
    return any_store


def test_verdicts_round_trip_and_filter(judged: Store) -> None:
    rules = judged.verdicts(CID, source="rules")
    assert [(v.criterion, v.passed, v.score, v.event_seq, v.node, v.edge) for v in rules] == [
        ("outcome", True, None, 3, "end_ok", None),
        ("path.action_accuracy", None, 0.5, None, None, "a->b"),
    ]
    assert all(v.conversation_id == CID and v.id > 0 for v in rules)
    unscored = judged.verdicts(CID, source=JUDGE)[1]
    assert unscored.unscored and unscored.raw == "not json" and unscored.passed is None
    assert len(judged.verdicts(run_id=judged.latest_run_id())) == 4
    assert judged.verdicts("x-openai/a-c1") == []


def test_save_verdicts_replaces_only_that_source(judged: Store) -> None:
    judged.save_verdicts(CID, JUDGE, [Verdict(criterion="judge.empathy", passed=True, details={"votes": [1, 1]})])
    assert [v.criterion for v in judged.verdicts(CID, source="rules")] == ["outcome", "path.action_accuracy"]
    (only,) = judged.verdicts(CID, source=JUDGE)
    assert only.passed is True and only.details == {"votes": [1, 1]}


def test_overrides_are_append_only_and_keep_the_judge_value(judged: Store) -> None:
    empathy = judged.verdicts(CID, source=JUDGE)[0]
    first = judged.add_override(CID, "judge.empathy", JUDGE, human_passed=True, reason="warm enough", author="ana")
    second = judged.add_override(
        CID,
        "judge.empathy",
        JUDGE,
        human_passed=True,
        human_score=0.9,
        reason="on reflection",
        author="bo",
        verdict_id=empathy.id,
    )
    assert second > first
    records = judged.overrides(conversation_id=CID)
    assert [(o.id, o.author, o.original_passed, o.original_score, o.verdict_id) for o in records] == [
        (first, "ana", False, 0.2, empathy.id),
        (second, "bo", False, 0.2, empathy.id),
    ]
    assert judged.verdicts(CID, source=JUDGE)[0] == empathy  # the judge's row is untouched
    assert judged.overrides(run_id=judged.latest_run_id()) == records


def test_effective_verdicts_apply_the_latest_override(judged: Store) -> None:
    judged.add_override(CID, "judge.empathy", JUDGE, human_passed=True, reason="first", author="ana")
    latest = judged.add_override(CID, "judge.empathy", JUDGE, human_score=0.7, reason="second", author="bo")
    judged.add_override(CID, "judge.policy", JUDGE, human_passed=False, reason="it offered a refund", author="ana")
    effective = {v.criterion: v for v in judged.effective_verdicts(CID, source=JUDGE)}
    empathy = effective["judge.empathy"]
    # two reviewers agree (a pass, and a score of 0.7 that passes): the agreed label, the latest in effect
    assert (empathy.passed, empathy.score, empathy.override_id, empathy.overridden) == (True, 0.7, latest, True)
    assert (empathy.original_passed, empathy.original_score) == (False, 0.2)
    policy = effective["judge.policy"]
    assert (policy.passed, policy.unscored, policy.raw) == (False, False, "not json")
    assert not {v.criterion: v for v in judged.effective_verdicts(CID)}["outcome"].overridden


def test_the_marks_metrics_read_are_the_effective_verdicts(judged: Store) -> None:
    judged.add_override(CID, "judge.empathy", JUDGE, human_score=0.7, reason="warmer than it says", author="bo")
    judged.add_override(CID, "judge.policy", JUDGE, human_passed=False, reason="it offered a refund", author="ana")
    run_id = judged.latest_run_id()
    assert run_id is not None
    full = [
        (v.conversation_id, v.criterion, v.source, v.passed, v.score, v.unscored)
        for v in judged.effective_verdicts(run_id=run_id)
    ]
    marks = [(m.conversation_id, m.criterion, m.source, m.passed, m.score, m.unscored) for m in judged.effective_marks(run_id)]
    assert marks == full and (CID, "judge.policy", JUDGE, False, None, False) in marks


def test_many_overrides_at_once_match_one_at_a_time(judged: Store) -> None:
    from sage_desk.core.store.reviews import NewOverride

    rules_outcome = judged.verdicts(CID, source="rules")[0]
    news = [
        NewOverride(CID, "judge.empathy", JUDGE, human_passed=True, reason="warm", author="ana"),
        NewOverride(CID, "outcome", "rules", human_passed=False, verdict_id=rules_outcome.id),
        NewOverride(CID, "never.judged", JUDGE, human_value="billing"),
    ]
    ids = judged.add_overrides(news)
    assert ids == sorted(ids) and len(set(ids)) == 3
    stored = {o.id: o for o in judged.overrides(conversation_id=CID)}
    empathy, outcome, unjudged = (stored[i] for i in ids)
    assert (empathy.original_passed, empathy.original_score, empathy.human_passed) == (False, 0.2, True)
    assert (outcome.verdict_id, outcome.original_passed) == (rules_outcome.id, True)
    assert (unjudged.verdict_id, unjudged.human_value) == (None, "billing")
    single = judged.add_override(CID, "judge.empathy", JUDGE, human_passed=True, reason="warm", author="ana")
    assert (stored[ids[0]].verdict_id, stored[ids[0]].original_score) == (
        judged.overrides(conversation_id=CID)[-1].verdict_id,
        judged.overrides(conversation_id=CID)[-1].original_score,
    )
    assert single > ids[-1]


def test_an_override_survives_a_rejudge_by_the_same_source(judged: Store) -> None:
    override = judged.add_override(CID, "judge.empathy", JUDGE, human_passed=True, author="ana")
    judged.save_verdicts(CID, JUDGE, [Verdict(criterion="judge.empathy", passed=False, score=0.1)])
    (empathy,) = judged.effective_verdicts(CID, source=JUDGE)
    assert (empathy.passed, empathy.original_score, empathy.override_id) == (True, 0.1, override)
    (record,) = judged.overrides(conversation_id=CID)
    assert record.verdict_id is None and record.original_score == 0.2  # the first judge's value is history


def test_the_store_never_deletes_an_override(judged: Store) -> None:
    judged.add_override(CID, "judge.empathy", JUDGE, human_passed=True)
    judged.start_conversation(CID)  # a resume wipes events and verdicts ...
    assert len(judged.overrides(conversation_id=CID)) == 1  # ... but not what a human said
    with judged._reading() as session:
        assert session.scalar(select(func.count()).select_from(OverrideRow)) == 1


def test_bad_overrides_are_refused(judged: Store) -> None:
    with pytest.raises(StoreError, match="needs a human value"):
        judged.add_override(CID, "judge.empathy", JUDGE)
    with pytest.raises(StoreError, match="0-1"):
        judged.add_override(CID, "judge.empathy", JUDGE, human_score=3.0)
    with pytest.raises(StoreError, match="no conversation"):
        judged.add_override("missing", "judge.empathy", JUDGE, human_passed=True)
    rule = judged.verdicts(CID, source="rules")[0]
    with pytest.raises(StoreError, match="is not"):
        judged.add_override(CID, "judge.empathy", JUDGE, human_passed=True, verdict_id=rule.id)


def test_a_label_without_a_verdict_is_kept(judged: Store) -> None:
    oid = judged.add_override(CID, "judge.tone", JUDGE, human_value="too formal", author="ana")
    (record,) = judged.overrides(conversation_id=CID)
    assert (record.id, record.verdict_id, record.original_passed, record.human_value) == (oid, None, None, "too formal")


def test_judge_examples(any_store: Store) -> None:
    ids = any_store.add_judge_examples(
        [
            JudgeExample(
                domain="northline", criterion="judge.empathy", transcript="C: hi\nA: hello", label_passed=True, split="train"
            ),
            {"domain": "northline", "criterion": "judge.empathy", "transcript": "C: ...", "label_score": 0.3, "split": "test"},
            {"domain": "northline", "criterion": "judge.policy", "transcript": "C: ...", "label_passed": False},
            {"domain": "bank", "criterion": "judge.empathy", "transcript": "C: ..."},
        ]
    )
    assert len(ids) == 4 and ids == sorted(ids)
    empathy = any_store.judge_examples("northline", "judge.empathy")
    assert [(e.id, e.label_passed, e.label_score, e.split) for e in empathy] == [
        (ids[0], True, None, "train"),
        (ids[1], None, 0.3, "test"),
    ]
    assert all(e.created_at is not None for e in empathy)
    assert [e.id for e in any_store.judge_examples("northline", split="train")] == [ids[0], ids[2]]
    with pytest.raises(ValueError):
        any_store.add_judge_examples([{"domain": "d", "criterion": "c", "transcript": "t", "split": "holdout"}])
