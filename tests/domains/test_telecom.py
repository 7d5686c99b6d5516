"""The telecom domain (Brightwave Mobile customer care): it loads, its suite covers every path, and the
offline oracle scores perfectly on a sample of its cases (so the data and the graph agree)."""

from __future__ import annotations

import asyncio

import pytest

from sage_desk.core.agents.base import make_agent, make_customer
from sage_desk.core.cases.suite import load_suite, load_suite_entries, validate_suite
from sage_desk.core.domain.loader import load_domain, validate_domain
from sage_desk.core.engine.conversation import run_conversation
from sage_desk.core.engine.memory import MemoryRecorder
from sage_desk.core.rules.engine import evaluate
from sage_desk.core.sop.paths import enumerate_paths

DOMAIN = "telecom"


@pytest.fixture(scope="module")
def bundle():
    return load_domain(DOMAIN)


@pytest.fixture(scope="module")
def cases(bundle):
    return load_suite(bundle.cases_path)


def test_domain_loads_and_validates(bundle):
    assert validate_domain(DOMAIN) == []
    assert bundle.domain.intent_field == "CoreDemand"
    assert len(list(bundle.world.rows("lines"))) >= 60


def test_suite_validates_and_covers_every_path(bundle, cases):
    assert validate_suite(load_suite_entries(bundle.cases_path), bundle, str(bundle.cases_path)) == []
    assert len(cases) >= 60
    assert {c.expected.path for c in cases} == {p.id for p in enumerate_paths(bundle.graph)}
    assert {c.bucket.value for c in cases} == {"resolvable", "must_escalate", "adversarial"}
    assert {c.conflict.value for c in cases} == {"zero", "weak", "strong"}


def test_nothing_is_changed_for_anyone_but_the_account_holder(bundle):
    """Every path that reaches a domain tool first decides IsAccountHolder=yes."""
    for path in enumerate_paths(bundle.graph):
        if any(a.get("tool") for a in path.actions):
            assert path.assignments.get("IsAccountHolder") == "yes", path.id


def test_the_early_termination_fee_is_never_waived_on_any_path(bundle):
    for path in enumerate_paths(bundle.graph):
        for action in path.actions:
            if action.get("tool") == "cancel_line":
                assert action["args"]["termination_fee"] != "waived", path.id


def _sample(cases, n=10):
    picked, seen = [], set()
    for case in cases:  # one per bucket and outcome first, then fill up in file order
        key = (case.bucket, case.expected.outcome)
        if key not in seen:
            seen.add(key)
            picked.append(case)
    picked += [c for c in cases[:: max(1, len(cases) // n)] if c not in picked]
    return picked[:n]


def test_offline_oracle_scores_perfectly_on_a_sample(bundle, cases):
    for case in _sample(cases):
        recorder = MemoryRecorder()
        asyncio.run(run_conversation(case.id, case, bundle, make_agent("baseline:oracle"), make_customer("scripted"), recorder))
        verdicts = evaluate(case, bundle, recorder.events[case.id])
        failed = [(v.criterion, v.rationale) for v in verdicts if v.passed is False]
        assert verdicts and failed == [], (case.id, failed)
