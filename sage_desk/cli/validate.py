"""`sage-desk validate PATH...`: graphs, domains and case suites; every problem located."""

from __future__ import annotations

import argparse
from pathlib import Path

from sage_desk.cli._common import OK, PROBLEMS, print_problems
from sage_desk.core.errors import InputError, Problem
from sage_desk.core.locations import resolve_domain_dir


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="a domain folder or name (northline), a sop.yaml, a domain.yaml or a cases.jsonl"
    )
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
    tools, names = _domain_names(path.parent)
    return validate_graph(graph, located, tools=tools, expr_names=names, file=str(path), warnings=True)


def _domain_names(folder: Path) -> tuple[list[str] | None, list[str] | None]:
    """Tools and expression names of the domain a graph file sits in (None, None when there is none).

    Without them a lone sop.yaml could not report unknown tools or unknown names in arguments.
    A broken domain.yaml is left to `validate FOLDER`; the graph is then checked on its own.
    """
    from sage_desk.core.domain.loader import ARG_NAMES
    from sage_desk.core.domain.model import Domain
    from sage_desk.core.domain.tools import HELPDESK_TOOLS
    from sage_desk.core.yamlsafe import load_file

    if not (folder / "domain.yaml").is_file():
        return None, None
    try:
        domain = Domain.model_validate(load_file(folder / "domain.yaml").data)
    except (InputError, ValueError):
        return None, None
    return [*domain.tools, *HELPDESK_TOOLS], [*domain.context, *ARG_NAMES]


def _domain_problems(folder: Path) -> list[Problem]:
    from sage_desk.core.cases.suite import validate_domain_and_suite

    return validate_domain_and_suite(folder)  # with the suite its `cases:` names: the files a run reads


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
        print_problems(problems)
        if any(p.is_error for p in problems):
            worst = PROBLEMS
        else:
            warned = len(problems)
            ok = "ok" + (f" ({warned} warning{'s' * (warned != 1)})" if warned else "")
            print(ok if len(args.paths) == 1 else f"{target}: {ok}")
    return worst
