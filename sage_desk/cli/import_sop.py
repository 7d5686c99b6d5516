"""`sage-desk import-sop TEXT --domain DIR --model MODEL --out draft.yaml`: draft a graph from prose.

The draft is written only when the model produced a graph that passes the graph's rules (after
up to `--attempts` requests, each carrying the previous answer's problems); every node's `cite`
holds the sentence of TEXT it came from. Steps the domain has no tool for are kept, listed as
unmatched, and reported as problems of the written file.

Exit codes: 0 a clean draft was written; 1 a draft was written with problems to look at
(unmatched tools), no draft could be made (nothing written), or TEXT or the domain is missing or
cannot be read (like every command's input files); 2 usage (bad arguments, --out exists without
--force).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from sage_desk.cli._common import OK, PROBLEMS, USAGE, fail, print_problems
from sage_desk.core.errors import InputError, SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", metavar="TEXT", help="the SOP as Markdown or plain text (.md, .txt)")
    parser.add_argument(
        "--domain", required=True, metavar="DIR", help="a domain folder or a shipped domain's name (its tools are matched)"
    )
    parser.add_argument("--model", required=True, metavar="MODEL", help="a litellm model, e.g. openai/gpt-4o-mini")
    parser.add_argument("--api-base", metavar="URL", help="OpenAI-compatible server for the model (Ollama, vLLM ...)")
    parser.add_argument("--out", required=True, metavar="FILE", help="where to write the drafted graph (YAML)")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    parser.add_argument("--attempts", type=int, default=3, metavar="N", help="requests per draft, repairs included (default 3)")
    parser.add_argument(
        "--section-chars",
        type=int,
        default=None,
        metavar="N",
        help="draft documents longer than this in sections (default 8000 characters)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.domain.declaration import load_domain_context
    from sage_desk.core.sop.extract import DraftOptions
    from sage_desk.core.sop.source import DEFAULT_SECTION_CHARS
    from sage_desk.core.yamlsafe import read_text

    out = Path(args.out)
    if out.exists() and not args.force:
        return fail(f"{out} exists; pass --force to overwrite it", USAGE)
    if args.attempts < 1 or (args.section_chars is not None and args.section_chars < 500):
        return fail("--attempts must be at least 1 and --section-chars at least 500", USAGE)
    try:
        text = read_text(args.text)
        domain = load_domain_context(args.domain)
    except InputError as exc:
        print_problems(exc.problems)
        return PROBLEMS
    options = DraftOptions(
        model=args.model,
        api_base=args.api_base,
        max_attempts=args.attempts,
        section_chars=args.section_chars or DEFAULT_SECTION_CHARS,
        title=f"Drafted from {Path(args.text).name}",
    )
    return _draft_and_write(text, domain, options, out)


def _draft_and_write(text, domain, options, out: Path) -> int:
    from sage_desk.core.sop.extract import draft_graph
    from sage_desk.core.sop.io import dump_graph, load_graph_located
    from sage_desk.core.sop.paths import enumerate_paths
    from sage_desk.core.sop.validate import validate_graph

    def progress(p) -> None:
        print(f"[{p.step + 1}/{p.steps}] {p.message}", file=sys.stderr)

    try:
        result = asyncio.run(draft_graph(text, domain, options, on_progress=progress))
    except SageError as exc:
        return fail(f"no draft written: {exc}")
    dump_graph(result.graph, out)
    graph, located = load_graph_located(out)
    problems = validate_graph(graph, located, tools=domain.tool_names, expr_names=domain.expr_names, file=str(out))
    try:
        paths = f", {len(enumerate_paths(graph))} paths"
    except SageError:
        paths = ""
    print(
        f"wrote {out}: {len(graph.nodes)} nodes, {len(graph.edges)} edges{paths} "
        f"({result.sections} section(s), {result.requests} request(s), {result.tokens} tokens, ${result.cost_usd:.4f})",
        file=sys.stderr,
    )
    for item in result.unmatched:
        print(
            f"unmatched action: node {item.node!r} calls {item.tool!r}, which {domain.name} has no tool for "
            f"(source: {item.cite!r})"
        )
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print_problems(problems)
    return PROBLEMS if problems or result.unmatched else OK
