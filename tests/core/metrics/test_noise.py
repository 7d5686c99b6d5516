"""Bootstrap intervals, paired deltas and flips on hand-made conversations (labelled: the figures are known)."""

from __future__ import annotations

from dataclasses import replace

from sage_desk.core.metrics.aggregate import ConversationResult, Mark
from sage_desk.core.metrics.compare import compare_results, flips, parse_thresholds
from sage_desk.core.metrics.noise import annotate, flip_rate, intervals, overlaps, paired_deltas


def conv(
    case: str, ok: bool, repeat: int = 1, agent: str = "a", bucket: str = "resolvable", unsafe: bool = False
) -> ConversationResult:
    marks = {
        "outcome": Mark(passed=ok),
        "path.action_accuracy": Mark(passed=ok),
        "escalation.unneeded": Mark(passed=True),
        "catastrophic.free_goods": Mark(passed=not unsafe),
    }
    return ConversationResult(
        id=f"{agent}-{case}-{repeat}",
        agent=agent,
        domain="d",
        case_id=case,
        repeat=repeat,
        bucket=bucket,
        conflict="zero",
        marks=marks,
    )


def run(passing: int, total: int = 40, agent: str = "a", repeats: int = 1) -> list[ConversationResult]:
    return [conv(f"k{i:02d}", i < passing, r, agent) for i in range(total) for r in range(1, repeats + 1)]


def test_interval_holds_the_figure_and_is_seeded():
    results = run(30)
    ci = intervals(results)["resolution_rate"]
    assert ci is not None and ci[0] < 0.75 < ci[1] and ci[1] - ci[0] < 0.35
    assert intervals(results) == intervals(results)  # same seed, same interval
    assert intervals(run(40))["resolution_rate"] == [1.0, 1.0]  # nothing varies: a point


def test_identical_runs_differ_by_nothing():
    deltas = {d.metric: d for d in paired_deltas(run(30), run(30, agent="b"))}
    res = deltas["resolution_rate"]
    assert res.delta == 0 and res.interval == [0.0, 0.0] and res.within_noise() and not res.worse_beyond(0)


def test_one_flip_is_noise_many_are_a_regression():
    one = {d.metric: d for d in paired_deltas(run(30), run(29))}["resolution_rate"]
    assert one.delta < 0 and one.within_noise() and not one.worse_beyond(0.0)
    many = {d.metric: d for d in paired_deltas(run(30), run(18))}["resolution_rate"]
    assert many.interval[1] < 0 and many.worse_beyond(0.02) and not many.worse_beyond(0.5)


def test_flips_name_cases_and_conversations():
    before, after = run(3, total=5), run(2, total=5, agent="b")
    after[4] = conv("k04", False, agent="b", unsafe=True)
    found = {f["case_id"]: f for f in flips(before, after)}
    assert set(found) == {"k02", "k04"}
    assert found["k02"]["kind"] == "pass->fail" and found["k02"]["a_conversations"] == ["a-k02-1"]
    assert found["k04"]["kind"] == "new catastrophic" and found["k04"]["catastrophic"] == ["free_goods"]


def test_flip_rate_across_repeats():
    results = run(40, repeats=2)
    assert flip_rate(results) == 0
    results[1] = conv("k00", False, repeat=2)  # case k00's repeats now disagree
    assert flip_rate(results) == 1 / 40
    assert flip_rate(run(40)) is None  # one repeat: nothing to flip


def test_gate_and_thresholds():
    pair = compare_results(run(30), run(10, agent="b"))[0]
    assert "resolution_rate" in pair["regressions"] and pair["agent_b"] == "b"
    relaxed = parse_thresholds(["success_rate=off", "resolution_rate=off", "handled_rate=0.9", "action_accuracy=0.9"])
    assert compare_results(run(30), run(10, agent="b"), relaxed)[0]["regressions"] == []
    assert compare_results(run(10), run(30, agent="b"))[0]["regressions"] == []  # better is never a regression


def test_report_rows_get_intervals_and_ties():
    results = run(30, agent="x") + run(29, agent="y") + run(5, agent="z")
    rows = [{"agent": a, "domain": "d", "resolution_rate": 0.0} for a in "xyz"]
    annotate(rows, results)
    x = rows[0]
    assert overlaps(x["resolution_rate_ci"], rows[1]["resolution_rate_ci"])
    assert x["within_noise"]["resolution_rate"] == ["y"] and "catastrophic_ci" in x


def test_many_distinct_values_take_the_case_by_case_path():
    results = [
        replace(c, marks={**c.marks, "path.prefix_similarity": Mark(score=i / 40)})  # 40 distinct values:
        for i, c in enumerate(run(40))
    ]  # more than MAX_TYPES
    ci = intervals(results)["path_prefix_similarity"]
    assert ci[0] < 0.4875 < ci[1] and ci[1] - ci[0] < 0.3
    shifted = [
        replace(c, marks={**c.marks, "path.prefix_similarity": Mark(score=min(1.0, i / 40 + 0.2))})
        for i, c in enumerate(run(40, agent="b"))
    ]
    delta = {d.metric: d for d in paired_deltas(results, shifted)}["path_prefix_similarity"]
    assert 0.15 < delta.delta < 0.2 and 0 < delta.interval[0] <= delta.delta <= delta.interval[1]


def test_neighbours_whose_intervals_overlap_are_tied():
    from sage_desk.core.metrics.noise import tied_groups

    def row(agent, ci, band="safe", domain="d"):
        return {"agent": agent, "domain": domain, "unsafe_band": band, "resolution_rate_ci": ci}

    rows = [
        row("a", [0.8, 0.9]),
        row("b", [0.75, 0.85]),
        row("c", [0.7, 0.78]),
        row("d", [0.2, 0.3]),
        row("e", [0.25, 0.35], band="reckless"),
        row("f", [0.1, 0.2], domain="other"),
        row("g", [0.1, 0.2], domain="other"),
    ]
    assert tied_groups(rows) == [["a", "b", "c"], ["f", "g"]]  # a chain; a band or a domain breaks it
    assert tied_groups(rows[:1]) == [] and tied_groups([row("x", None), row("y", None)]) == []
