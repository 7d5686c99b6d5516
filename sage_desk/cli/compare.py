"""`sage-desk compare RUN_A RUN_B`: better or worse, and is it real? Deltas with intervals, flips, a CI gate."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sage_desk.cli._common import OK, PROBLEMS, USAGE, fail
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", nargs="?", metavar="RUN_A", help="the run before (default: the second latest run)")
    parser.add_argument("run_b", nargs="?", metavar="RUN_B", help="the run after (default: the latest run)")
    parser.add_argument("--format", choices=["table", "json", "html"], default="table")
    parser.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a metric of RUN_B is worse than RUN_A's beyond its interval and threshold",
    )
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="the worsening a metric may show beyond its interval (repeatable; 'off' to not gate it)",
    )
    parser.add_argument("--resamples", type=int, default=None, metavar="N", help="bootstrap resamples of cases (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (same data and seed: same intervals)")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def _runs(store: Store, args: argparse.Namespace) -> tuple[str, str]:
    if args.run_a and args.run_b:
        return pick_run(store, args.run_a), pick_run(store, args.run_b)
    latest = [r.id for r in store.list_runs()]
    if args.run_a:  # one run named: it is "before", the latest run "after"
        return pick_run(store, args.run_a), pick_run(store, None)
    if len(latest) < 2:
        raise SageError(f"compare needs two runs; {store.url} has {len(latest)}")
    return latest[1], latest[0]


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.metrics.compare import compare_runs, parse_thresholds
    from sage_desk.core.metrics.noise import RESAMPLES

    if args.resamples is not None and args.resamples < 100:
        return fail("--resamples must be at least 100", USAGE)
    try:
        thresholds = parse_thresholds(args.threshold)
    except SageError as exc:
        return fail(str(exc), USAGE)
    try:
        store = open_store(args)
        run_a, run_b = _runs(store, args)
        data = compare_runs(store, run_a, run_b, thresholds, args.resamples or RESAMPLES, args.seed)
    except SageError as exc:
        return fail(str(exc))
    text = _render(data, args.format)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if args.fail_on_regression and data["regressions"]:
        print(f"regression: {'; '.join(data['regressions'])}", file=sys.stderr)
        return PROBLEMS
    return OK


def _render(data: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2)
    if fmt == "html":
        from sage_desk.core.export.compare_html import render_compare_html

        return render_compare_html(data)
    return render_table(data)


def render_table(data: dict[str, Any]) -> str:
    """The comparison for a terminal: what differs, then per pair of agents the metrics and the flips."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=160, force_terminal=False, highlight=False)
    console.print(
        f"Run {data['a']['run']} (before) vs {data['b']['run']} (after): after - before, "
        f"paired {data['confidence']:.0%} interval over cases ({data['resamples']} resamples, seed {data['seed']})",
        markup=False,
    )
    for text in data["stamp_differences"] or ["same inputs: the stamps match"]:
        console.print(f"  {text}", markup=False)
    for pair in data["pairs"]:
        _print_pair(console, pair)
    console.print("regressions: " + ("; ".join(data["regressions"]) or "none"), markup=False)
    return buffer.getvalue()


def _print_pair(console: Any, pair: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from sage_desk.core.export.compare_html import delta_text, fmt, interval_text

    apart = [f"{pair[k]} only {side}" for k, side in (("only_a", "before"), ("only_b", "after")) if pair.get(k)]
    title = f"{pair['agent_a']} -> {pair['agent_b']}, {pair['cases']} cases in both" + (f" ({', '.join(apart)})" if apart else "")
    table = Table(title=escape(title))
    for header in ("metric", "before", "after", "difference", "interval", "threshold", "verdict"):
        table.add_column(header)
    for m in pair["metrics"]:
        if m["delta"] is None and m["a"] is None and m["b"] is None:
            continue  # a judge metric with no judge on either side
        table.add_row(
            m["metric"],
            fmt(m["a"]),
            fmt(m["b"]),
            delta_text(m["delta"]),
            interval_text(m["interval"]),
            fmt(m["threshold"]),
            m["verdict"],
        )
    console.print(table)
    rates = [
        f"{side} {pair[f'flip_rate_{key}']:.0%}"
        for side, key in (("before", "a"), ("after", "b"))
        if pair[f"flip_rate_{key}"] is not None
    ]
    if rates:
        console.print(f"cases flipping across repeats: {', '.join(rates)}", markup=False)
    console.print(f"flipped cases: {len(pair['flips'])}", markup=False)
    for f in pair["flips"]:
        kinds = f" ({', '.join(f['catastrophic'])})" if f["catastrophic"] else ""
        console.print(
            f"  {f['case_id']:<10} {f['kind']}{kinds}  passed {f['a_passed']} -> {f['b_passed']}  "
            f"before {' '.join(f['a_conversations'])}  after {' '.join(f['b_conversations'])}",
            markup=False,
        )
