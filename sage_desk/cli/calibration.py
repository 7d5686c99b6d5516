"""`sage-desk calibration`: the judge against human labels, per judge and criterion; `--calibrate MODEL`."""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import TYPE_CHECKING, Any

from sage_desk.cli._common import OK, USAGE, fail
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store

SHOWN_DISAGREEMENTS = 20


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", metavar="RUN_ID", help="default: the latest run")
    parser.add_argument("--judge", metavar="SOURCE", help="only this judge (baseline:heuristic, judge:openai/gpt-4o-mini ...)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.add_argument(
        "--calibrate",
        metavar="MODEL",
        help="few-shot calibrate this LLM judge on the labels and "
        "show agreement before and after on the held-out part (calls the model)",
    )
    parser.add_argument("--api-base", metavar="URL", help="with --calibrate: an OpenAI-compatible server")
    parser.add_argument(
        "--per-class", type=int, default=2, metavar="N", help="with --calibrate: passing and failing examples per criterion"
    )
    parser.add_argument("--seed", type=int, default=0, help="with --calibrate: which train labels become examples")
    parser.add_argument("--concurrency", type=int, default=4)
    add_db_option(parser)
    parser.set_defaults(handler=run)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _kappa(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"


def _console_text(*renderables: Any) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=160, force_terminal=False)
    for r in renderables:
        console.print(r)
    return buffer.getvalue()


def render_report(report: Any, source: str | None) -> str:
    """The agreement table per judge, then the disagreements."""
    from rich.markup import escape
    from rich.table import Table

    from sage_desk.core.calibration import MIN_LABELS, NO_LABELS_HINT

    if not report.labels:
        return f"No human labels in run {report.run_id} yet: {NO_LABELS_HINT}.\n"
    parts: list[Any] = []
    for judge in [source] if source else report.sources:
        table = Table(title=escape(f"{judge} vs human labels, run {report.run_id}"), title_justify="left")
        for header in ("criterion", "labelled", "accuracy", "kappa", "true pass", "true fail", "tp fp fn tn", "note"):
            table.add_column(header, justify="left" if header in ("criterion", "note") else "right")
        for row in report.rows(judge):
            a, c = row.agreement, row.agreement.confusion
            note = a.warning or ""
            if row.unscored:
                note = f"{note}; {row.unscored} unscored".lstrip("; ")
            table.add_row(
                escape(row.criterion),
                str(a.n),
                _pct(a.accuracy),
                _kappa(a.kappa),
                _pct(a.true_pass_rate),
                _pct(a.true_fail_rate),
                f"{c.tp} {c.fp} {c.fn} {c.tn}",
                escape(note),
            )
        parts.append(table)
    footer = (
        f"true pass: of what humans passed, the share the judge passed; true fail: the same for fails. "
        f"Figures need {MIN_LABELS}+ labels of both classes."
    )
    text = _console_text(*parts) + footer + "\n"
    if report.disputed:
        text += (
            f"{report.disputed} labelled criterion(s) left out: reviewers disagree and no one has adjudicated "
            "(`sage-desk adjudicate` lists them).\n"
        )
    return text + _render_disagreements(report.disagreements(source))


def _render_disagreements(found: list[Any]) -> str:
    if not found:
        return "\nNo disagreements.\n"
    lines = [f"\n{len(found)} disagreement(s) (judge -> human):"]
    for item in found[:SHOWN_DISAGREEMENTS]:
        judge = "pass" if item.judge_passed else "fail"
        human = "pass" if item.label.passed else "fail"
        why = f'  "{item.label.reason}"' if item.label.reason else ""
        lines.append(f"  {item.conversation_id} ({item.case_id})  {item.criterion}  {item.source}: {judge} -> {human}{why}")
    if len(found) > SHOWN_DISAGREEMENTS:
        lines.append(f"  ... and {len(found) - SHOWN_DISAGREEMENTS} more (--format json lists them all)")
    return "\n".join(lines) + "\n"


def render_calibration(result: Any) -> str:
    """Before and after on the held-out labels, per criterion and pooled."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=escape(
            f"Calibrating {result.model}: {len(result.selection.examples)} example(s) from "
            f"{len(result.train_conversations)} train conversation(s); measured on "
            f"{len(result.heldout_conversations)} held-out"
        ),
        title_justify="left",
    )
    for header in ("criterion", "examples", "n", "accuracy before", "after", "kappa before", "after ", "note"):
        table.add_column(header, justify="left" if header in ("criterion", "note") else "right")
    for row in result.rows:
        note = row.after.warning or ""
        if row.dropped:
            note = f"{note}; {row.dropped} unscored, left out".lstrip("; ")
        table.add_row(
            escape(row.criterion),
            "yes" if row.calibrated else "no",
            str(row.after.n),
            _pct(row.before.accuracy),
            _pct(row.after.accuracy),
            _kappa(row.before.kappa),
            _kappa(row.after.kappa),
            escape(note),
        )
    pooled = (
        f"all held-out labels: accuracy {_pct(result.before.accuracy)} -> {_pct(result.after.accuracy)}, "
        f"kappa {_kappa(result.before.kappa)} -> {_kappa(result.after.kappa)}"
    )
    origin = "stored verdicts of this judge" if result.before_from == "stored" else "this judge without examples, judged now"
    skipped = "".join(f"\nno examples for {c}: {why}" for c, why in result.selection.skipped.items())
    return _console_text(table) + pooled + f"\nbefore = {origin}; {result.calls} call(s), ${result.cost_usd:.4f}" + skipped + "\n"


def _calibrate(args: argparse.Namespace, store: Store, run_id: str) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from sage_desk.core.calibration import calibrate

    with Progress(
        TextColumn("judging held-out conversations"),
        BarColumn(),
        MofNCompleteColumn(),
        disable=args.format == "json" or not sys.stderr.isatty(),
        console=None,
    ) as bar:
        task = bar.add_task("calibrate", total=None)
        return calibrate(
            store,
            run_id,
            args.calibrate,
            api_base=args.api_base,
            per_class=args.per_class,
            seed=args.seed,
            concurrency=args.concurrency,
            on_progress=lambda done, total: bar.update(task, completed=done, total=total),
        )


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.calibration import calibration_report

    if args.per_class < 1 or args.concurrency < 1:
        return fail("--per-class and --concurrency must be at least 1", USAGE)
    try:
        store = open_store(args)
        run_id = pick_run(store, args.run)
        report = calibration_report(store, run_id)
        result = _calibrate(args, store, run_id) if args.calibrate else None
    except SageError as exc:
        return fail(str(exc))
    if args.format == "json":
        data = report.to_dict()
        if args.judge:
            data["criteria"] = [r.to_dict() for r in report.rows(args.judge)]
            data["disagreements"] = [d for d in data["disagreements"] if d["source"] == args.judge]
        if result is not None:
            data["calibration"] = result.to_dict()
        print(json.dumps(data, indent=2))
        return OK
    sys.stdout.write(render_report(report, args.judge))
    if result is not None:
        sys.stdout.write("\n" + render_calibration(result))
    return OK
