"""Loading and validating domain folders: every problem located in the file that holds it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sage_desk.core.domain import DomainBundle, load_domain, validate_domain
from sage_desk.core.errors import DomainError

Edit = Callable[[str, str, str], Path]


def _messages(folder: Path) -> list[str]:
    return [str(p).replace(f"{folder}/", "") for p in validate_domain(folder)]


def test_mini_domain_loads(mini: Path) -> None:
    bundle = load_domain(mini)
    assert isinstance(bundle, DomainBundle)
    assert bundle.name == "mini"
    assert bundle.sop_path == mini / "sop.yaml"
    assert bundle.policy.startswith("# Mini shop policy")
    assert bundle.world.get("orders", "A-1")["status"] == "shipped"
    assert bundle.tool_names() == ["lookup_order", "edit_address", "refund", "tag_ticket", "handover_to_human", "close_ticket"]
    assert bundle.user_fields() == {"Demand": ["refund", "status"]}


def test_northline_is_valid_by_name() -> None:
    assert validate_domain("northline") == []
    bundle = load_domain("northline")
    assert len(list(bundle.world.rows("orders"))) == 240


def test_context_rows_follow_via_and_system_values_are_evaluated(mini: Path) -> None:
    bundle = load_domain(mini)
    rows = bundle.context_rows({"order": "A-1"})
    assert rows["order"]["order_id"] == "A-1"
    assert rows["customer"]["customer_id"] == "C-1"  # reached through order.customer_id
    assert bundle.system_values(rows) == {"Stage": "sent", "Repeat": "none"}
    rows = bundle.context_rows({"order": "A-2"})
    assert bundle.system_values(rows) == {"Stage": "not_sent", "Repeat": "repeat"}


def test_system_values_with_missing_rows_are_none(mini: Path) -> None:
    bundle = load_domain(mini)
    assert bundle.context_rows({"order": "NOPE"}) == {}
    assert bundle.system_values({}) == {"Stage": None, "Repeat": None}


def test_context_rows_read_the_conversation_world(mini: Path) -> None:
    bundle = load_domain(mini)
    view = bundle.world.fork()
    view.put("orders", "A-1", {**bundle.world.get("orders", "A-1"), "status": "open"})
    assert bundle.system_values(bundle.context_rows({"order": "A-1"}, view))["Stage"] == "not_sent"
    assert bundle.system_values(bundle.context_rows({"order": "A-1"}))["Stage"] == "sent"


def test_northline_system_values() -> None:
    bundle = load_domain("northline")
    shipped = next(r for r in bundle.world.rows("orders") if r["status"] == "shipped")
    values = bundle.system_values(bundle.context_rows({"order": shipped["order_id"]}))
    assert values["OrderStage"] == "in_transit"
    assert values["PriorClaims"] in ("none", "repeat")


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        (
            "domain.yaml",
            "    table: orders\n    key: order_id\n    params:\n      new_address",
            "    table: order\n    key: order_id\n    params:\n      new_address",
            ["domain.yaml:37:5: tool 'edit_address': unknown table 'order'"],
        ),
        (
            "domain.yaml",
            "  Repeat: \"'repeat' if customer.claims >= 2 else 'none'\"\n",
            "",
            ["domain.yaml:24:1: system field 'Repeat' of the graph has no expression in system_variables"],
        ),
        (
            "domain.yaml",
            "customer.claims >= 2",
            "custmer.claims >= 2",
            [
                "domain.yaml:26:3: system variable 'Repeat': bad expression \"'repeat' if custmer.claims >= 2 else 'none'\": "
                "unknown name 'custmer' (known: customer, order)"
            ],
        ),
        (
            "domain.yaml",
            "row.status != 'cancelled'",
            "row.status !=",
            ["domain.yaml:43:5: tool 'edit_address': bad expression 'row.status !=': invalid syntax"],
        ),
        (
            "domain.yaml",
            'address: "=args.new_address"',
            'adress: "=args.new_address"',
            ["domain.yaml:41:5: tool 'edit_address': unknown column 'adress' of 'orders'"],
        ),
        (
            "domain.yaml",
            "  lookup_order:\n    kind: read",
            "  tag_ticket:\n    kind: read",
            [
                "domain.yaml:28:3: tool 'tag_ticket' is built in; choose another name",
                "sop.yaml:19:3: node 'look': unknown tool 'lookup_order' (the domain has: close_ticket, edit_address, "
                "handover_to_human, refund, tag_ticket, tag_ticket)",
            ],
        ),
        (
            "domain.yaml",
            "intent_field: Demand",
            "intent_field: Intent",
            ["domain.yaml:4:1: intent_field 'Intent' is not a field of the graph"],
        ),
        ("world.yaml", "  total: 50.0", "  total: fifty", ["world.yaml:5:3: orders[0].total: expected number, found 'fifty'"]),
        (
            "world.yaml",
            "  status: cancelled",
            "  status: canceled",
            ["world.yaml:10:3: orders[1].status: 'canceled' is not one of ['open', 'shipped', 'cancelled']"],
        ),
        ("world.yaml", "  claims: 3", "  claims: true", ["world.yaml:19:3: customers[1].claims: expected integer, found True"]),
        (
            "world.yaml",
            "  address: 2 High St\n",
            "  colour: red\n",
            ["world.yaml:12:3: orders[1]: unknown column 'colour'", "world.yaml:8:3: orders[1]: missing column 'address'"],
        ),
        ("world.yaml", "- order_id: A-2", "- order_id: A-1", ["world.yaml:8:3: orders: duplicate key 'A-1'"]),
        ("world.yaml", "customers:", "shoppers:", ["world.yaml:14:1: unknown table 'shoppers' (declared: orders, customers)"]),
        (
            "sop.yaml",
            "tool: refund",
            "tool: refnd",
            [
                "sop.yaml:36:3: node 'pay': unknown tool 'refnd' (the domain has: close_ticket, edit_address, "
                "handover_to_human, lookup_order, refund, tag_ticket)"
            ],
        ),
        (
            "sop.yaml",
            '"=order.order_id", reason',
            '"=ordr.order_id", reason',
            [
                "sop.yaml:37:3: node 'pay': argument 'order_id': bad expression 'ordr.order_id': unknown name 'ordr' "
                "(known: customer, facts, order, slots)"
            ],
        ),
    ],
)
def test_problems_are_located(edit: Edit, name: str, old: str, new: str, expected: list[str]) -> None:
    folder = edit(name, old, new)
    assert _messages(folder) == expected
    with pytest.raises(DomainError) as info:
        load_domain(folder)
    assert [str(p).replace(f"{folder}/", "") for p in info.value.problems] == expected


def test_broken_files_are_reported_not_raised(mini: Path) -> None:
    (mini / "world.yaml").write_bytes(b"\x00\x01binary")
    (mini / "policy.md").unlink()
    messages = _messages(mini)
    assert messages == ["world.yaml:1:1: binary file (contains NUL bytes), expected UTF-8 text", "policy.md:1:1: no such file"]


def test_broken_declaration_stops_early(mini: Path) -> None:
    (mini / "domain.yaml").write_text("name: mini\ntables: {}\nsurprise: 1\n")
    assert _messages(mini) == [
        "domain.yaml:1:1: intent_field: Field required",
        "domain.yaml:3:1: document: unknown key 'surprise'",
    ]
    (mini / "domain.yaml").write_text("- not a mapping\n")
    assert _messages(mini) == ["domain.yaml:1:1: expected a mapping (name, tables, tools ...)"]


def test_not_a_domain_folder(tmp_path: Path) -> None:
    assert [p.message for p in validate_domain(tmp_path)] == ["not a domain folder (no domain.yaml)"]
