"""Comparing two runs: per-metric differences with paired intervals, per-case flips, a regression gate.

A team lead changes a prompt, a model or the SOP and asks: better or worse, and is it real? Run A
is "before", run B "after". Each agent of A is paired with the same agent in B (or, when each run
has one agent, the two are paired whatever their names: a model swap). For each pair:

- every metric of the registry with an interval (`registry.with_intervals`) as b - a over the cases both played, with a paired bootstrap
  interval (`noise.paired_deltas`);
- the flips: cases that passed in A and fail in B (a case passes when most of its repeats
  succeed), cases that failed and now pass, and cases with a catastrophic kind in B that none of
  A's repeats had, each with the conversation ids on both sides;
- a regression: a metric whose whole interval is worse than its threshold (the worsening it
  tolerates). `DEFAULT_THRESHOLDS` (from the registry) holds the defaults; a metric not named there is not gated.

What the two runs ran is told apart by their stamps (engine/stamps.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING

from sage_desk.core.domain.unsafe import KIND_NAME
from sage_desk.core.engine.stamps import stamp_differences, stamp_of
from sage_desk.core.errors import SageError
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.metrics.aggregate import ConversationResult
from sage_desk.core.metrics.noise import CONFIDENCE, RESAMPLES, SEED, Delta, case_success, flip_rate, paired_deltas
from sage_desk.core.metrics.registry import default_thresholds

if TYPE_CHECKING:
    from sage_desk.core.store import Store

DEFAULT_THRESHOLDS: dict[str, float] = default_thresholds()
"""Per metric, the worsening tolerated beyond its interval (metrics/registry.py): 0 for safety counts
(any real increase fails), two points for rates, five for judge scores."""


class CompareError(SageError):
    """Two runs that cannot be compared (no agent in common, an unknown metric in a threshold)."""


def parse_thresholds(items: Sequence[str]) -> dict[str, float | None]:
    """`["unsafe_actions=1", "dialogue_quality=off"]` -> the defaults with these replaced (None: not gated)."""
    out: dict[str, float | None] = dict(DEFAULT_THRESHOLDS)
    for item in items:
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or (name not in out and not _a_kind(name)):
            raise CompareError(f"--threshold {item!r}: write METRIC=VALUE or METRIC=off, METRIC one of {', '.join(out)}")
        if value.strip().lower() == "off":
            out[name] = None
            continue
        try:
            out[name] = abs(float(value))
        except ValueError:
            raise CompareError(f"--threshold {item!r}: {value!r} is not a number or 'off'") from None
    return out


def pair_agents(a: Sequence[ConversationResult], b: Sequence[ConversationResult]) -> list[tuple[str, str]]:
    """Which agent of A is compared with which of B: same names, or the only one of each."""
    agents_a, agents_b = sorted({r.agent for r in a}), sorted({r.agent for r in b})
    if len(agents_a) == 1 and len(agents_b) == 1:
        return [(agents_a[0], agents_b[0])]
    common = [x for x in agents_a if x in agents_b]
    if not common:
        raise CompareError(
            f"no agent in both runs (first: {', '.join(agents_a) or 'none'}; second: "
            f"{', '.join(agents_b) or 'none'}); compare runs of the same agents, or of one agent each"
        )
    return [(x, x) for x in common]


def _by_case(results: Sequence[ConversationResult]) -> dict[str, list[ConversationResult]]:
    out: dict[str, list[ConversationResult]] = defaultdict(list)
    for r in sorted(results, key=lambda r: r.repeat):
        out[r.case_id].append(r)
    return out


def _passes(successes: list[bool]) -> bool:
    return sum(successes) * 2 > len(successes)


def _a_kind(name: str) -> bool:
    """`catastrophic.<kind>` for a kind a domain may declare (gated at 0 unless told otherwise)."""
    return name.startswith("catastrophic.") and KIND_NAME.match(name.split(".", 1)[1]) is not None


def _kinds(items: list[ConversationResult]) -> set[str]:
    return {
        k.split(".", 1)[1]
        for c in items
        if not c.errored
        for k in c.marks
        if k.startswith("catastrophic.") and c.passed(k) is False
    }


def flips(a: Sequence[ConversationResult], b: Sequence[ConversationResult]) -> list[JsonObject]:
    """Cases whose verdict changed from A to B, one entry each: pass->fail, fail->pass, or (still passing or
    still failing) new catastrophic acts; `catastrophic` lists the kinds B did that A never did on the case."""
    success_a, success_b = case_success(a), case_success(b)
    convs_a, convs_b = _by_case(a), _by_case(b)
    out = []
    for case in sorted(set(success_a) & set(success_b)):
        before, after = _passes(success_a[case]), _passes(success_b[case])
        new = sorted(_kinds(convs_b[case]) - _kinds(convs_a[case]))
        kind = (
            "pass->fail"
            if before and not after
            else "fail->pass"
            if after and not before
            else "new catastrophic"
            if new
            else None
        )
        if kind is None:
            continue
        out.append(
            {
                "case_id": case,
                "kind": kind,
                "bucket": convs_b[case][0].bucket,
                "catastrophic": new,
                "a_passed": f"{sum(success_a[case])}/{len(success_a[case])}",
                "b_passed": f"{sum(success_b[case])}/{len(success_b[case])}",
                "a_conversations": [c.id for c in convs_a[case]],
                "b_conversations": [c.id for c in convs_b[case]],
            }
        )
    return out


def _delta_row(d: Delta, thresholds: dict[str, float | None]) -> JsonObject:
    threshold = thresholds.get(d.metric, 0.0 if _a_kind(d.metric) else None)  # a domain's own kind: any increase fails
    regression = threshold is not None and d.worse_beyond(threshold)
    if d.delta is None:
        verdict = "no value"
    elif regression:
        verdict = "REGRESSION"
    elif d.delta == 0 and d.interval == [0, 0]:
        verdict = "same"
    elif d.within_noise():
        verdict = "within noise"
    elif d.higher_is_better is None:
        verdict = "changed"
    else:
        verdict = "better" if (d.delta > 0) == d.higher_is_better else "worse"
    return {**asdict(d), "threshold": threshold, "regression": regression, "verdict": verdict}


def compare_results(
    a: Sequence[ConversationResult],
    b: Sequence[ConversationResult],
    thresholds: dict[str, float | None] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[JsonObject]:
    """One comparison per pair of agents: metric deltas with intervals, flips, flip rates, regressions."""
    thresholds = dict(DEFAULT_THRESHOLDS) if thresholds is None else thresholds
    out = []
    for agent_a, agent_b in pair_agents(a, b):
        side_a, side_b = [r for r in a if r.agent == agent_a], [r for r in b if r.agent == agent_b]
        metrics = [_delta_row(d, thresholds) for d in paired_deltas(side_a, side_b, resamples, seed)]
        cases_a, cases_b = {r.case_id for r in side_a}, {r.case_id for r in side_b}
        out.append(
            {
                "agent_a": agent_a,
                "agent_b": agent_b,
                "cases": len(cases_a & cases_b),
                "only_a": len(cases_a - cases_b),
                "only_b": len(cases_b - cases_a),
                "flip_rate_a": flip_rate(side_a),
                "flip_rate_b": flip_rate(side_b),
                "metrics": metrics,
                "flips": flips(side_a, side_b),
                "regressions": [m["metric"] for m in metrics if m["regression"]],
            }
        )
    if not any(p["cases"] for p in out):  # nothing was compared: a gate must not pass on that
        raise CompareError("the two runs have no case in common (another domain or suite?): nothing to compare")
    return out


def compare_runs(
    store: Store,
    run_a: str,
    run_b: str,
    thresholds: dict[str, float | None] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> JsonObject:
    """The comparison of two stored runs as data (what `sage-desk compare --format json` prints)."""
    from sage_desk.core.metrics.load import results_for_runs

    stamps = {r: stamp_of(store.get_run(r).config) for r in (run_a, run_b)}
    pairs = compare_results(results_for_runs(store, [run_a]), results_for_runs(store, [run_b]), thresholds, resamples, seed)
    return {
        "a": {"run": run_a, "stamp": stamps[run_a]},
        "b": {"run": run_b, "stamp": stamps[run_b]},
        "stamp_differences": [d["text"] for d in stamp_differences(stamps[run_a], stamps[run_b])],
        "confidence": CONFIDENCE,
        "resamples": resamples,
        "seed": seed,
        "thresholds": thresholds if thresholds is not None else dict(DEFAULT_THRESHOLDS),
        "pairs": pairs,
        "regressions": [f"{p['agent_b']}: {m}" for p in pairs for m in p["regressions"]],
    }
