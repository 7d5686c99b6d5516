"""`sage-desk agreement [--run R | --queue Q]`: how far human reviewers agree, per criterion."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sage_desk.cli._common import OK, fail
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError

SHOWN = 20


def register(parser: argparse.ArgumentParser) -> None:
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--run", metavar="RUN_ID", help="default: the latest run")
    scope.add_argument("--queue", metavar="NAME", help="the conversations (and criteria) of a review queue")
    parser.add_argument("--criterion", action="append", metavar="NAME", help="only this criterion (repeatable)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def _num(value: float | None, signed: bool = False) -> str:
    return "–" if value is None else f"{value:+.2f}" if signed else f"{value:.2f}"


def render(result: Any) -> str:
    """One row per criterion, then the disagreements."""
    from rich.markup import escape
    from rich.table import Table

    from sage_desk.cli.calibration import _console_text

    if not result.criteria:
        return f"No human labels in {result.scope} yet.\n"
    table = Table(title=escape(f"Agreement between reviewers, {result.scope}"), title_justify="left")
    for header in ("criterion", "reviewers", "n", "% agree", "kappa", "alpha", "alpha (scores)", "disagree", "unresolved"):
        table.add_column(header, justify="left" if header in ("criterion", "reviewers") else "right")
    for c in result.criteria:
        pct = "–" if c.percent_agreement is None else f"{c.percent_agreement:.0%}"
        found = c.disagreements()
        table.add_row(
            escape(c.criterion),
            escape(", ".join(c.reviewers)),
            str(c.n),
            pct,
            _num(c.kappa, True),
            _num(c.alpha, True),
            _num(c.alpha_interval, True),
            str(len(found)),
            str(sum(1 for d in found if d.adjudicated is None)),
        )
    note = (
        "n: items two or more reviewers labelled. kappa: Cohen's, when two reviewers labelled; "
        "more than two: --format json lists every pair. alpha: Krippendorff's on pass/fail (and on scores)."
    )
    lines = [_console_text(table) + note]
    found = result.disagreements()
    if found:
        lines.append(f"\n{len(found)} disagreement(s):")
        for d in found[:SHOWN]:
            labels = ", ".join(f"{r} {'pass' if p else 'fail'}" for r, p in sorted(d.labels.items()))
            state = "unresolved" if d.adjudicated is None else f"adjudicated {'pass' if d.adjudicated else 'fail'}"
            lines.append(f"  {d.conversation_id}  {d.criterion}: {labels}  ({state})")
        if len(found) > SHOWN:
            lines.append(f"  ... and {len(found) - SHOWN} more (--format json lists them all)")
        lines.append("Record the final label with `sage-desk adjudicate`.")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.calibration.human_agreement import human_agreement
    from sage_desk.core.store.queues import get_queue, queue_conversations, queue_runs

    try:
        store = open_store(args)
        if args.queue:
            queue = get_queue(store, args.queue)
            ids = set(queue_conversations(store, args.queue))
            overrides = [o for r in queue_runs(store, args.queue) for o in store.overrides(run_id=r)]
            criteria = args.criterion or queue.criteria or None
            result = human_agreement(overrides, f"queue {args.queue}", conversation_ids=ids, criteria=criteria)
        else:
            run_id = pick_run(store, args.run)
            result = human_agreement(store.overrides(run_id=run_id), f"run {run_id}", criteria=args.criterion)
    except SageError as exc:
        return fail(str(exc))
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=2))
    else:
        sys.stdout.write(render(result))
    return OK
