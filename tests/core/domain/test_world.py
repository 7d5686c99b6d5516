"""The world and its copy-on-write views: one conversation never sees another's writes."""

from __future__ import annotations

from pathlib import Path

from sage_desk.core.domain import World, call_tool, load_domain


def _world() -> World:
    return World(tables={"orders": {"A-1": {"order_id": "A-1", "status": "shipped", "items": [{"sku": "mug"}]}}})


def test_get_returns_copies() -> None:
    world = _world()
    row = world.get("orders", "A-1")
    row["status"] = "lost"
    row["items"].append({"sku": "stolen"})
    assert world.get("orders", "A-1") == {"order_id": "A-1", "status": "shipped", "items": [{"sku": "mug"}]}
    assert world.get("orders", "nope") is None
    assert world.get("nowhere", "A-1") is None


def test_a_write_in_one_view_is_invisible_to_another_and_to_the_base() -> None:
    world = _world()
    first, second = world.fork(), world.fork()
    row = first.get("orders", "A-1")
    row["status"] = "cancelled"
    first.put("orders", "A-1", row)
    row["status"] = "mutated after put"  # the view kept its own copy
    assert first.get("orders", "A-1")["status"] == "cancelled"
    assert second.get("orders", "A-1")["status"] == "shipped"
    assert world.get("orders", "A-1")["status"] == "shipped"
    assert world.tables["orders"]["A-1"]["status"] == "shipped"


def test_reading_through_a_view_never_leaks_into_the_base() -> None:
    world = _world()
    view = world.fork()
    view.get("orders", "A-1")["items"].clear()
    assert world.get("orders", "A-1")["items"] == [{"sku": "mug"}]


def test_records_are_kept_per_view() -> None:
    world = _world()
    first, second = world.fork(), world.fork()
    entry = {"tool": "refund", "args": {"order_id": "A-1"}}
    first.record(entry)
    entry["args"]["order_id"] = "changed"
    assert first.records == [{"tool": "refund", "args": {"order_id": "A-1"}}]
    assert second.records == []


def test_fork_adds_a_cases_extra_rows_to_the_view_only() -> None:
    world = _world()
    view = world.fork({"orders": [{"order_id": "S-9", "status": "lost"}]}, keys={"orders": "order_id"})
    assert view.get("orders", "S-9") == {"order_id": "S-9", "status": "lost"}
    assert world.get("orders", "S-9") is None
    assert world.fork().get("orders", "S-9") is None


def test_concurrent_conversations_through_tools(mini: Path) -> None:
    bundle = load_domain(mini)
    views = [bundle.world.fork() for _ in range(3)]
    for i, view in enumerate(views):
        call_tool(bundle.domain, view, "edit_address", {"order_id": "A-1", "new_address": f"{i} Road"})
    call_tool(bundle.domain, views[0], "refund", {"order_id": "A-1", "reason": "late"})
    assert [v.get("orders", "A-1")["address"] for v in views] == ["0 Road", "1 Road", "2 Road"]
    assert [len(v.records) for v in views] == [1, 0, 0]
    assert bundle.world.get("orders", "A-1")["address"] == "1 Main St"
