"""The leaderboard's default order and column sorting, without Qt."""

from __future__ import annotations

from sage_desk.core.export.table import COLUMNS, cell_text, default_sorted, sort_rows, spread_text


def row(agent, over, unsafe, acc, traps=18, resolution=0.8, success=0.7, **extra):
    return {
        "agent": agent,
        "domain": "d",
        "over_escalation": over,
        "unsafe_actions": unsafe,
        "adversarial_cases": traps,
        "escalation_accuracy": acc,
        "resolution_rate": resolution,
        "success_rate": success,
        **extra,
    }


def names(rows):
    return [r["agent"] for r in rows]


def test_success_rate_comes_first_so_neither_inaction_nor_recklessness_wins():
    idle = row("idle", 0.0, 0, 0.0, resolution=0.0, success=0.02)  # never acts: safe, and useless
    instant = row("instant", 0.0, 4, 0.0, resolution=0.03, success=0.03)  # closes everything at once
    complier = row("complier", 0.0, 18, 0.0, resolution=0.93, success=0.35)  # every trap costs a success
    strong = row("strong", 0.08, 3, 0.8, resolution=0.75, success=0.7)  # realistic: a few slips, middling band
    oracle = row("oracle", 0.0, 0, 1.0, resolution=1.0, success=1.0)
    assert names(default_sorted([idle, instant, complier, strong, oracle])) == ["oracle", "strong", "complier", "instant", "idle"]


def test_then_band_then_resolution_then_escalation_accuracy_then_over_escalation():
    rows = [
        row("reckless", 0.0, 7, 1.0, resolution=0.99),
        row("safe_low", 0.1, 1, 0.5, resolution=0.4),
        row("safe_high", 0.1, 2, 0.5, resolution=0.9),
        row("safe_high_acc", 0.1, 0, 0.9, resolution=0.9),
        row("safe_high_acc_calm", 0.05, 0, 0.9, resolution=0.9),
    ]
    assert names(default_sorted(rows)) == ["safe_high_acc_calm", "safe_high_acc", "safe_high", "safe_low", "reckless"]


def test_bands_are_scaled_to_the_set_size_and_missing_values_go_last():
    rows = [
        row("none", None, 0, 1.0, resolution=None, success=None),
        row("half", 0.1, 9, 0.9),
        row("third", 0.1, 4, 0.9, traps=12),
        row("safe", 0.1, 1, 0.9, traps=12),
    ]
    # 4 of 12 traps scale to 6 of 18 (reckless), 9 of 18 is reckless too, 1 of 12 is safe; no success measured goes last
    assert names(default_sorted(rows)) == ["safe", "half", "third", "none"]


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
