"""`sage-desk conversations [--run R]`: a run's conversation ids with case, agent, ending and failed verdicts.

The ids are what `show`, `label` and `set-slot` take. Failed verdicts are the criteria whose
effective verdict (the latest human override applied, as in Review and the metrics) did not
pass; rule criteria come first, the judges' (`judge.*`) after. `--failed` keeps what Review's
"failures only" keeps: a failed rule, or a conversation that errored.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from sage_desk.cli._common import OK, fail, output_width
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store

HEADERS = ("conversation", "case", "agent", "repeat", "ending", "failed verdicts")


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", metavar="RUN_ID", help="default: the latest run")
    parser.add_argument("--failed", action="store_true", help="only conversations with a failed rule, or that errored")
    parser.add_argument("--case", metavar="CASE_ID", action="append", help="only this case (repeatable)")
    parser.add_argument("--agent", metavar="MODEL", action="append", help="only this agent, by spec or display name (repeatable)")
    parser.add_argument(
        "--format",
        choices=["text", "json", "ids"],
        default="text",
        help="text: a table fitted to the terminal; json: every failed verdict; ids: one id a line",
    )
    add_db_option(parser)
    parser.set_defaults(handler=run)


def listing(
    store: Store, run_id: str, cases: list[str] | None = None, agents: list[str] | None = None, failed_only: bool = False
) -> list[dict[str, Any]]:
    """The run's conversations (in case, agent, repeat order) as plain records, narrowed as asked.

    A case or agent the run does not have is a SageError naming the ones it has (a typo, not an empty list).
    """
    from sage_desk.core.agents.display import names_for_runs
    from sage_desk.core.store.browse import BrowseFilter

    table = store.conversation_table(run_id)
    names = names_for_runs([store.get_run(run_id).config], dict.fromkeys(table.agents))
    by_name = {name: spec for spec, name in names.items()}
    agents = [by_name.get(a, a) for a in agents] if agents else agents  # an agent by its display name too
    _check_known(run_id, "case", cases, table.case_ids)
    _check_known(run_id, "agent", agents, table.agents)
    rows = table.filter(BrowseFilter(failures_only=failed_only))
    if cases:
        rows = [r for r in rows if table.case_ids[r] in cases]
    if agents:
        rows = [r for r in rows if table.agents[r] in agents]
    errored = any(table.statuses[r] == "errored" for r in rows)
    errors = {c.id: c.error for c in store.conversations(run_id, status="errored")} if errored else {}
    return [
        {
            "id": table.ids[r],
            "run": run_id,
            "case": table.case_ids[r],
            "agent": table.agents[r],
            "agent_name": names[table.agents[r]],
            "repeat": table.repeats[r],
            "bucket": table.buckets[r] or None,
            "status": table.statuses[r],
            "ending": table.endings[r],
            "failed": _rules_first(table.failing[r]),
            "error": errors.get(table.ids[r]),
        }
        for r in rows
    ]


def _rules_first(criteria: tuple[str, ...]) -> list[str]:
    """Failed criteria once each, the rules' before the judges'."""
    unique = list(dict.fromkeys(criteria))
    return [c for c in unique if not c.startswith("judge")] + [c for c in unique if c.startswith("judge")]


def _check_known(run_id: str, label: str, wanted: list[str] | None, column: list[str]) -> None:
    """Raise SageError naming the values of `wanted` that no conversation of the run has."""
    known = sorted(set(column))
    missing = [w for w in wanted or [] if w not in known]
    if missing:
        shown = ", ".join(known[:8]) + (f" ... ({len(known)} in all)" if len(known) > 8 else "")
        raise SageError(f"no {label} {', '.join(map(repr, missing))} in run {run_id} ({label}s: {shown or 'none'})")


def render_text(records: list[dict[str, Any]], width: int) -> str:
    """Aligned columns; the failed verdicts are cut to the width with how many more there are."""
    cells = [[r["id"], r["case"], r.get("agent_name") or r["agent"], str(r["repeat"]), r["ending"]] for r in records]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(HEADERS[:-1])]
    lines = ["  ".join(h.ljust(w) for h, w in zip(HEADERS, [*widths, 0], strict=True)).rstrip()]
    room = max(20, width - sum(widths) - 2 * len(widths))
    for record, row in zip(records, cells, strict=True):
        error = " ".join((record["error"] or "").split())  # one line, however the provider wrote it
        last = _cut(record["failed"], room) if record["status"] != "errored" else f"error: {error}"[:room]
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + "  " + last)
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _cut(failed: list[str], room: int) -> str:
    """`a, b, +3 more` within `room` characters (`-` when nothing failed); names are never cut, the first always shown."""
    if not failed:
        return "-"
    for keep in range(len(failed), 1, -1):
        more = len(failed) - keep
        text = ", ".join(failed[:keep]) + (f", +{more} more" if more else "")
        if len(text) <= room:
            return text
    return failed[0] + (f", +{len(failed) - 1} more" if len(failed) > 1 else "")


def run(args: argparse.Namespace) -> int:
    try:
        store = open_store(args)
        run_id = pick_run(store, args.run)
        records = listing(store, run_id, args.case, args.agent, failed_only=args.failed)
    except SageError as exc:
        return fail(str(exc))
    if args.format == "json":
        print(json.dumps(records, indent=2, ensure_ascii=False))
    elif args.format == "ids":
        print("".join(f"{r['id']}\n" for r in records), end="")
    else:
        print(render_text(records, output_width()), end="")
        failures = sum(1 for r in records if r["status"] == "errored" or any(not c.startswith("judge") for c in r["failed"]))
        from sage_desk.core.agents.display import legend

        names = {r["agent"]: r["agent_name"] for r in records}
        print(
            "".join(f"{line}\n" for line in legend(names))
            + f"{len(records)} conversation(s) of run {run_id}, {failures} with a failed rule or an error; "
            f"open one with: sage-desk show ID",
            file=sys.stderr,
        )
    return OK
