"""The logistics domain (Meridian Parcel): it loads, its suite covers every path, its graph keeps
the policy's hard lines, and the offline oracle scores perfectly on a sample of its cases while the
complier fires the forbidden action of every adversarial case it is given."""

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

DOMAIN = "logistics"


@pytest.fixture(scope="module")
def bundle():
    return load_domain(DOMAIN)


@pytest.fixture(scope="module")
def cases(bundle):
    return load_suite(bundle.cases_path)


@pytest.fixture(scope="module")
def paths(bundle):
    return enumerate_paths(bundle.graph)


def test_domain_loads_and_validates(bundle):
    assert validate_domain(DOMAIN) == []
    assert bundle.domain.intent_field == "CoreDemand"
    assert len(list(bundle.world.rows("shipments"))) >= 60
    kinds = {name: spec.kind.value for name, spec in bundle.domain.tools.items()}
    assert kinds["pay_lost_parcel_claim"] == kinds["refund_shipping_charge"] == "record"


def test_suite_validates_and_covers_every_path(bundle, cases, paths):
    assert validate_suite(load_suite_entries(bundle.cases_path), bundle, str(bundle.cases_path)) == []
    assert len(cases) >= 60
    assert {c.expected.path for c in cases} == {p.id for p in paths}
    assert {c.bucket.value for c in cases} == {"resolvable", "must_escalate", "adversarial"}
    assert {c.conflict.value for c in cases} == {"zero", "weak", "strong"}


def _paths_calling(paths, tool):
    return [p for p in paths if any(a.get("tool") == tool for a in p.actions)]


def test_address_changes_only_before_out_for_delivery_and_never_to_a_stranger_without_consent(paths):
    changing = _paths_calling(paths, "change_delivery_address")
    assert changing
    for path in changing:
        assert set(path.assignments["ShipmentState"]) <= {"pre_dispatch", "in_transit"}, path.id
        if path.assignments["NewRecipient"] == "different_recipient":
            assert path.assignments["ShipperConsent"] == "consented", path.id


def test_claims_are_paid_only_after_the_waiting_period_with_proof_and_on_the_right_basis(paths):
    paying = _paths_calling(paths, "pay_lost_parcel_claim")
    assert len(paying) == 2
    for path in paying:
        assert path.assignments["ScanGap"] == "overdue" and path.assignments["IsInfoComplete"] == "complete"
        basis = next(a["args"]["basis"] for a in path.actions if a.get("tool") == "pay_lost_parcel_claim")
        assert basis == {"uninsured": "standard_liability", "declared_value": "declared_value"}[path.assignments["ClaimCover"]]
    high = [p for p in paths if p.assignments.get("ClaimCover") == "high_value"]
    assert [p.outcome for p in high] == ["escalated"]


def _sample(cases, n=10):
    picked, seen = [], set()
    for case in cases:  # one per bucket and outcome first, then fill up in file order
        key = (case.bucket, case.expected.outcome)
        if key not in seen:
            seen.add(key)
            picked.append(case)
    picked += [c for c in cases[:: max(1, len(cases) // n)] if c not in picked]
    return picked[:n]


def _verdicts(bundle, case, agent):
    recorder = MemoryRecorder()
    asyncio.run(run_conversation(case.id, case, bundle, make_agent(agent), make_customer("scripted"), recorder))
    return evaluate(case, bundle, recorder.events[case.id])


def test_offline_oracle_scores_perfectly_on_a_sample(bundle, cases):
    for case in _sample(cases):
        verdicts = _verdicts(bundle, case, "baseline:oracle")
        failed = [(v.criterion, v.rationale) for v in verdicts if v.passed is False]
        assert verdicts and failed == [], (case.id, failed)


def test_complier_fires_every_adversarial_trap(bundle, cases):
    for case in [c for c in cases if c.bucket.value == "adversarial"]:
        verdicts = _verdicts(bundle, case, "baseline:complier")
        assert any(v.criterion.startswith("catastrophic.") and v.passed is False for v in verdicts), case.id
