"""Two reviewers labelling one queue at once from two processes on PostgreSQL keep every label.

Skipped unless `SAGE_DESK_TEST_PG_URL` names a server (CI starts one with `.ci/postgres.sh`).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from team_data import make_run

from sage_desk.core.store import Store
from sage_desk.core.store.queues import create_queue, progress

PG_URL = os.environ.get("SAGE_DESK_TEST_PG_URL")
pytestmark = pytest.mark.skipif(not PG_URL, reason="set SAGE_DESK_TEST_PG_URL to test PostgreSQL")

# One reviewer working through the queue the way the app does: next item, label it, and again.
WORKER = """
import sys
from sage_desk.core.store import Store
from sage_desk.core.store.queues import next_item, progress
url, queue, reviewer = sys.argv[1:4]
written, seen_other = 0, 0
with Store(url) as store:
    while (item := next_item(store, queue, reviewer)) is not None:
        store.add_override(item.conversation_id, "judge.empathy", "baseline:heuristic",
                           human_passed=written % 2 == 0, author=reviewer, reason=f"{reviewer} {written}")
        written += 1
        state = progress(store, queue)
        seen_other = max(seen_other, sum(1 for who in state.reviews.values() if set(who) - {reviewer}))
print(written, seen_other)
"""


@pytest.fixture
def pg_store():
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_URL)  # type: ignore[arg-type]
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    engine.dispose()
    with Store(PG_URL) as store:
        yield store


def _work(url: str, queue: str, reviewers: list[str]) -> list[tuple[int, int]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, url, queue, r], stdout=subprocess.PIPE, text=True, env=env)
        for r in reviewers
    ]
    out = []
    for p in procs:
        stdout, _ = p.communicate(timeout=300)
        assert p.returncode == 0
        written, seen = stdout.split()
        out.append((int(written), int(seen)))
    return out


def test_two_processes_labelling_one_queue_keep_every_label(pg_store):
    ids = make_run(pg_store)
    create_queue(pg_store, "both", ids, reviewers=["alice", "bob"], reviews_per_item=2)
    results = _work(PG_URL, "both", ["alice", "bob"])  # type: ignore[arg-type]
    assert [w for w, _seen in results] == [40, 40]
    overrides = pg_store.overrides(run_id="r-team")
    assert len(overrides) == 80
    assert {(o.conversation_id, o.author) for o in overrides} == {(c, r) for c in ids for r in ("alice", "bob")}
    assert progress(pg_store, "both").summary == "40 of 40 done"
    assert any(seen for _w, seen in results)  # each refresh reads the other process's labels


def test_one_review_per_item_shares_the_queue_out(pg_store):
    ids = make_run(pg_store)
    create_queue(pg_store, "split", ids, reviewers=["alice", "bob"], reviews_per_item=1)
    results = _work(PG_URL, "split", ["alice", "bob"])  # type: ignore[arg-type]
    overrides = pg_store.overrides(run_id="r-team")
    assert len(overrides) == sum(w for w, _seen in results)  # nothing lost
    assert {o.conversation_id for o in overrides} == set(ids)
    assert progress(pg_store, "split").done == 40


def test_bob_passing_what_alice_failed_is_a_dispute_not_a_fail(pg_store):
    """The issue's report: alice failed 40, bob passed 20 of them; calibration must not say "humans failed all"."""
    from sage_desk.core.calibration import calibration_report
    from sage_desk.core.store.reviews import NewOverride

    ids = make_run(pg_store)
    pg_store.add_overrides(
        [NewOverride(cid, "judge.empathy", "baseline:heuristic", human_passed=False, author="alice") for cid in ids]
    )
    pg_store.add_overrides(
        [NewOverride(cid, "judge.empathy", "baseline:heuristic", human_passed=True, author="bob") for cid in ids[:20]]
    )
    report = calibration_report(pg_store, "r-team")
    assert (report.labels, report.disputed) == (20, 20)
    assert {i.conversation_id for i in report.items} == set(ids[20:])
