"""`sage-desk paths SOP.yaml`: every start-to-end path with its assignments and outcome."""

from __future__ import annotations

import argparse
import json
import sys

from sage_desk.cli._common import OK, PROBLEMS, print_problems
from sage_desk.core.errors import InputError, SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sop", metavar="SOP.yaml", help="a graph file (or a domain folder)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.set_defaults(handler=run)


def _describe(action: dict) -> str:
    if "tool" in action:
        args = ", ".join(f"{k}={v}" for k, v in action.get("args", {}).items())
        return f"{action['tool']}({args})"
    return f"say: {action['say']}"


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.locations import resolve_domain_dir
    from sage_desk.core.sop.io import load_graph_located
    from sage_desk.core.sop.paths import enumerate_paths
    from sage_desk.core.sop.validate import validate_graph

    target = args.sop
    folder = resolve_domain_dir(target)
    if folder.is_dir() and not target.endswith((".yaml", ".yml")):
        target = str(folder / "sop.yaml")
    try:
        graph, located = load_graph_located(target)
        paths = enumerate_paths(graph)
    except InputError as exc:
        print_problems(exc.problems)
        return PROBLEMS
    except SageError as exc:
        print(f"{target}: {exc}", file=sys.stderr)
        return PROBLEMS
    problems = validate_graph(graph, located, file=target)
    if problems:
        print(f"warning: {target} has {len(problems)} problem(s); run `sage-desk validate {target}`", file=sys.stderr)
    if args.format == "json":
        print(json.dumps([p.to_json() for p in paths], indent=2, ensure_ascii=False))
        return OK
    for p in paths:
        print(f"{p.id}  ->  {p.outcome}")
        if p.assignments:
            print(
                "    when:    " + ", ".join(f"{k}={'|'.join(v) if isinstance(v, list) else v}" for k, v in p.assignments.items())
            )
        if p.actions:
            print("    actions: " + "; ".join(_describe(a) for a in p.actions))
    print(f"{len(paths)} path(s)")
    return OK
