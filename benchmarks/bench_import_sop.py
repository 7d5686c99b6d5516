"""How close a drafted graph comes to the hand-made one, per shipped domain (issue: from prose to graph).

For each domain under `sops/`, the domain's prose policy (`policy.md`, the file `domain.yaml`
names) is drafted into a graph by the configured model, exactly as `sage-desk import-sop` does,
and compared with the shipped `sop.yaml` through the diff's node matching (id first, then kind,
key, text and neighbours). Printed per domain: node precision/recall (a matched pair counts when
its kinds agree), edge precision/recall (one unit per decision value or plain step, through the
matching), steps flagged as having no domain tool, requests, tokens, cost and time. A domain
whose draft never validated is reported as failed, with its problems.

    SAGE_DESK_BENCH_MODEL=openai/gpt-4o-mini python benchmarks/bench_import_sop.py
    SAGE_DESK_BENCH_MODEL=openai/llama3.1 SAGE_DESK_BENCH_API_BASE=http://localhost:11434/v1 \\
        python benchmarks/bench_import_sop.py --domain northline --attempts 3

With no model configured it prints "skipped: no model configured" and exits 0 (it never calls a
network on its own). Keys come from the environment or the keyring, as for every command.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from sage_desk.core.errors import SageError
from sage_desk.core.locations import resolve_domain_dir, shipped_domains
from sage_desk.core.sop.diff import Agreement, agreement
from sage_desk.core.sop.extract import DraftOptions, draft_graph, load_domain_context
from sage_desk.core.sop.io import load_graph

MODEL_ENV, API_BASE_ENV = "SAGE_DESK_BENCH_MODEL", "SAGE_DESK_BENCH_API_BASE"


def _policy_and_graph(folder: Path) -> tuple[str, Any]:
    """The domain's prose policy and its shipped graph (file names as domain.yaml gives them)."""
    from sage_desk.core.domain.model import Domain
    from sage_desk.core.yamlsafe import load_file, read_text

    declared = Domain.model_validate(load_file(folder / "domain.yaml").data)
    return read_text(folder / declared.policy), load_graph(folder / declared.sop)


async def bench_domain(folder: Path, options: DraftOptions, client: Any = None) -> dict[str, Any]:
    """Draft one domain's policy and score the draft against its shipped graph."""
    text, reference = _policy_and_graph(folder)
    domain = load_domain_context(folder)
    started = time.perf_counter()
    try:
        result = await draft_graph(text, domain, options, client=client)
    except SageError as exc:
        return {"domain": folder.name, "error": str(exc), "seconds": time.perf_counter() - started}
    return {
        "domain": folder.name,
        "agreement": agreement(result.graph, reference),
        "unmatched": len(result.unmatched),
        "requests": result.requests,
        "tokens": result.tokens,
        "cost": result.cost_usd,
        "seconds": time.perf_counter() - started,
    }


def _row(name: str, a: Agreement, rest: str) -> str:
    return (
        f"{name:<11} {a.draft_nodes:>3}/{a.reference_nodes:<3} {a.node_precision:>7.2f} {a.node_recall:>7.2f} "
        f"{a.draft_edges:>3}/{a.reference_edges:<3} {a.edge_precision:>7.2f} {a.edge_recall:>7.2f} {rest}"
    )


def report(rows: list[dict[str, Any]], model: str) -> None:
    """Print the table and the means over the domains that drafted."""
    print(f"model: {model}")
    print(
        f"{'domain':<11} {'nodes':>7} {'node P':>7} {'node R':>7} {'edges':>7} {'edge P':>7} {'edge R':>7} "
        f"{'no tool':>7} {'req':>4} {'tokens':>7} {'cost $':>7} {'sec':>6}"
    )
    for row in rows:
        if "error" in row:
            first = row["error"].splitlines()
            print(f"{row['domain']:<11} failed after {row['seconds']:.1f}s: {first[0]}")
            for line in first[1:6]:
                print(f"{'':<11} {line.strip()}")
            continue
        rest = f"{row['unmatched']:>7} {row['requests']:>4} {row['tokens']:>7} {row['cost']:>7.4f} {row['seconds']:>6.1f}"
        print(_row(row["domain"], row["agreement"], rest))
    scored = [r["agreement"] for r in rows if "agreement" in r]
    if scored:
        means = [
            statistics.mean(getattr(a, k) for a in scored)
            for k in ("node_precision", "node_recall", "edge_precision", "edge_recall")
        ]
        print(
            f"{'mean':<11} {'':>7} {means[0]:>7.2f} {means[1]:>7.2f} {'':>7} {means[2]:>7.2f} {means[3]:>7.2f} "
            f"({len(scored)} of {len(rows)} domains drafted)"
        )


async def run(folders: list[Path], options: DraftOptions, client: Any = None) -> list[dict[str, Any]]:
    """Every domain, one after the other (a rate-limited provider stays within its limits)."""
    return [await bench_domain(folder, options, client) for folder in folders]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", action="append", metavar="NAME", help="a domain name or folder (default: every shipped one)")
    parser.add_argument("--attempts", type=int, default=3, help="requests per draft, repairs included")
    args = parser.parse_args(argv)
    model = os.environ.get(MODEL_ENV, "").strip()
    if not model:
        print("skipped: no model configured")
        return 0
    folders = [resolve_domain_dir(d) for d in args.domain] if args.domain else shipped_domains()
    options = DraftOptions(model=model, api_base=os.environ.get(API_BASE_ENV) or None, max_attempts=args.attempts)
    report(asyncio.run(run(folders, options)), model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
