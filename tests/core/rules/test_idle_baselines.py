"""Doing nothing never ranks well (issue 32): the idle baselines on every shipped domain, offline.

Four ways to do nothing useful (`baseline:idle?mode=never|close|polite|empathy`) play every case
beside the oracle and the realistic `baseline:imperfect`, with the heuristic judge, through the real
runner and store. In the report's default order every idle agent comes below both, resolves at most
5 % of the resolvable cases (nor "handles" more), and the empathy-only agent (it reads the records, pads its reply with
sympathy and closes) resolves no case whose path asks it to tell the customer what it read.
"""

from __future__ import annotations

import asyncio

import pytest

from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain import load_domain
from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.export.leaderboard import build_report
from sage_desk.core.metrics.load import results_for_runs
from sage_desk.core.scoring.hooks import VerdictHooks
from sage_desk.core.store import Store

DOMAINS = ["northline", "banking", "telecom", "airline", "logistics", "property", "online_education", "ecommerce_refund"]
ORACLE, IMPERFECT = "baseline:oracle", "baseline:imperfect"
IDLE = [f"baseline:idle?mode={m}" for m in ("never", "close", "polite", "empathy")]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('idle') / 'runs.db'}")
    yield store
    store.close()


def _telling_cases(domain: str) -> set[str]:
    bundle = load_domain(domain)
    return {
        c.id
        for c in load_suite(bundle.cases_path)
        if any((n := bundle.graph.node(a.node)) is not None and n.tell for a in c.expected.actions)
    }


@pytest.mark.parametrize("domain", DOMAINS)
def test_idle_agents_rank_below_the_oracle_and_a_realistic_agent(store, domain):
    runner = Runner(store, post_factory=VerdictHooks(("baseline:heuristic",)))
    run_id = runner.create(
        RunSpec(domain=domain, agents=[ORACLE, IMPERFECT, *IDLE], judges=["baseline:heuristic"], repeats=1, concurrency=32)
    )
    progress = asyncio.run(runner.execute(run_id))
    assert progress.errored == 0
    results = results_for_runs(store, [run_id])
    models = build_report(results).models
    order = [row["agent"] for row in models]
    rows = {row["agent"]: row for row in models}
    for idle in IDLE:
        assert order.index(idle) > order.index(ORACLE) and order.index(idle) > order.index(IMPERFECT), (domain, order)
        assert rows[idle]["resolution_rate"] <= 0.05, (domain, idle, rows[idle]["resolution_rate"])
        # no figure rewards doing nothing: closing at once (a refusal nobody was told) or with sympathy alone
        # (the judge fails the free-text step) is no handled request either
        assert (rows[idle]["handled_rate"] or 0) <= 0.05, (domain, idle, rows[idle]["handled_rate"])
    telling = _telling_cases(domain)
    empathy = [r for r in results if r.agent == IDLE[-1] and r.case_id in telling]
    assert not [r.case_id for r in empathy if r.resolved()], f"the empathy-only agent resolved informational cases on {domain}"
