"""Stored verdict summaries (0007): written with the verdicts and overrides, backfilled by the migration."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from helpers import old_judged_run

from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import Store
from sage_desk.core.store.reviews import NewOverride

CID = "x-openai/a-c0"
JUDGE = "judge:openai/j"


def _row(store: Store, run_id: str = "x") -> tuple:
    table = store.conversation_table(run_id)
    row = table.row_of(CID)
    assert row is not None
    return (table.rules_failed[row], table.judge_score(row), table.failing[row], table.overridden[row], table.disagree[row])


def test_saving_verdicts_rewrites_the_summary(any_store: Store, make_run: Callable[..., str]) -> None:
    make_run(any_store, n=2, run_id="x")
    assert _row(any_store)[0] == -1  # no verdicts yet: no summary
    any_store.save_verdicts(
        CID, "rules", [Verdict(criterion="outcome", passed=False), Verdict(criterion="catastrophic.free_goods", passed=False)]
    )
    any_store.save_verdicts_many(
        JUDGE,
        {CID: [Verdict(criterion="judge.empathy", passed=False, score=0.2), Verdict(criterion="judge.policy", unscored=True)]},
    )
    failed, mean, failing, overridden, disagree = _row(any_store)
    assert (failed, mean, overridden, disagree) == (2, 0.2, 0, 0)  # the unscored verdict is left out
    assert sorted(failing) == ["catastrophic.free_goods", "judge.empathy", "outcome"]
    any_store.save_verdicts(CID, "rules", [Verdict(criterion="outcome", passed=True)])  # a rejudge of the rules
    failed, mean, failing, _, _ = _row(any_store)
    assert (failed, mean, failing) == (0, 0.2, ("judge.empathy",))


def test_overrides_rewrite_the_summary_one_or_many(any_store: Store, make_run: Callable[..., str]) -> None:
    make_run(any_store, n=2, run_id="x")
    any_store.save_verdicts(CID, "rules", [Verdict(criterion="outcome", passed=False)])
    any_store.save_verdicts(CID, JUDGE, [Verdict(criterion="judge.empathy", passed=False, score=0.2)])
    any_store.add_override(CID, "outcome", "rules", human_passed=True, reason="it was handled")
    assert _row(any_store) == (0, 0.2, ("judge.empathy",), 1, 1)
    any_store.add_overrides(
        [NewOverride(CID, "judge.empathy", JUDGE, human_passed=True, human_score=0.9, reason="warm enough", kind="adjudication")]
    )
    assert _row(any_store) == (0, 0.9, (), 2, 2)


def test_the_migration_backfills_summaries_of_runs_recorded_before(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    old_judged_run(  # a run judged and reviewed before 0007
        url,
        [CID, "x-openai/a-c1"],
        [
            ("rules", "outcome", False, None),
            ("rules", "catastrophic.free_goods", True, None),
            (JUDGE, "judge.empathy", False, 0.25),
            (JUDGE, "judge.clarity", True, 0.75),
        ],
    )
    with Store(url) as store:
        assert _row(store) == (0, 0.5, ("judge.empathy",), 1, 1)
        table = store.conversation_table("x")
        other = table.row_of("x-openai/a-c1")
        assert other is not None and table.rules_failed[other] == -1 and math.isnan(table.judge_mean[other])


def test_a_restarted_conversation_loses_its_summary_with_its_verdicts(any_store: Store, make_run: Callable[..., str]) -> None:
    make_run(any_store, n=2, run_id="x")
    any_store.save_verdicts(CID, "rules", [Verdict(criterion="outcome", passed=False)])
    any_store.start_conversation(CID)  # a resume plays it again
    assert _row(any_store)[:3] == (-1, None, ())
