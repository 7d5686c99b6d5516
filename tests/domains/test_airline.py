"""The airline domain (Aurora Air refunds and changes) follows SAGE's airline_refund: its 19 paths
over SAGE's fields and system variables, its nine final actions, composite actions as successive
steps, and the policy's hard lines on every path."""

from __future__ import annotations

from helpers import paths_calling

DOMAIN = "airline"


def test_sages_airline_refund_structure(bundle, paths):
    assert bundle.domain.sage_scenario == "airline_refund"
    assert len(paths) == 19
    fields = bundle.graph.fields
    assert {f for f, s in fields.items() if s.source == "user"} == {
        "CoreDemand",
        "ChangeReason",
        "UserEmotion",
        "DocumentValidity",
        "IsInfoComplete",
    }
    assert {f for f, s in fields.items() if s.source == "system"} == {"memberLevel", "hasInsurance"}


def _final_action(path):
    """SAGE's name for the final action of one of our paths."""
    tools = [a.get("tool") for a in path.actions if a.get("tool") and not a["tool"].startswith("lookup_")]
    change = [t for t in tools if t in ("refund_booking", "reschedule_booking")]
    if path.outcome == "escalated":
        return "TransHuman"
    if path.outcome == "info_requested":
        return "Supplementary"
    if path.outcome == "refused":
        return "Reject"
    if change:
        extra = {"charge_handling_fee": "+HandlingFee", "issue_compensation": "+Compensation"}
        return "RescheduleOrRefund" + "".join(extra[t] for t in tools if t in extra)
    if tools == ["issue_compensation"]:
        return "Compensation"
    return "Enquiry" if path.assignments.get("CoreDemand") == "enquiry" else "Comfort"


def test_every_final_action_of_sage_is_reached(paths):
    assert {_final_action(p) for p in paths} == {
        "Supplementary",
        "Enquiry",
        "RescheduleOrRefund",
        "RescheduleOrRefund+HandlingFee",
        "RescheduleOrRefund+Compensation",
        "Reject",
        "Comfort",
        "Compensation",
        "TransHuman",
    }


def test_handling_fees_only_for_uninsured_regular_personal_changes(paths):
    for path in paths_calling(paths, "charge_handling_fee"):
        a = path.assignments
        assert (a["ChangeReason"], a["hasInsurance"], a["memberLevel"]) == ("personal", "no", "regular"), path.id


def test_no_refund_or_change_on_an_invalid_document(paths):
    for path in paths_calling(paths, "refund_booking") + paths_calling(paths, "reschedule_booking"):
        assert path.assignments.get("DocumentValidity") != "invalid", path.id


def test_system_variables_are_read_before_any_decision(paths):
    for path in paths:
        if path.outcome != "info_requested":
            assert [a.get("tool") for a in path.actions[:2]] == ["lookup_booking", "lookup_member"], path.id
