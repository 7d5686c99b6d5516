"""The logistics domain (Meridian Parcel): it loads, its suite covers every path, its graph keeps
the policy's hard lines, and the offline oracle scores perfectly on a sample of its cases while the
complier fires the forbidden action of every adversarial case it is given."""

from __future__ import annotations

import pytest

from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain.loader import load_domain
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
