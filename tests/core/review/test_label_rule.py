"""The label rule: each reviewer once, an adjudication wins, else agreement, else a dispute left out and counted."""

from __future__ import annotations

import json

import pytest
from team_data import CRITERION, JUDGE, kappa_labels

from sage_desk.core.calibration import calibration_report
from sage_desk.core.export.calibration import calibration_records
from sage_desk.core.store import StoreError
from sage_desk.core.store.consensus import by_criterion, resolve
from sage_desk.core.store.reviews import NewOverride


def test_each_reviewer_counts_once_with_their_latest_label(team):
    store, ids = team
    cid = ids[1]  # the judge failed it
    store.add_override(cid, CRITERION, JUDGE, human_passed=False, author="alice")
    store.add_override(cid, CRITERION, JUDGE, human_passed=True, author="alice", reason="on second reading")
    store.add_override(cid, CRITERION, JUDGE, human_passed=True, author="bob")
    (verdict,) = [v for v in store.effective_verdicts(cid) if v.criterion == CRITERION]
    assert verdict.passed is True and verdict.overridden
    label = calibration_report(store, "r-team").items[0].label
    assert (label.passed, label.status) == (True, "agreed")


def test_a_disagreement_is_left_out_of_metrics_and_calibration_and_counted(team):
    store, ids = team
    store.add_overrides(kappa_labels(ids))
    marks = {m.conversation_id: m for m in store.effective_marks("r-team") if m.criterion == CRITERION}
    # items 15-19: alice passed, bob failed: the judge's own value stands in the metrics
    assert [marks[ids[i]].passed for i in range(15, 20)] == [i % 2 == 0 for i in range(15, 20)]
    assert marks[ids[0]].passed is True and marks[ids[39]].passed is False  # agreed labels apply
    report = calibration_report(store, "r-team")
    assert (report.labels, report.disputed) == (35, 5)
    assert {i.conversation_id for i in report.items}.isdisjoint(ids[15:20])
    assert report.to_dict()["disputed"] == 5


def test_an_adjudication_is_the_label_everything_uses(team, tmp_path):
    store, ids = team
    store.add_overrides(kappa_labels(ids))
    store.add_overrides(
        [
            NewOverride(
                ids[16], CRITERION, JUDGE, human_passed=False, author="lead", reason="no apology at all", kind="adjudication"
            )
        ]
    )
    (mark,) = [m for m in store.effective_marks("r-team") if m.conversation_id == ids[16] and m.criterion == CRITERION]
    assert mark.passed is False
    report = calibration_report(store, "r-team")
    assert (report.labels, report.disputed) == (36, 4)
    (item,) = [i for i in report.items if i.conversation_id == ids[16]]
    assert (item.label.passed, item.label.status, item.label.author) == (False, "adjudicated", "lead")
    records = {r["conversation_id"]: r for r in calibration_records(store, "r-team")}
    assert records[ids[16]]["human_passed"] is False and records[ids[16]]["human_author"] == "lead"
    assert (records[ids[16]]["human_status"], records[ids[0]]["human_status"]) == ("adjudicated", "agreed")
    assert ids[17] not in records and len(records) == 36
    json.dumps(list(records.values()))


def test_an_adjudication_needs_a_reason_and_a_known_kind(team):
    store, ids = team
    with pytest.raises(StoreError, match="reason"):
        store.add_overrides([NewOverride(ids[0], CRITERION, JUDGE, human_passed=True, author="lead", kind="adjudication")])
    with pytest.raises(StoreError, match="not 'vote'"):
        store.add_overrides([NewOverride(ids[0], CRITERION, JUDGE, human_passed=True, author="lead", kind="vote")])


def test_tags_and_a_corrected_reply_are_kept_with_the_label(team):
    store, ids = team
    store.add_overrides(
        [
            NewOverride(
                ids[3],
                CRITERION,
                JUDGE,
                human_passed=False,
                author="alice",
                tags=("cold_tone",),
                corrected_reply="I am sorry about the delay.",
            )
        ]
    )
    (record,) = store.overrides(conversation_id=ids[3])
    assert (record.kind, record.tags, record.corrected_reply) == ("label", ["cold_tone"], "I am sorry about the delay.")
    label = calibration_report(store, "r-team").items[0].label
    assert (label.tags, label.corrected_reply) == (("cold_tone",), "I am sorry about the delay.")


def test_scores_that_agree_on_pass_give_their_mean(team):
    store, ids = team
    store.add_override(ids[1], CRITERION, JUDGE, human_score=0.7, author="alice")
    store.add_override(ids[1], CRITERION, JUDGE, human_score=0.9, author="bob")
    (mark,) = [m for m in store.effective_marks("r-team") if m.conversation_id == ids[1] and m.criterion == CRITERION]
    assert (mark.passed, mark.score) == (True, 0.8)


def test_calibration_keys_a_label_by_criterion_whichever_judge_it_was_written_against(team):
    store, ids = team
    overrides = [
        NewOverride(ids[0], CRITERION, JUDGE, human_passed=True, author="alice"),
        NewOverride(ids[0], CRITERION, "judge:other", human_passed=False, author="bob"),
    ]
    store.add_overrides(overrides)
    resolution = resolve(store.overrides(run_id="r-team"), key=by_criterion)
    assert list(resolution.disputes) == [(ids[0], CRITERION)]
