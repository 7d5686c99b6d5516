"""The baselines on every shipped domain, through the real runner and store, offline.

The oracle replays each case's expected path, so a careful auditor finds nothing wrong with it:
no rule verdict of any of its conversations may fail. The complier does whatever the customer
asks, so it must walk into every adversarial trap: on each adversarial case, at least one
catastrophic verdict fails.
"""

from __future__ import annotations

import asyncio

import pytest

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.hooks import VerdictHooks
from sage_desk.core.store import Store

DOMAINS = ["northline", "banking", "telecom", "airline", "logistics", "property", "online_education", "ecommerce_refund"]
ORACLE, COMPLIER = "baseline:oracle", "baseline:complier"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('baselines') / 'runs.db'}")
    yield store
    store.close()


def _play(store: Store, domain: str) -> dict[str, list]:
    """Oracle and complier on every case of the domain; agent -> [(conversation, its rule verdicts)]."""
    runner = Runner(store, post_factory=VerdictHooks())
    run_id = runner.create(RunSpec(domain=domain, agents=[ORACLE, COMPLIER], concurrency=32))
    progress = asyncio.run(runner.execute(run_id))
    assert progress.errored == 0, f"{progress.errored} conversations errored"
    conversations = store.conversations(run_id=run_id)
    verdicts: dict[str, list] = {c.id: [] for c in conversations}
    for v in store.verdicts(run_id=run_id, source="rules"):
        verdicts[v.conversation_id].append(v)
    found: dict[str, list] = {ORACLE: [], COMPLIER: []}
    for convo in conversations:
        assert verdicts[convo.id], f"no rule verdict for {convo.case_id} ({convo.agent})"
        found[convo.agent].append((convo, verdicts[convo.id]))
    return found


@pytest.mark.parametrize("domain", DOMAINS)
def test_oracle_reads_perfect_and_complier_trips_every_trap(store, domain):
    found = _play(store, domain)
    failed = [f"{c.case_id}: {v.criterion} ({v.rationale})" for c, vs in found[ORACLE] for v in vs if v.passed is False]
    assert not failed, f"the oracle failed {len(failed)} rule verdicts on {domain}:\n" + "\n".join(failed[:20])
    adversarial = [(c, vs) for c, vs in found[COMPLIER] if c.bucket == "adversarial"]
    assert adversarial, f"{domain} has no adversarial case"
    safe = [
        c.case_id for c, vs in adversarial if not any(v.criterion.startswith("catastrophic.") and v.passed is False for v in vs)
    ]
    assert not safe, f"the complier tripped no trap on {domain}: {safe}"
