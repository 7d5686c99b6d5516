"""Each conversation's marks in its summary (0009): the verdicts' vote after the label rule, as metrics read them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import old_judged_run

from sage_desk.core.events import TerminationReason
from sage_desk.core.metrics.load import results_for_runs
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import Store
from sage_desk.core.store.reviews import NewOverride
from sage_desk.core.store.summaries import vote

CID = "x-openai/a-c0"
JUDGE_A, JUDGE_B = "judge:openai/j", "judge:openai/k"


def _marks(store: Store, run_id: str = "x") -> dict[str, dict[str, tuple[bool | None, float | None]]]:
    return {r.id: {k: (m.passed, m.score) for k, m in r.marks.items()} for r in results_for_runs(store, [run_id])}


def _marks_from_every_verdict(store: Store, run_id: str = "x") -> dict[str, dict[str, tuple[bool | None, float | None]]]:
    """The reading the report made before 0009: every verdict with its label, then the vote."""
    grouped: dict[str, dict[str, list[tuple[bool | None, float | None, bool]]]] = defaultdict(lambda: defaultdict(list))
    for m in store.effective_marks(run_id):
        grouped[m.conversation_id][m.criterion].append((m.passed, m.score, m.unscored))
    return {cid: {k: vote(vs) for k, vs in by.items()} for cid, by in grouped.items()}


def _judged(store: Store, make_run: Callable[..., str]) -> None:
    make_run(store, n=3, run_id="x")
    for cid in (CID, "x-openai/a-c1"):  # c2 stays pending: metrics leave it out
        store.finish(cid, TerminationReason.CLOSED, events=[])
    store.save_verdicts(
        CID, "rules", [Verdict(criterion="outcome", passed=False), Verdict(criterion="catastrophic.free_goods", passed=True)]
    )
    store.save_verdicts(
        CID,
        JUDGE_A,
        [Verdict(criterion="judge.empathy", passed=False, score=0.2), Verdict(criterion="judge.policy", unscored=True)],
    )
    store.save_verdicts_many(
        JUDGE_B,
        {
            CID: [
                Verdict(criterion="judge.empathy", passed=True, score=0.6),
                Verdict(criterion="judge.policy", passed=True, score=0.8),
            ]
        },
    )


def test_marks_are_the_vote_of_the_sources(any_store: Store, make_run: Callable[..., str]) -> None:
    _judged(any_store, make_run)
    marks = _marks(any_store)
    assert set(marks) == {CID, "x-openai/a-c1"}  # the pending conversation is left out
    assert marks["x-openai/a-c1"] == {}  # finished, not judged yet: no marks
    assert marks[CID]["outcome"] == (False, None)
    assert marks[CID]["catastrophic.free_goods"] == (True, None)
    passed, score = marks[CID]["judge.empathy"]  # 1 pass, 1 fail: the tie goes the first source's way
    assert passed is False and score == pytest.approx(0.4)
    assert marks[CID]["judge.policy"] == (True, 0.8)  # the unscored verdict does not vote
    assert {cid: m for cid, m in marks.items() if m} == _marks_from_every_verdict(any_store)


def test_marks_follow_the_label_rule(any_store: Store, make_run: Callable[..., str]) -> None:
    _judged(any_store, make_run)
    any_store.add_overrides(
        [
            NewOverride(CID, "outcome", "rules", human_passed=True, author="alice"),  # alice and bob disagree:
            NewOverride(CID, "outcome", "rules", human_passed=False, author="bob"),  # a dispute keeps the machine's value
            NewOverride(CID, "judge.empathy", JUDGE_A, human_passed=True, human_score=0.9, author="alice"),
            NewOverride(CID, "catastrophic.free_goods", "rules", human_passed=True, author="alice"),
            NewOverride(CID, "catastrophic.free_goods", "rules", human_passed=True, author="bob"),
        ]
    )
    any_store.add_overrides(
        [
            NewOverride(
                CID,
                "catastrophic.free_goods",
                "rules",
                human_passed=False,
                author="carol",
                kind="adjudication",
                reason="free goods",
            )
        ]
    )  # the last word, over an agreement
    any_store.add_override(CID, "judge.policy", JUDGE_A, human_passed=False, author="alice")  # a label scores it
    marks = _marks(any_store)[CID]
    assert marks["outcome"] == (False, None)
    assert marks["catastrophic.free_goods"] == (False, None)
    passed, score = marks["judge.empathy"]  # alice's 0.9 pass beside judge B's 0.6 pass
    assert passed is True and score == pytest.approx(0.75)
    assert marks["judge.policy"] == (False, 0.8)  # alice's fail now votes, first: the tie is a fail; B's score alone
    assert {cid: m for cid, m in _marks(any_store).items() if m} == _marks_from_every_verdict(any_store)


def test_a_rejudge_rewrites_the_marks(any_store: Store, make_run: Callable[..., str]) -> None:
    _judged(any_store, make_run)
    any_store.save_verdicts(CID, "rules", [Verdict(criterion="outcome", passed=True)])
    marks = _marks(any_store)[CID]
    assert marks["outcome"] == (True, None) and "catastrophic.free_goods" not in marks


def test_the_migration_fills_the_marks_of_runs_recorded_before(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    old_judged_run(  # a run judged by two judges and labelled, before 0007 and 0009
        url,
        [CID],
        [
            ("rules", "outcome", False, None),
            (JUDGE_A, "judge.empathy", False, 0.25),
            (JUDGE_B, "judge.empathy", True, 0.75),
        ],
    )
    with Store(url) as store:
        assert _marks(store) == {CID: {"outcome": (True, None), "judge.empathy": (False, 0.5)}}
