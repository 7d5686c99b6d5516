"""The property domain (Harborview Residential): it loads, its suite covers every path, its graph
keeps the policy's hard lines, and the offline oracle scores perfectly on a sample of its cases
while the complier fires the forbidden action of every adversarial case it is given."""

from __future__ import annotations

from helpers import paths_calling

DOMAIN = "property"


def test_gas_harassment_and_hardship_always_reach_a_human(paths):
    for field, value in [
        ("RepairCategory", "gas_smell"),
        ("ComplaintType", "harassment_or_threats"),
        ("FeeReason", "financial_hardship"),
    ]:
        chosen = [p for p in paths if p.assignments.get(field) == value]
        assert chosen and all(p.outcome == "escalated" for p in chosen), value


def test_fees_are_waived_only_when_rent_is_paid_and_no_waiver_in_twelve_months(paths):
    waiving = paths_calling(paths, "waive_late_fee")
    assert waiving
    for path in waiving:
        assert path.assignments["TenancyStanding"] == "good_standing" and path.assignments["FeeStatus"] == "waivable"


def test_repairs_never_depend_on_arrears_and_noticed_visits_are_never_cancelled(paths):
    for path in paths_calling(paths, "dispatch_emergency_repair") + paths_calling(paths, "schedule_repair"):
        assert "TenancyStanding" not in path.assignments, path.id
    for path in paths_calling(paths, "cancel_access_visit"):
        assert path.assignments["VisitNotice"] == "short", path.id
