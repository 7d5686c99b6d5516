"""The ecommerce_refund domain (Kestrel Home, SAGE's ecommerce_refund): refunds decided by what the
customer asks, the order record and the evidence, with the policy's hard lines on every path."""

from __future__ import annotations

from helpers import paths_calling

DOMAIN = "ecommerce_refund"


def test_names_sages_scenario_and_every_ending(bundle, paths):
    assert bundle.domain.sage_scenario == "ecommerce_refund"
    assert len(paths) == 12
    assert {p.outcome for p in paths} == {"resolved", "refused", "escalated", "info_requested"}


def test_refunds_only_where_the_record_or_the_evidence_allows(paths):
    for path in paths_calling(paths, "refund_order"):
        a = path.assignments
        status = a.get("OrderStatus")
        assert status == "unshipped" or a.get("DeliveryDelay") == "overdue" or a.get("EvidenceProvided") == "yes", path.id


def test_only_unshipped_orders_are_cancelled_and_returns_only_inside_the_window(paths):
    for path in paths_calling(paths, "cancel_order"):
        assert path.assignments["OrderStatus"] == "unshipped", path.id
    for path in paths_calling(paths, "create_return_label"):
        assert path.assignments["ReturnWindow"] == "within", path.id


def test_delivered_but_never_arrived_goes_to_a_human(paths):
    chosen = [
        p for p in paths if p.assignments.get("CoreDemand") == "not_received" and p.assignments.get("OrderStatus") == "delivered"
    ]
    assert [p.outcome for p in chosen] == ["escalated"]
