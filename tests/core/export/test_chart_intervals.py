"""Error bars: the charts draw each model's 95 % interval when its row carries one (the report and the
Leaderboard add them through metrics/noise.py)."""

from __future__ import annotations

from sage_desk.core.export.charts import calibration_data, calibration_svg, unsafe_data, unsafe_svg


def rows(with_ci: bool):
    row = {
        "agent": "m",
        "domain": "d",
        "unsafe_actions": 5,
        "adversarial_cases": 18,
        "unsafe_band": "middling",
        "cost_tier": "free",
        "escalation_accuracy": 0.6,
        "over_escalation": 0.1,
    }
    if with_ci:
        row |= {"unsafe_actions_ci": [3.0, 8.0], "escalation_accuracy_ci": [0.5, 0.75], "over_escalation_ci": [0.05, 0.2]}
    return [row]


def test_intervals_reach_the_chart_data():
    assert unsafe_data(rows(True))["points"][0]["ci"] == [3.0, 8.0]
    calib = calibration_data(rows(True))[0]
    assert calib["missed_ci"] == [0.25, 0.5] and calib["over_ci"] == [0.05, 0.2]
    assert unsafe_data(rows(False))["points"][0]["ci"] is None


def test_whiskers_are_drawn_only_with_an_interval():
    assert unsafe_svg(rows(True)).count("<line") == unsafe_svg(rows(False)).count("<line") + 3
    assert calibration_svg(rows(True)).count("<line") == calibration_svg(rows(False)).count("<line") + 6
    assert "95% interval 3-8" in unsafe_svg(rows(True))
