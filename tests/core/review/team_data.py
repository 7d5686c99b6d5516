"""A run of 40 judged conversations for the team-review tests, and two reviewers' labels on it."""

from __future__ import annotations

from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import Store
from sage_desk.core.store.reviews import NewOverride

JUDGE = "baseline:heuristic"
CRITERION = "judge.empathy"


def make_run(store: Store, n: int = 40, run_id: str = "r-team") -> list[str]:
    """A finished run of `n` conversations, each with a judge verdict (passing the even ones) and rule verdicts."""
    convs = [{"id": f"{run_id}-c{i:02d}", "case_id": f"case-{i:02d}", "agent": "baseline:oracle"} for i in range(n)]
    store.create_run("northline", {}, convs, run_id=run_id)
    for i, c in enumerate(convs):
        store.save_verdicts(
            c["id"],
            JUDGE,
            [
                Verdict(criterion=CRITERION, passed=i % 2 == 0, score=0.9 if i % 2 == 0 else 0.1),
                Verdict(criterion="judge.resolution_quality", passed=i % 3 == 0, score=0.55 + (i % 5) * 0.02),
            ],
        )
        store.save_verdicts(c["id"], "rules", [Verdict(criterion="outcome", passed=i % 4 == 0)])
    with store._engine.begin() as conn:
        from sqlalchemy import update

        from sage_desk.core.store.schema import ConversationRow, table_of

        table = table_of(ConversationRow)
        conn.execute(update(table).where(table.c.run_id == run_id).values(status="finished"))
    return [c["id"] for c in convs]


def kappa_labels(ids: list[str]) -> list[NewOverride]:
    """The issue's example: 40 items, 35 agree; alice passes 20 and fails 20, bob passes 15 and fails 25."""
    assert len(ids) == 40
    out = []
    for i, cid in enumerate(ids):
        alice = i < 20
        bob = i < 15
        out.append(NewOverride(cid, CRITERION, JUDGE, human_passed=alice, author="alice"))
        out.append(NewOverride(cid, CRITERION, JUDGE, human_passed=bob, author="bob"))
    return out
