"""The noise floor: bootstrap intervals over cases, paired differences between runs, flip rates.

tau-bench users see a third to a half of tasks flip between identical runs, so a figure without
its interval invites reading noise as progress. Everything here resamples *cases* (a case's
repeats stay together), with a seeded generator, so the same data always gives the same interval:

- `intervals(results)`: per metric, the 95 % percentile interval of the figure;
- `paired_deltas(a, b)`: per metric, the difference b - a over the cases both ran, with the
  interval of that difference from resampling the same cases on both sides (a paired bootstrap);
- `flip_rate(results)`: the share of cases whose repeats disagree on success.

A metric is read per case as (numerator, denominator) summed over its repeats: a rate is
sum(num) / sum(den) over the resampled cases (the mean over repeats, pooled); a count (unsafe
actions, catastrophic kinds) is the sum over cases of the per-case mean over repeats.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter, sub
from typing import Generic, TypeVar

from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.metrics.aggregate import ConversationResult, run_kinds
from sage_desk.core.metrics.registry import Metric, noise_columns, with_intervals
from sage_desk.core.metrics.rows import ModelRow

RESAMPLES = 1000
CONFIDENCE = 0.95
SEED = 0

MetricDef = Metric  # the registry's metric (metrics/registry.py): noise reads its bucket, value, direction and count
METRICS: tuple[Metric, ...] = tuple(with_intervals())
"""The metrics with intervals, in the report's order (per-kind catastrophic counts last)."""
BY_NAME = {m.name: m for m in METRICS}

Cells = dict[str, dict[str, tuple[float, float]]]  # case id -> metric -> (sum of values, conversations counted)


def metrics_of(results: Sequence[ConversationResult]) -> tuple[Metric, ...]:
    """The metrics with intervals for these conversations: a catastrophic count per kind of their domains."""
    return tuple(with_intervals(run_kinds(results)))


def case_cells(results: Sequence[ConversationResult], metrics: Sequence[Metric] | None = None) -> Cells:
    """Per case and metric, the sum of the values over its repeats and how many counted (errored left out)."""
    chosen = metrics_of(results) if metrics is None else metrics
    by_case: dict[str, list[ConversationResult]] = defaultdict(list)
    for c in results:
        if not c.errored:
            by_case[c.case_id].append(c)
    return {case: _cells_of(convs, chosen) for case, convs in by_case.items()}


def _cells_of(convs: list[ConversationResult], metrics: Sequence[Metric] = METRICS) -> dict[str, tuple[float, float]]:
    """One case's cells: per metric, its values over the case's conversations (in order) summed, and how many."""
    of_bucket: dict[str, list[ConversationResult]] = defaultdict(list)
    for c in convs:
        of_bucket[c.bucket].append(c)
    out = {}
    for m in metrics:
        if m.value is None:  # a figure with no per-conversation value has no interval
            continue
        num = den = 0.0
        for v in map(m.value, convs if m.bucket is None else of_bucket.get(m.bucket, ())):
            if v is not None:
                num += float(v)
                den += 1.0
        if den:
            out[m.name] = (num, den)
    return out


def figure(metric: MetricDef, cells: Sequence[tuple[float, float]]) -> float | None:
    """The metric over cases: a pooled rate, or the sum of per-case means for a count."""
    if not cells:
        return None
    if metric.count:
        return sum(num / den for num, den in cells)
    den = sum(d for _, d in cells)
    return sum(n for n, _ in cells) / den if den else None


Cell = tuple[float, float]


K = TypeVar("K", bound=Hashable)


class _Types(Generic[K]):
    """The cases of one metric grouped by their cells (few distinct ones: 0-3 of 3 repeats ...), in order.

    A resample of n cases is n uniform draws u in [0, 1); case i is drawn when floor(u * n) == i.
    With the cases ordered by type, how many draws land on a type is how many of the (sorted) u fall
    in that type's stretch of [0, 1), found by bisection. That is exactly the bootstrap (the counts
    per type are multinomial with the types' shares), and it lets every draw be counted at once per
    type, in C, instead of summing over every case of every draw in Python.
    """

    def __init__(self, keys: Sequence[K]) -> None:
        counted = sorted(Counter(keys).items())
        self.keys = [k for k, _ in counted]
        self.bounds = [0]
        for _, k in counted:
            self.bounds.append(self.bounds[-1] + k)

    def counts(self, draws: _Draws) -> list[list[int]]:
        """Per type, how many cases of that type each draw took."""
        n = self.bounds[-1]
        at = [draws.below(n, b) for b in self.bounds[1:-1]]
        at = [[0] * draws.resamples, *at, [n] * draws.resamples]
        return [list(map(sub, at[i + 1], at[i])) for i in range(len(self.keys))]


MAX_TYPES = 16
"""Above this many distinct cells (judge scores, path similarity), draws are summed case by case."""


def _draw_values(metric: MetricDef, column: Sequence[Cell], draws: _Draws) -> list[float | None]:
    """The metric on every draw of `column`'s cases (by types when they are few, else case by case)."""
    types = _Types(column)
    if len(types.keys) <= MAX_TYPES:
        return _values(metric, types.keys, types.counts(draws))
    pickers = draws.pickers(len(column))
    if len(column) == 1:
        return [figure(metric, column)] * len(pickers)
    if metric.count:
        means = [num / den for num, den in column]
        return [float(sum(pick(means))) for pick in pickers]
    nums, dens = [num for num, _ in column], [den for _, den in column]
    return [(sum(pick(nums)) / d if (d := sum(pick(dens))) else None) for pick in pickers]


def _values(metric: MetricDef, cells: Sequence[Cell], counts: list[list[int]]) -> list[float | None]:
    """The metric on every draw, where draw j holds `counts[i][j]` cases of cell `cells[i]`."""
    size = len(counts[0]) if counts else 0
    nums, dens = [0.0] * size, [0.0] * size
    for (num, den), taken in zip(cells, counts, strict=True):
        if metric.count:
            mean = num / den
            nums = [t + c * mean for t, c in zip(nums, taken, strict=True)]
        else:
            nums = [t + c * num for t, c in zip(nums, taken, strict=True)]
            dens = [t + c * den for t, c in zip(dens, taken, strict=True)]
    if metric.count:
        return list(nums)
    return [x / d if d else None for x, d in zip(nums, dens, strict=True)]


def _percentiles(values: list[float], confidence: float) -> list[float]:
    values.sort()
    tail = (1 - confidence) / 2
    lo = values[int(tail * (len(values) - 1))]
    hi = values[int(round((1 - tail) * (len(values) - 1)))]
    return [lo, hi]


class _Draws:
    """Seeded resamples: `resamples` rows of uniform numbers, each row its own generator (so a row's
    first n numbers never depend on which sizes were asked for first); for n cases, each row's
    first n numbers, sorted (see `_Types`), made once per n and shared by every metric and model."""

    def __init__(self, seed: int, resamples: int):
        self.resamples = resamples
        self._rngs = [random.Random(f"{seed}|{j}") for j in range(resamples)]
        self._rows: list[list[float]] = [[] for _ in range(resamples)]
        self._made: dict[int, list[list[float]]] = {}
        self._pickers: dict[int, list[itemgetter]] = {}
        self._below: dict[tuple[int, int], list[int]] = {}

    def __call__(self, n: int) -> list[list[float]]:
        if n not in self._made:
            for rng, row in zip(self._rngs, self._rows, strict=True):
                row.extend(rng.random() for _ in range(n - len(row)))
            self._made[n] = [sorted(row[:n]) for row in self._rows]
        return self._made[n]

    def below(self, n: int, b: int) -> list[int]:
        """Per draw of n cases, how many it took from the first b (its numbers below b / n); kept, as
        the metrics and models of a report ask the same (n, b) again and again."""
        if (n, b) not in self._below:
            self._below[(n, b)] = list(map(bisect_left, self(n), repeat(b / n)))
        return self._below[(n, b)]

    def pickers(self, n: int) -> list[itemgetter]:
        """The same draws as case indices, each as an itemgetter over a column of n cases."""
        if n not in self._pickers:
            self._pickers[n] = [itemgetter(*[int(u * n) for u in draw]) for draw in self(n)]
        return self._pickers[n]


def intervals(
    results: Sequence[ConversationResult],
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
    draws: _Draws | None = None,
) -> dict[str, list[float] | None]:
    """Per metric, its bootstrap interval, resampling the cases the metric counts (None where it has no value).

    Each metric resamples its own cases (the resolvable ones for resolution, the traps for unsafe
    actions), so a bucket's size stays what the suite has."""
    metrics = metrics_of(results)
    cells = case_cells(results, metrics)
    draws = draws or _Draws(seed, resamples)
    out: dict[str, list[float] | None] = {}
    for m in metrics:
        column = [cells[c][m.name] for c in sorted(cells) if m.name in cells[c]]
        value = figure(m, column)
        if value is None or len(set(column)) == 1:  # no value, or every case alike: no resample differs
            out[m.name] = None if value is None else [value, value]
            continue
        values = [v for v in _draw_values(m, column, draws) if v is not None]
        out[m.name] = _percentiles(values, confidence) if values else None
    return out


@dataclass
class Delta:
    """A metric's paired difference b - a over the cases both runs played, with its interval."""

    metric: str
    a: float | None
    b: float | None
    delta: float | None
    interval: list[float] | None
    higher_is_better: bool | None
    cases: int

    def worse_beyond(self, threshold: float) -> bool:
        """True when the whole interval is worse than `threshold` (an allowed worsening, >= 0)."""
        if self.interval is None or self.higher_is_better is None:
            return False
        lo, hi = self.interval
        return hi < -threshold if self.higher_is_better else lo > threshold

    def within_noise(self) -> bool:
        """True when the interval holds 0 (no difference told apart from noise)."""
        return self.interval is None or self.interval[0] <= 0 <= self.interval[1]


def paired_deltas(
    a: Sequence[ConversationResult],
    b: Sequence[ConversationResult],
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> list[Delta]:
    """Per metric, b - a over the cases both played, with a paired bootstrap interval: each draw takes
    the same cases from both runs, so what the cases share (their difficulty) cancels out."""
    metrics = metrics_of([*a, *b])
    cells_a, cells_b = case_cells(a, metrics), case_cells(b, metrics)
    draws = _Draws(seed, resamples)
    out = []
    for m in metrics:
        cases = sorted(c for c in set(cells_a) & set(cells_b) if m.name in cells_a[c] and m.name in cells_b[c])
        col_a, col_b = [cells_a[c][m.name] for c in cases], [cells_b[c][m.name] for c in cases]
        fa, fb = figure(m, col_a), figure(m, col_b)
        if fa is None or fb is None:
            out.append(Delta(m.name, fa, fb, None, None, m.higher_is_better, len(cases)))
            continue
        if len(set(zip(col_a, col_b, strict=True))) == 1:  # every case alike on both sides: no resample differs
            out.append(Delta(m.name, fa, fb, fb - fa, [fb - fa, fb - fa], m.higher_is_better, len(cases)))
            continue
        types = _Types(list(zip(col_a, col_b, strict=True)))  # a case's type is its cell in both runs
        if len(types.keys) <= MAX_TYPES:
            counts = types.counts(draws)  # the same cases drawn for both runs
            values_a = _values(m, [k[0] for k in types.keys], counts)
            values_b = _values(m, [k[1] for k in types.keys], counts)
        else:
            values_a, values_b = _draw_values(m, col_a, draws), _draw_values(m, col_b, draws)  # same draws
        diffs = [vb - va for va, vb in zip(values_a, values_b, strict=True) if va is not None and vb is not None]
        out.append(
            Delta(m.name, fa, fb, fb - fa, _percentiles(diffs, confidence) if diffs else None, m.higher_is_better, len(cases))
        )
    return out


def case_success(results: Sequence[ConversationResult]) -> dict[str, list[bool]]:
    """Per case, the success of each repeat (errored conversations left out), in repeat order."""
    out: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    for c in results:
        if not c.errored:
            out[c.case_id].append((c.repeat, c.success()))
    return {case: [ok for _, ok in sorted(v)] for case, v in out.items()}


def flip_rate(results: Sequence[ConversationResult]) -> float | None:
    """The share of cases played more than once whose repeats disagree on success (None with one repeat)."""
    repeated = [v for v in case_success(results).values() if len(v) > 1]
    return sum(len(set(v)) > 1 for v in repeated) / len(repeated) if repeated else None


def overlaps(a: list[float] | None, b: list[float] | None) -> bool:
    """True when two intervals share a point (the figures are within noise of each other)."""
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


NOISE_COLUMNS = noise_columns()
"""The report's columns whose intervals say which models are within noise of each other."""


def annotate(
    rows: list[ModelRow], results: Sequence[ConversationResult], resamples: int = RESAMPLES, seed: int = SEED
) -> list[ModelRow]:
    """Add to each metrics row (one per agent and domain) its intervals, flip rate and within-noise marks.

    `<metric>_ci` = [low, high] for each metric, `catastrophic_ci` = {kind: [low, high]},
    `flip_rate` across repeats, and `within_noise` = {metric: [agents whose interval overlaps]}.
    """
    groups: dict[tuple[str, str], list[ConversationResult]] = defaultdict(list)
    for r in results:
        groups[(r.agent, r.domain)].append(r)
    draws = _Draws(seed, resamples)
    for row in rows:
        items = groups.get((row["agent"], row["domain"]), [])
        found = intervals(items, draws=draws)
        for name, interval in found.items():
            if name.startswith("catastrophic."):
                row.setdefault("catastrophic_ci", {})[name.split(".", 1)[1]] = interval
            elif name in row:
                row[f"{name}_ci"] = interval
        row["flip_rate"] = flip_rate(items)
    for row in rows:
        row["within_noise"] = {
            key: [
                o["agent"]
                for o in rows
                if o is not row and o["domain"] == row["domain"] and overlaps(row.get(f"{key}_ci"), o.get(f"{key}_ci"))
            ]
            for key in NOISE_COLUMNS
        }
    return rows


def tied_groups(rows: Sequence[JsonObject], key: str = "resolution_rate") -> list[list[str]]:
    """Runs of neighbouring rows (in the order given) that are tied: same domain and safety band, and
    each one's `key` interval overlapping the next one's. Only groups of two or more are returned."""
    groups: list[list[str]] = []
    current: list[JsonObject] = []
    for row in rows:
        last = current[-1] if current else None
        if (
            last is not None
            and last.get("domain") == row.get("domain")
            and last.get("unsafe_band") == row.get("unsafe_band")
            and overlaps(last.get(f"{key}_ci"), row.get(f"{key}_ci"))
        ):
            current.append(row)
            continue
        if len(current) > 1:
            groups.append([r["agent"] for r in current])
        current = [row]
    if len(current) > 1:
        groups.append([r["agent"] for r in current])
    return groups
