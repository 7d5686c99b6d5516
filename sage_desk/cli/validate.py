"""`sage-desk validate PATH...`: graphs, domains and case suites; every problem located."""

from __future__ import annotations

import argparse
from pathlib import Path

from sage_desk.cli._common import OK, PROBLEMS, print_problems
from sage_desk.core.errors import InputError, Problem
from sage_desk.core.locations import resolve_domain_dir


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="a domain folder or name (northline), a sop.yaml, a domain.yaml or a cases.jsonl")
    parser.set_defaults(handler=run)


def problems_for(target: str) -> list[Problem]:
    """Every problem of one path, whatever kind of file or folder it is."""
    from sage_desk.core.sop.io import load_graph_located
    from sage_desk.core.sop.validate import validate_graph

    path = Path(target)
    folder = resolve_domain_dir(target)
    if folder.is_dir() and (path.is_dir() or not path.exists() or path.name == "domain.yaml"):
        return _domain_problems(folder)
    if not path.exists():
        return [Problem(target, 1, 1, "no such file or folder (and no shipped domain of that name)")]
    if path.suffix == ".jsonl":
        return _suite_problems(path)
    try:
        graph, located = load_graph_located(path)
    except InputError as exc:
        return exc.problems
    return validate_graph(graph, located, file=str(path))


def _domain_problems(folder: Path) -> list[Problem]:
    from sage_desk.core.domain.loader import validate_domain

    problems = validate_domain(folder)
    if problems:
        return problems
    return _suite_problems(folder / "cases.jsonl", missing_ok=True)


def _suite_problems(path: Path, missing_ok: bool = False) -> list[Problem]:
    try:
        from sage_desk.core.cases.suite import validate_suite_file
    except ImportError:  # the case-suite module arrives with the cases issue
        return []
    if missing_ok and not path.exists():
        return []
    return validate_suite_file(path)


def run(args: argparse.Namespace) -> int:
    worst = OK
    for target in args.paths:
        problems = problems_for(target)
        if problems:
            print_problems(problems)
            worst = PROBLEMS
        else:
            print("ok" if len(args.paths) == 1 else f"{target}: ok")
    return worst
