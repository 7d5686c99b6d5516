"""A small shop domain, its SOP in prose, and model answers drafting it (for the text->graph tests).

`fake_model(*answers)` makes a fake-server script that answers the draft requests in order; an
answer is a dict (sent as JSON) or a string (sent as it is, e.g. broken JSON).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

DOMAIN_YAML = """name: shop
title: The Shop
intent_field: Demand
tables:
  orders: {key: order_id, columns: {order_id: string, status: string}}
context:
  order: {table: orders}
system_variables:
  Delivered: "'yes' if order.status == 'delivered' else 'no'"
tools:
  lookup_order: {kind: read, description: Look an order up by its number, table: orders, key: order_id}
  refund_order: {kind: record, description: Refund an order in full. Money-moving., table: orders, key: order_id}
"""

POLICY = """# Shop support

Customers write to us about their orders.

1. First look the order up with `lookup_order`.
2. If the customer asks for a refund and the order was delivered, refund it with `refund_order`.
   An order that was not delivered yet cannot be refunded: explain that it is still on its way.
3. If the customer only asks where the order is, share the tracking link.
4. A customer who asks for a voucher gets one with `issue_voucher`.
"""


def write_domain(folder: Path) -> Path:
    """The shop domain folder (domain.yaml only, which is all drafting reads)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "domain.yaml").write_text(DOMAIN_YAML, encoding="utf-8")
    return folder


def _node(id: str, kind: str, source: str, **attrs: Any) -> dict[str, Any]:
    return {"id": id, "kind": kind, "label": attrs.pop("label", id.replace("_", " ")), "source": source, **attrs}


VALID: dict[str, Any] = {
    "fields": [
        {"name": "Demand", "source": "user", "values": ["refund", "where_is_it", "voucher"]},
        {"name": "Delivered", "source": "system", "values": ["yes", "no"]},
    ],
    "nodes": [
        _node("start", "start", "Customers write to us about their orders."),
        _node(
            "lookup",
            "action",
            "First look the order up with `lookup_order`.",
            tool="lookup_order",
            args={"order_id": "=order.order_id"},
        ),
        _node("demand", "decision", "If the customer asks for a refund", field="Demand"),
        _node("delivered", "decision", "and the order was delivered", field="Delivered"),
        _node("refund", "action", "refund it with `refund_order`.", tool="refund_order"),
        # paraphrased: found as the most similar sentence of the policy
        _node(
            "say_on_its_way",
            "action",
            "An order not yet delivered can't be refunded; explain it is still on the way.",
            say="Explain the order is still on its way",
        ),
        _node("say_tracking", "action", "share the tracking link", say="Share the tracking link"),
        _node("voucher", "action", "gets one with `issue_voucher`", tool="issue_voucher"),
        _node("resolved", "end", "refund it with `refund_order`.", outcome="resolved"),
    ],
    "edges": [
        {"from": "start", "to": "lookup", "when": []},
        {"from": "lookup", "to": "demand", "when": []},
        {"from": "demand", "to": "delivered", "when": ["refund"]},
        {"from": "demand", "to": "say_tracking", "when": ["where_is_it"]},
        {"from": "demand", "to": "voucher", "when": ["voucher"]},
        {"from": "delivered", "to": "refund", "when": ["yes"]},
        {"from": "delivered", "to": "say_on_its_way", "when": ["no"]},
        {"from": "refund", "to": "resolved", "when": []},
        {"from": "say_on_its_way", "to": "resolved", "when": []},
        {"from": "say_tracking", "to": "resolved", "when": []},
        {"from": "voucher", "to": "resolved", "when": []},
    ],
}


def invalid_draft() -> dict[str, Any]:
    """VALID with two mistakes: the 'no' branch is missing, and a step leads nowhere."""
    draft = copy.deepcopy(VALID)
    draft["edges"] = [e for e in draft["edges"] if not (e["from"] == "delivered" and e["when"] == ["no"])]
    draft["edges"] = [e for e in draft["edges"] if e["from"] != "say_tracking"]
    return draft


def fake_model(*answers: dict[str, Any] | str):
    """A fake-server script answering request i with answers[i] (the last one repeats)."""
    calls = {"n": 0}

    def script(_request: dict[str, Any]) -> str:
        answer = answers[min(calls["n"], len(answers) - 1)]
        calls["n"] += 1
        return answer if isinstance(answer, str) else json.dumps(answer)

    return script
