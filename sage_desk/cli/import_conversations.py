"""`sage-desk import FILE... --domain D --format openai|tau-bench|tau2|events`: production conversations into a run."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from sage_desk.cli._common import OK, PROBLEMS, USAGE, fail, print_problems
from sage_desk.cli._store import add_db_option, open_store
from sage_desk.core.errors import InputError, SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="conversation logs")
    parser.add_argument("--domain", required=True, help="the SOP domain to place them on (a name under sops/ or a folder)")
    parser.add_argument(
        "--format",
        required=True,
        choices=["openai", "tau-bench", "tau2", "events"],
        help="openai: one {id, messages, metadata} per JSONL line; tau-bench: tau-bench's trajectory "
        "list (JSON); tau2: a tau2-bench results file or results folder (results.json + "
        "simulations/); events: our own records (export-results --events)",
    )
    parser.add_argument("--name", help="a name for the imported run (default: the first file's name)")
    parser.add_argument("--agent", help="the agent's name where the log does not give one (default: imported)")
    parser.add_argument(
        "--redact",
        nargs="?",
        const="",
        metavar="names,addresses",
        help="mask e-mail addresses, phone, card and IBAN numbers before storing; "
        "--redact names,addresses also masks people's names and street addresses (found by rule)",
    )
    parser.add_argument("--skip-bad", action="store_true", help="import the good conversations of a file with bad lines")
    parser.add_argument(
        "--extract",
        metavar="MODEL",
        help="a model that fills the slots the logs leave unknown, citing the message it read each in",
    )
    parser.add_argument("--api-base", metavar="URL", help="where the extractor's calls go (an OpenAI-compatible server)")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.imports.importer import import_files

    try:
        store = open_store(args)
        also = [k.strip() for k in (args.redact or "").split(",") if k.strip()]
        summary = import_files(
            store,
            args.files,
            args.domain,
            args.format,
            name=args.name,
            redact=args.redact is not None,
            redact_also=also,
            skip_bad=args.skip_bad,
            agent=args.agent,
            extract=args.extract,
            api_base=args.api_base,
        )
    except InputError as exc:
        print_problems(exc.problems)
        print("nothing imported: fix the lines above, or give --skip-bad to import the rest", file=sys.stderr)
        return PROBLEMS
    except SageError as exc:
        return fail(str(exc))
    except ValueError as exc:  # --redact naming a kind nobody masks
        return fail(str(exc), USAGE)
    err = sys.stderr
    print(f"read {summary.read} conversation(s)", file=err)
    for problem in summary.skipped:
        print(f"skipped: {problem}", file=err)
    if summary.duplicates:
        print(f"{len(summary.duplicates)} already imported (same content), left out", file=err)
    if args.redact is not None:
        print(f"masked: {summary.masked}", file=err)
    _warn_unknown_tools(summary.unknown_tools, summary.domain or args.domain, summary.unknown_in)
    if summary.run_id is None:
        print("nothing new to import", file=err)
        return OK
    print(
        f"imported {summary.imported}: {summary.placed} placed on one path of the graph, {summary.unplaced} with "
        "verdicts that need a slot (set it in Review or with `sage-desk set-slot`)",
        file=err,
    )
    if summary.provisional:
        print(
            f"{summary.provisional} with verdicts resting only on the agent's own tag: provisional until a reviewer "
            "sets the slot",
            file=err,
        )
    print(summary.run_id)
    return OK


def _warn_unknown_tools(unknown: Counter[str], domain: str, conversations: int) -> None:
    """Tool names the domain does not know, with their call counts: never silent (their verdicts are unscored)."""
    if not unknown:
        return
    names = ", ".join(f"{name} ({count})" for name, count in sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0])))
    plural = "tool name is not a tool" if len(unknown) == 1 else "tool names are not tools"
    print(
        f"warning: {len(unknown)} {plural} of domain {domain}: {names}; every verdict of the {conversations} "
        "conversation(s) calling them is unscored, not passed",
        file=sys.stderr,
    )
