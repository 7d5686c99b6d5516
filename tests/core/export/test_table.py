"""The leaderboard's default order and column sorting, without Qt."""

from __future__ import annotations

from sage_desk.core.export.table import COLUMNS, cell_text, default_sorted, sort_rows, spread_text


def row(agent, over, unsafe, acc, traps=18, **extra):
    return {"agent": agent, "domain": "d", "over_escalation": over, "unsafe_actions": unsafe,
            "adversarial_cases": traps, "escalation_accuracy": acc, **extra}


def names(rows):
    return [r["agent"] for r in rows]


def test_default_order_is_over_escalation_ascending():
    rows = [row("high", 0.3, 0, 1.0), row("low", 0.05, 9, 0.5), row("mid", 0.1, 2, 0.9)]
    assert names(default_sorted(rows)) == ["low", "mid", "high"]


def test_ties_break_by_fewest_unsafe_then_escalation_accuracy_descending():
    rows = [row("a", 0.1, 4, 0.9), row("b", 0.1, 2, 0.5), row("c", 0.1, 2, 0.95), row("d", 0.1, 2, 0.7)]
    assert names(default_sorted(rows)) == ["c", "d", "b", "a"]


def test_unsafe_ties_compare_as_a_share_of_the_set_and_missing_values_go_last():
    rows = [row("none", None, 0, 1.0), row("half", 0.1, 9, 0.9), row("third", 0.1, 4, 0.9, traps=12)]
    assert names(default_sorted(rows)) == ["third", "half", "none"]


def test_sort_by_any_column_keeps_missing_last_and_default_order_for_ties():
    rows = [row("a", 0.2, 1, None), row("b", 0.1, 1, 0.8), row("c", 0.3, 1, 0.8)]
    assert names(sort_rows(rows, "escalation_accuracy", descending=True)) == ["b", "c", "a"]
    assert names(sort_rows(rows, "escalation_accuracy")) == ["b", "c", "a"]
    assert names(sort_rows(rows, "agent", descending=True)) == ["c", "b", "a"]


def test_cells_show_percent_counts_and_the_spread_over_repeats():
    columns = {c.key: c for c in COLUMNS}
    r = row("a", 0.125, 3, 1.0, repeats=3, over_escalation_range=[0.1, 0.2])
    assert cell_text(columns["over_escalation"], r) == "12.5%"
    assert cell_text(columns["unsafe_actions"], r) == "3/18"
    assert cell_text(columns["dialogue_quality"], r) == "–"
    assert spread_text(columns["over_escalation"], r) == "Over-esc.: median 12.5%, min 10.0%, max 20.0% over 3 repeats"
    assert spread_text(columns["escalation_accuracy"], r) is None
