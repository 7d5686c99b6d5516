"""Declared tools: OpenAI schemas, argument checks, guards, and calls that never raise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sage_desk.core.domain import DomainBundle, ToolResult, call_tool, load_domain
from sage_desk.core.domain.tools import helpdesk_schemas, tool_schema


@pytest.fixture
def bundle(mini: Path) -> DomainBundle:
    return load_domain(mini)


@pytest.fixture(scope="module")
def northline() -> DomainBundle:
    return load_domain("northline")


def _fn(schemas: list[dict], name: str) -> dict:
    (schema,) = [s for s in schemas if s["function"]["name"] == name]
    assert schema["type"] == "function"
    return schema["function"]


def test_declared_tool_schema_shape(bundle: DomainBundle) -> None:
    assert tool_schema("refund", bundle.domain.tools["refund"]) == {
        "type": "function",
        "function": {
            "name": "refund",
            "description": "Refund an order. Money-moving.",
            "parameters": {
                "type": "object",
                "additionalProperties": False,
                "required": ["order_id", "reason"],
                "properties": {
                    "order_id": {"type": "string", "description": "The order_id of the orders row"},
                    "reason": {"type": "string", "enum": ["damaged", "late"], "description": "Why"},
                    "amount": {"type": "number"},
                    "items": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    }


def test_every_schema_is_json_and_named_once(northline: DomainBundle) -> None:
    schemas = northline.tool_schemas()
    names = [s["function"]["name"] for s in schemas]
    assert names == northline.tool_names()
    assert len(set(names)) == len(names)
    json.dumps(schemas)
    for schema in schemas:
        params = schema["function"]["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])


def test_northline_required_params_and_enums(northline: DomainBundle) -> None:
    schemas = northline.tool_schemas()
    reship = _fn(schemas, "reship_order")["parameters"]
    assert reship["required"] == ["order_id", "reason"]
    assert reship["properties"]["reason"]["enum"] == ["lost_in_transit", "not_received", "damaged", "goodwill"]
    assert _fn(schemas, "edit_address")["parameters"]["required"] == ["order_id", "new_address"]
    assert _fn(schemas, "lookup_order")["parameters"]["required"] == ["order_id"]


def test_helpdesk_tools_carry_the_domains_intents(northline: DomainBundle) -> None:
    schemas = northline.tool_schemas()
    tag = _fn(schemas, "tag_ticket")["parameters"]
    assert tag["required"] == ["intent"]
    assert tag["properties"]["intent"]["enum"] == northline.graph.fields["CoreDemand"].values
    slots = tag["properties"]["slots"]["properties"]
    assert set(slots) == {"Escalation", "EvidenceProvided", "NewAddressType", "FaultType"}  # user slots, no system fields
    assert slots["EvidenceProvided"]["enum"] == ["photo", "no_photo"]
    close = _fn(schemas, "close_ticket")["parameters"]
    assert close["required"] == ["outcome", "summary"]
    assert close["properties"]["outcome"]["enum"] == ["resolved", "refused", "info_requested"]
    assert _fn(schemas, "handover_to_human")["parameters"]["required"] == ["reason"]


def test_tag_ticket_without_other_slots(bundle: DomainBundle) -> None:
    (tag, _, _) = helpdesk_schemas(bundle.domain, {"Demand": ["refund", "status"]})
    assert tag["function"]["parameters"]["properties"] == {
        "intent": {"type": "string", "enum": ["refund", "status"], "description": "The customer's Demand"}
    }


def test_read_returns_only_declared_columns(bundle: DomainBundle) -> None:
    result = call_tool(bundle.domain, bundle.world.fork(), "lookup_order", {"order_id": "A-1"})
    assert result == ToolResult(result={"order_id": "A-1", "status": "shipped", "address": "1 Main St"}, kind="read")
    assert result.ok
    assert json.loads(result.for_model()) == {"order_id": "A-1", "status": "shipped", "address": "1 Main St"}


def test_write_changes_only_the_conversation_world(bundle: DomainBundle) -> None:
    view = bundle.world.fork()
    result = call_tool(bundle.domain, view, "edit_address", {"order_id": "A-1", "new_address": "9 New Rd"})
    assert (result.ok, result.kind, result.result) == (True, "write", {"updated": True, "order_id": "A-1", "address": "9 New Rd"})
    assert view.get("orders", "A-1")["address"] == "9 New Rd"
    assert bundle.world.get("orders", "A-1")["address"] == "1 Main St"
    assert view.records == []


def test_guard_refuses_edit_on_a_cancelled_order(bundle: DomainBundle) -> None:
    view = bundle.world.fork()
    result = call_tool(bundle.domain, view, "edit_address", {"order_id": "A-2", "new_address": "9 New Rd"})
    assert result.error == "edit_address: the order is cancelled, so there is nothing to deliver"
    assert result.guard_failed and not result.ok
    assert json.loads(result.for_model()) == {"error": result.error}
    assert view.get("orders", "A-2")["address"] == "2 High St"
    assert view.overlay == {}


def test_northline_edit_address_on_a_cancelled_order(northline: DomainBundle) -> None:
    cancelled = next(r for r in northline.world.rows("orders") if r["status"] == "cancelled")
    view = northline.world.fork()
    result = call_tool(northline.domain, view, "edit_address", {"order_id": cancelled["order_id"], "new_address": "x"})
    assert result.error == "edit_address: the order is cancelled or returned, so there is nothing to deliver"
    assert result.guard_failed
    cancel = call_tool(northline.domain, view, "cancel_order", {"order_id": cancelled["order_id"]})
    assert cancel.error == "cancel_order: the order is already cancelled or returned"


def test_record_is_logged_and_applied_privately(bundle: DomainBundle) -> None:
    view = bundle.world.fork()
    result = call_tool(bundle.domain, view, "refund", {"order_id": "A-1", "reason": "late", "amount": 5})
    assert (result.kind, result.result) == ("record", {"recorded": True, "tool": "refund", "order_id": "A-1"})
    assert view.records == [{"tool": "refund", "args": {"order_id": "A-1", "reason": "late", "amount": 5}}]


@pytest.mark.parametrize(
    ("name", "args", "error"),
    [
        ("refund", {"order_id": "A-1"}, "refund: missing required argument 'reason'"),
        ("refund", {"reason": "late"}, "refund: missing required argument 'order_id'"),
        ("refund", {"order_id": "  ", "reason": "late"}, "refund: missing required argument 'order_id'"),
        ("refund", {"order_id": "A-1", "reason": "bored"}, "refund: argument 'reason' must be one of ['damaged', 'late']"),
        ("refund", {"order_id": "A-1", "reason": "late", "amount": "5"}, "refund: argument 'amount' must be of type number"),
        ("refund", {"order_id": "A-1", "reason": "late", "amount": True}, "refund: argument 'amount' must be of type number"),
        ("refund", {"order_id": "A-1", "reason": "late", "items": "mug"}, "refund: argument 'items' must be of type array"),
        (
            "refund",
            {"order_id": "A-1", "reason": "late", "coupon": "X"},
            "refund: unknown argument 'coupon' (expected: amount, items, order_id, reason)",
        ),
        ("refund", ["A-1"], "refund: arguments must be a JSON object"),
        ("refund", None, "refund: arguments must be a JSON object"),
        ("lookup_order", {"order_id": {"$ne": 1}}, "lookup_order: missing required argument 'order_id'"),
        ("lookup_order", {"order_id": "Z-9"}, "no orders row with order_id 'Z-9'"),
        ("drop_tables", {}, "unknown tool 'drop_tables'"),
    ],
)
def test_bad_calls_return_errors(bundle: DomainBundle, name: str, args: object, error: str) -> None:
    view = bundle.world.fork()
    result = call_tool(bundle.domain, view, name, args)
    assert result.error == error
    assert not result.guard_failed
    assert view.overlay == {} and view.records == []


def test_a_guard_that_cannot_be_evaluated_is_an_error_result(bundle: DomainBundle) -> None:
    domain = bundle.domain.model_copy(deep=True)
    domain.tools["edit_address"].guard = "row.missing_column == 1"
    result = call_tool(domain, bundle.world.fork(), "edit_address", {"order_id": "A-1", "new_address": "x"})
    assert result.error.startswith("edit_address: could not apply (in 'row.missing_column == 1': ")
