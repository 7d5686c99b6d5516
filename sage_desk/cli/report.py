"""`sage-desk report`: per-model metrics of a run as a table, JSON, CSV or HTML (no composite)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sage_desk.cli._common import OK, fail, output_width
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def terminal_columns(sage_view: bool) -> list[tuple[str, str]]:
    """(key, header) of the terminal table: the Leaderboard's one column list (core/export/table.py)."""
    from sage_desk.core.export.table import columns

    return [(c.key, c.terminal_header) for c in columns(sage_view) if c.terminal]


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", metavar="RUN_ID", action="append", help="run id, repeatable (default: the latest run)")
    parser.add_argument("--format", choices=["table", "json", "csv", "html"], default="table")
    parser.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument(
        "--view",
        choices=["default", "sage"],
        default="default",
        help="sage: add SAGE's weighted score as a labelled extra column",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help="the table: one row per model with every column at full width, however wide (default: fit "
        "COLUMNS or the terminal, else 100 columns; one row per metric when the models' rows do not fit)",
    )
    add_db_option(parser)
    parser.set_defaults(handler=run)


def build_report(store: Store, run_ids: list[str], sage_view: bool = False) -> dict[str, Any]:
    """The report as its JSON: one metrics row per model, plus the per-scenario and per-conflict views."""
    from sage_desk.core.export.leaderboard import build_report as report_of
    from sage_desk.core.metrics.load import paused_gc, results_for_runs, unjudged_for_runs

    with paused_gc():  # a run's results, then the metrics' intermediate lists: hundreds of thousands of objects
        results = results_for_runs(store, run_ids)
        unjudged = {run: len(ids) for run, ids in unjudged_for_runs(store, run_ids).items() if ids}
        run = run_ids[0] if len(run_ids) == 1 else run_ids
        report = report_of(results, run, sage_view, **_stamps(store, run_ids), unjudged=unjudged).as_json()
    return {**report, **_imported(store, run_ids), **_endpoints(store, run_ids)}


def _endpoints(store: Store, run_ids: list[str]) -> dict[str, Any]:
    """`endpoints`: what each model endpoint did (requests, errors, times taken out, latency; llm/balance.py);
    for several runs, per run. Absent when no run called an endpoint of its own."""
    from sage_desk.core.llm.balance import summarize

    found = {r: summarize(store.get_run(r).config.get("endpoints")) for r in run_ids}
    found = {r: v for r, v in found.items() if v}
    if not found:
        return {}
    return {"endpoints": found[run_ids[0]] if len(run_ids) == 1 else found}


def _imported(store: Store, run_ids: list[str]) -> dict[str, Any]:
    """tau's reward beside our verdicts, and unsettled imported conversations counted apart (tau_compare.py)."""
    from sage_desk.core.export.tau_compare import tau_comparison, unsettled

    if not any(store.get_run(r).config.get("imported") for r in run_ids):
        return {}
    found = {"tau": tau_comparison(store, run_ids), "unsettled": unsettled(store, run_ids)}
    return {k: v for k, v in found.items() if v}


def _stamps(store: Store, run_ids: list[str]) -> dict[str, Any]:
    """`stamp`: the run's stamp (for several runs, one per run id), and what differs between several runs' stamps."""
    from sage_desk.core.engine.stamps import stamp_differences, stamp_of

    stamps = {r: stamp_of(store.get_run(r).config) for r in run_ids}
    if len(run_ids) == 1:
        return {"stamp": stamps[run_ids[0]]}
    first = run_ids[0]
    return {
        "stamp": stamps,
        "stamp_differences": {r: [d["text"] for d in stamp_differences(stamps[first], stamps[r])] for r in run_ids[1:]},
    }


def _num(value: float, digits: int = 2) -> str:
    """`value` at the shown precision, without a minus sign on a zero ("-0.00")."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def _count(value: float) -> str:
    """A count or a count's bound: whole when whole, else one decimal ("3.3", "7")."""
    return _num(value, 1).removesuffix(".0")


def _span(low: float, high: float, show: Any = _num) -> str | None:
    """`low-high` as shown, `low to high` when a bound is negative; None when they show alike."""
    a, b = show(low), show(high)
    if a == b:
        return None
    return f"{a} to {b}" if a.startswith("-") or b.startswith("-") else f"{a}-{b}"


def _fmt(key: str, value: Any, row: dict[str, Any]) -> str:
    """A cell: the median, its [min-max] over repeats and (95% interval over cases), each at the shown precision."""
    if value is None:
        return "-"
    if key == "unsafe_actions":
        if not row.get("adversarial_cases"):  # no traps (an imported run): the catastrophic line says what fired
            return "-"
        ci = row.get("unsafe_actions_ci")
        interval = _span(ci[0], ci[1], show=_count) if ci else None
        return f"{value:g}/{row['adversarial_cases']:g} {row.get('unsafe_band') or ''}".strip() + (
            f" ({interval})" if interval else ""
        )
    if key == "cost_per_1k_usd":
        return _num(value)
    if isinstance(value, float):
        rng, ci = row.get(f"{key}_range"), row.get(f"{key}_ci")
        spread = _span(rng[0], rng[1]) if rng else None
        interval = _span(ci[0], ci[1]) if ci else None  # an interval that rounds to one number says nothing more
        return _num(value) + (f" [{spread}]" if spread else "") + (f" ({interval})" if interval else "")
    return str(value)


def render_table(report: dict[str, Any], sage_view: bool, width: int | None = None, names: dict[str, str] | None = None) -> str:
    """The report as text fitted to `width` columns (None: one row per model, as wide as its columns).

    Models go by their display names (`names`: spec -> name given with the run, else a short form;
    core/agents/display.py), side by side as many as fit, with a legend of what each name stands for.
    """
    from rich.console import Console
    from rich.table import Table

    from sage_desk.core.agents.display import display_names, legend

    names = display_names([row["agent"] for row in report["models"]], names)
    cols = terminal_columns(sage_view)
    cells = [
        [names[row["agent"]] if key == "agent" else _fmt(key, row.get(key), row) for key, _ in cols] for row in report["models"]
    ]
    longest = _longest_words([c[1] for c in cols], cells)
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or 10_000, force_terminal=False)
    if width is None or sum(w + 3 for w in longest) + 1 <= width:
        table = Table()
        for (_, header), least in zip(cols, longest, strict=True):
            # rich would otherwise squeeze a column through the middle of a word
            table.add_column(header, overflow="fold", min_width=least)
        for row in cells:
            table.add_row(*row)
        console.print(table)
    else:
        console.print(_by_metric([header for _, header in cols[1:]], cells, width))
    extra = []
    for row in report["models"]:
        cat = ", ".join(f"{k} {v:g}" for k, v in row["catastrophic"].items())
        passk = ", ".join(f"{k} {v:.2f}" for k, v in row["pass_k"].items())
        flips = "" if row.get("flip_rate") is None else f"; cases flipping across repeats {row['flip_rate']:.0%}"
        extra.append(f"{names[row['agent']]}: catastrophic {cat}; {passk}; tokens/1k {row['tokens_per_1k'] or 0:.0f}{flips}")
    order = (report.get("order") or {}).get("text")
    extra += ([order] if order else []) + legend(names) + _noise_lines(report["models"], names)
    extra += _stamp_lines(report, names) + _unjudged_lines(report) + _imported_lines(report) + _endpoint_lines(report)
    return _title(report, width) + "\n" + buffer.getvalue() + _wrapped(extra, width)


def _title(report: dict[str, Any], width: int | None) -> str:
    """One line: the run, what a cell holds, no composite score; shorter forms where the width is narrow."""
    run = ", ".join(report["run"]) if isinstance(report["run"], list) else report["run"]
    forms = [
        f"Run {run}: medians over repeats [min-max] (95% interval over cases); no composite score",
        f"{run}: median [min-max of repeats] (95% interval); no composite score",
        f"{run}: median [min-max] (95% CI); no composite score",
    ]
    fitting = next((f for f in forms if width is None or len(f) <= width), None)
    return fitting or _wrapped([forms[-1]], width).rstrip("\n")  # narrower than any one-line form: wrapped


def _endpoint_lines(report: dict[str, Any]) -> list[str]:
    """One line per model endpoint: requests, errors, take-outs and latency mean/median/p95."""
    found = report.get("endpoints") or {}
    per_run = found if isinstance(report.get("run"), list) else {None: found}
    lines = []
    for run, endpoints in per_run.items():
        for url, f in endpoints.items():
            lat = f.get("latency_ms")
            latency = f"latency mean {lat['mean']:g} / median {lat['median']:g} / p95 {lat['p95']:g} ms" if lat else "no answer"
            where = f"run {run}: " if run else ""
            lines.append(
                f"{where}endpoint {url}: {f['requests']} requests, {f['errors']} errors, taken out {f['taken_out']}x; {latency}"
            )
    return lines


def _imported_lines(report: dict[str, Any]) -> list[str]:
    from sage_desk.core.export.tau_compare import tau_lines, unsettled_lines

    return tau_lines(report.get("tau")) + unsettled_lines(report.get("unsettled"), report.get("tau"))


def _unjudged_lines(report: dict[str, Any]) -> list[str]:
    """Finished conversations still missing verdicts: counted and named, never silently averaged over."""
    return [
        f"run {run}: {n} finished conversation(s) still lack rule or judge verdicts and are left out of what "
        f"they lack; `sage-desk run --resume {run}` judges them"
        for run, n in (report.get("unjudged") or {}).items()
    ]


def _by_metric(labels: list[str], cells: list[list[str]], width: int) -> Any:
    """The narrow layout: one row per metric and a column per model, as many models side by side as fit.

    A cell may wrap between its words (median, [range], (interval)) but never inside one.
    """
    from rich.console import Group
    from rich.table import Table

    label_width = max(len(w) for label in labels for w in label.split()) + 3

    def block(chunk: list[list[str]]) -> Table:
        table = Table()
        table.add_column("", style="bold", min_width=label_width - 3)
        for row in chunk:
            table.add_column(row[0], overflow="fold", min_width=_longest_words([row[0]], [[c] for c in row[1:]])[0])
        for i, label in enumerate(labels, start=1):
            table.add_row(label, *[row[i] for row in chunk])
        return table

    widths = [_longest_words([row[0]], [[c] for c in row[1:]])[0] + 3 for row in cells]
    blocks, start = [], 0
    while start < len(cells):
        end = start + 1  # at least one model a block, even when it alone is wider than `width`
        while end < len(cells) and 1 + label_width + sum(widths[start : end + 1]) <= width:
            end += 1
        blocks.append(block(cells[start:end]))
        start = end
    return Group(*blocks) if blocks else block([])


def _longest_words(headers: list[str], rows: list[list[str]]) -> list[int]:
    """Per column, its longest word: the narrowest it can be without cutting one (a table adds 3 a column and 1)."""
    return [
        max((len(w) for text in (h, *(r[i] for r in rows)) for w in str(text).split()), default=1) for i, h in enumerate(headers)
    ]


def _wrapped(lines: list[str], width: int | None) -> str:
    """Lines under the table, wrapped to `width` (continuations indented); as they are when None."""
    import textwrap

    if width is None:
        return "".join(f"{line}\n" for line in lines)
    return "".join(textwrap.fill(line, width, subsequent_indent="  ", break_on_hyphens=False) + "\n" for line in lines)


def _noise_lines(models: list[dict[str, Any]], names: dict[str, str] | None = None) -> list[str]:
    """ "within noise" marks, one line per column: the pairs of models whose intervals overlap there."""
    headers = dict(terminal_columns(sage_view=False))
    names = names or {}
    pairs: dict[str, list[str]] = {}
    for i, row in enumerate(models):
        for key, others in (row.get("within_noise") or {}).items():
            later = [o for o in others if any(m["agent"] == o for m in models[i + 1 :])]
            pairs.setdefault(key, []).extend(f"{names.get(row['agent'], row['agent'])} ~ {names.get(o, o)}" for o in later)
    return [f"within noise on {headers.get(key, key)}: {', '.join(found)}" for key, found in pairs.items() if found]


def _stamp_lines(report: dict[str, Any], names: dict[str, str] | None = None) -> list[str]:
    """What the run ran (hashes, models); agents by display name, their options left to the legend above."""
    from sage_desk.core.engine.stamps import describe

    def shown(stamp: Any) -> str:
        if not names or not isinstance(stamp, dict):
            return describe(stamp)
        models = [
            {**m, "name": names[m["name"]], "parameters": None if "?" in m["name"] else m.get("parameters")}
            if m.get("role") == "agent" and m.get("name") in names
            else m
            for m in stamp.get("models") or []
        ]
        return describe({**stamp, "models": models})

    stamp = report.get("stamp")
    if "stamp_differences" not in report:
        return [f"stamp: {shown(stamp)}"]
    lines = [f"stamp of {run}: {shown(s)}" for run, s in (stamp or {}).items()]
    for run, texts in report["stamp_differences"].items():
        lines += [f"{run} differs from {report['run'][0]}: {t}" for t in texts]
    return lines


def render_csv(report: dict[str, Any]) -> str:
    buffer = io.StringIO()
    keys = [k for k in report["models"][0] if not isinstance(report["models"][0][k], dict | list)] if report["models"] else []
    writer = csv.DictWriter(buffer, fieldnames=keys + ["catastrophic"], extrasaction="ignore")
    writer.writeheader()
    for row in report["models"]:
        writer.writerow({**row, "catastrophic": json.dumps(row["catastrophic"])})
    return buffer.getvalue()


def _given_names(store: Store, run_ids: list[str]) -> dict[str, str]:
    """The agents' display names as the runs define them (`run --agent NAME=SPEC`, else numbered in the runs' order)."""
    from sage_desk.core.agents.display import names_for_runs

    return names_for_runs([store.get_run(r).config for r in run_ids])


def run(args: argparse.Namespace) -> int:
    try:
        store = open_store(args)
        run_ids = [pick_run(store, r) for r in (args.run or [None])]
        report = build_report(store, run_ids, sage_view=args.view == "sage")
    except SageError as exc:
        return fail(str(exc))
    if args.format == "json":
        text = json.dumps(report, indent=2)
    elif args.format == "csv":
        text = render_csv(report)
    elif args.format == "html":
        from sage_desk.core.export.html_report import render_html

        text = render_html(report, sage_view=args.view == "sage")
    else:
        text = render_table(report, args.view == "sage", None if args.wide else output_width(), _given_names(store, run_ids))
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return OK
