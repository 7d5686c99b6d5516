"""`sage-desk runs`: the runs in a database, newest first: id, domain, agents, conversations, status, created."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from sage_desk.cli._common import OK, fail, output_width
from sage_desk.cli._store import add_db_option, no_runs_hint, open_store
from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.core.store.records import RunRecord

HEADERS = ("run", "domain", "conversations", "status", "created", "agents")


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text: a table fitted to the terminal; json: every run with its agents' specs and names",
    )
    add_db_option(parser)
    parser.set_defaults(handler=run)


def record_of(run: RunRecord) -> dict[str, Any]:
    """One run as plain data: its agents by spec with their display names, and its conversations by status."""
    from sage_desk.core.agents.display import names_for_runs

    names = names_for_runs([run.config])
    return {
        "id": run.id,
        "domain": run.domain,
        "status": run.status.value,
        "created": run.created_at.isoformat(timespec="seconds"),
        "conversations": sum(run.counts.values()),
        "by_status": dict(sorted(run.counts.items())),
        "agents": [{"spec": spec, "name": name} for spec, name in names.items()],
        "imported": bool(run.config.get("imported")),
    }


def render_text(records: list[dict[str, Any]], width: int) -> str:
    """Aligned columns, the agents' names last: as many as fit the width, then how many more."""
    cells = [[r["id"], r["domain"], f"{r['conversations']:,}", _status(r), r["created"].replace("T", " ")[:16]] for r in records]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(HEADERS[:-1])]
    room = width - sum(widths) - 2 * len(widths)
    if room < 20:  # narrow: the day a run was made, without its time, leaves the agents more room
        for row in cells:
            row[4] = row[4][:10]
        room += widths[4] - max(len(HEADERS[4]), 10)
        widths[4] = max(len(HEADERS[4]), 10)
    lines = ["  ".join(h.ljust(w) for h, w in zip(HEADERS, [*widths, 0], strict=True)).rstrip()]
    for record, row in zip(records, cells, strict=True):
        names = [a["name"] for a in record["agents"]] or ["imported" if record["imported"] else "-"]
        # counts right-aligned, the rest left
        lines.append(
            "  ".join(c.rjust(w) if i == 2 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
            + "  "
            + _fit(names, room)
        )
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _fit(names: list[str], room: int) -> str:
    """`a, b, +3 more` within `room` characters, whole names only (the first always)."""
    for keep in range(len(names), 0, -1):
        more = len(names) - keep
        text = ", ".join(names[:keep]) + (f", +{more} more" if more else "")
        if len(text) <= room:
            return text
    return names[0] + (f" +{len(names) - 1}" if len(names) > 1 else "")  # the first name whole, however narrow


def _status(record: dict[str, Any]) -> str:
    """The run's status, with its errored conversations when some errored."""
    errored = record["by_status"].get("errored", 0)
    return f"{record['status']} ({errored} errored)" if errored and record["status"] != "failed" else record["status"]


def run(args: argparse.Namespace) -> int:
    try:
        store = open_store(args)
        records = [record_of(r) for r in store.list_runs()]
    except SageError as exc:
        return fail(str(exc))
    if args.format == "json":
        print(json.dumps(records, indent=2, ensure_ascii=False))
        return OK
    if not records:
        print(f"no runs yet in {store}; {no_runs_hint()}", file=sys.stderr)
        return OK
    print(render_text(records, output_width()), end="")
    print(f"{len(records)} run(s) in {store}; report one with: sage-desk report --run RUN_ID", file=sys.stderr)
    return OK
