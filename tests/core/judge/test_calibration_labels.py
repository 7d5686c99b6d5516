"""Human labels read from overrides and paired with the judge's own verdicts."""

from __future__ import annotations

import pytest
from calibration_data import HEURISTIC, human_says_pass, label_all

from sage_desk.core.calibration import calibration_report, human_labels
from sage_desk.core.calibration.labels import human_pass, judge_pass
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store.records import OverrideRecord


def override(**values):
    base = {
        "id": 1,
        "verdict_id": None,
        "conversation_id": "c",
        "criterion": "judge.empathy",
        "source": HEURISTIC,
        "original_passed": None,
        "original_score": None,
        "human_passed": None,
        "human_score": None,
        "human_value": None,
        "reason": "",
        "author": "",
        "created_at": "2026-01-01T00:00:00",
    }
    return OverrideRecord(**{**base, **values})


def test_pass_rules_for_judge_values_and_human_values():
    assert judge_pass(Verdict(criterion="x", passed=False, score=0.9)) is False  # the judge's own flag wins
    assert judge_pass(Verdict(criterion="x", score=0.6)) is True  # score only: the rubric's 0.6 threshold
    assert judge_pass(Verdict(criterion="x", score=0.59)) is False
    assert judge_pass(Verdict(criterion="x", unscored=True)) is None
    assert human_pass(override(human_passed=True, human_score=0.1)) is True
    assert human_pass(override(human_score=0.7)) is True and human_pass(override(human_score=0.5)) is False
    assert human_pass(override(human_value="FAIL")) is False and human_pass(override(human_value="maybe")) is None


def test_report_pairs_every_labelled_conversation_with_the_judges_own_value(judged):
    labelled = label_all(judged)
    report = calibration_report(judged, judged.latest_run_id())
    assert report.labels == len(labelled) == 40
    (row,) = report.rows()
    assert (row.source, row.criterion, row.agreement.n, row.unscored) == (HEURISTIC, "judge.empathy", 40, 0)
    # recompute the confusion matrix from the stored judge verdicts, independently of the report
    expected = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for convo in judged.conversations(run_id=judged.latest_run_id()):
        (v,) = [v for v in judged.verdicts(convo.id, source=HEURISTIC) if v.criterion == "judge.empathy"]
        key = ("t" if v.passed == human_says_pass(convo) else "f") + ("p" if v.passed else "n")
        expected[key] += 1
    c = row.agreement.confusion
    assert {"tp": c.tp, "fp": c.fp, "fn": c.fn, "tn": c.tn} == expected
    assert len(report.disagreements()) == expected["fp"] + expected["fn"] > 0
    assert all(d.judge_passed != d.label.passed for d in report.disagreements())


def test_labels_use_the_latest_override_across_judges_and_ignore_rule_verdicts(judged):
    run_id = judged.latest_run_id()
    cid = judged.conversations(run_id=run_id)[0].id
    # One reviewer changing their mind: their latest label counts (two reviewers who differ: test_label_rule.py).
    judged.add_override(cid, "judge.empathy", HEURISTIC, human_passed=False, author="bo")
    judged.add_override(cid, "judge.empathy", "judge:openai/other", human_score=0.8, author="bo", reason="kind")
    judged.add_override(cid, "outcome", "rules", human_passed=False, author="bo")
    labels = human_labels(judged, run_id)
    assert list(labels) == [(cid, "judge.empathy")]
    label = labels[(cid, "judge.empathy")]
    assert (label.passed, label.score, label.author, label.reason) == (True, 0.8, "bo", "kind")
    report = calibration_report(judged, run_id)
    assert [(i.source, i.label.passed) for i in report.items] == [(HEURISTIC, True)]


def test_unscored_judge_verdicts_are_counted_but_not_in_the_figures(judged):
    run_id = judged.latest_run_id()
    convos = judged.conversations(run_id=run_id)[:3]
    judged.save_verdicts(convos[0].id, "judge:openai/j", [Verdict(criterion="judge.empathy", unscored=True, raw="??")])
    judged.save_verdicts(convos[1].id, "judge:openai/j", [Verdict(criterion="judge.empathy", score=0.9, passed=True)])
    for convo in convos:
        judged.add_override(convo.id, "judge.empathy", "judge:openai/j", human_passed=True)
    (row,) = calibration_report(judged, run_id).rows("judge:openai/j")
    assert (row.agreement.n, row.unscored, row.agreement.accuracy) == (1, 1, 1.0)
    assert row.agreement.warning == "too few labels: 1 of the 20 needed"


def test_a_run_without_labels_says_how_to_get_them(judged):
    report = calibration_report(judged, judged.latest_run_id())
    assert report.labels == 0 and report.rows() == []
    data = report.to_dict()
    assert "sage-desk label" in data["hint"] and "Review" in data["hint"]


@pytest.mark.parametrize("criterion", ["judge.linguistic_quality", "judge.empathy"])
def test_disagreements_can_be_narrowed_to_a_criterion(judged, criterion):
    label_all(judged, "judge.empathy", limit=10)
    label_all(judged, "judge.linguistic_quality", limit=10)
    report = calibration_report(judged, judged.latest_run_id())
    assert [r.criterion for r in report.rows()] == ["judge.linguistic_quality", "judge.empathy"]  # rubric order
    narrowed = report.disagreements(criterion=criterion)
    assert narrowed and {d.criterion for d in narrowed} == {criterion}


def test_verdicts_many_reads_what_verdicts_reads_per_conversation(judged):
    ids = [c.id for c in judged.conversations(run_id=judged.latest_run_id())]
    wanted = ["judge.empathy", "outcome"]
    one_by_one = [v for cid in sorted(ids) for v in judged.verdicts(cid) if v.criterion in wanted]
    assert judged.verdicts_many(ids, criteria=wanted) == one_by_one and len(one_by_one) == 2 * len(ids)
    assert len(judged.verdicts_many(ids[:3])) == sum(len(judged.verdicts(cid)) for cid in ids[:3])
    assert judged.verdicts_many([]) == []
