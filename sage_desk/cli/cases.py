"""`sage-desk cases DOMAIN`: what a case suite holds (buckets, conflict, tactics, paths) and which paths it misses."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from sage_desk.cli._common import OK, PROBLEMS, print_problems
from sage_desk.core.errors import InputError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("domain", metavar="DOMAIN", help="a domain folder or the name of a shipped one (northline)")
    parser.add_argument("--suite", metavar="FILE", help="a suite file (default: the domain's cases.jsonl)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.set_defaults(handler=run)


def summary(cases: list, path_ids: list[str]) -> dict:
    """Counts by bucket, conflict, tactic, catastrophic kind and path, and the paths no case covers."""
    by_path = Counter(c.expected.path for c in cases)
    return {
        "cases": len(cases),
        "bucket": dict(Counter(c.bucket.value for c in cases)),
        "conflict": dict(Counter(c.conflict.value for c in cases)),
        "tactic": dict(sorted(Counter(t for c in cases for t in c.tactics).items())),
        "catastrophic_kind": dict(sorted(Counter(f.kind for c in cases for f in c.forbidden).items())),
        "path": {p: by_path.get(p, 0) for p in path_ids},
        "uncovered": [p for p in path_ids if not by_path.get(p)],
    }


def _print_table(info: dict) -> None:
    print(f"{info['cases']} case(s)")
    for key in ("bucket", "conflict", "catastrophic_kind", "tactic"):
        print(f"\n{key}:")
        for name, count in info[key].items():
            print(f"  {name:<45} {count:>4}")
    print("\npath:")
    for name, count in info["path"].items():
        print(f"  {name:<60} {count:>4}")
    print(f"\nuncovered paths: {', '.join(info['uncovered']) if info['uncovered'] else 'none'}")


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.cases.suite import load_suite
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.sop.paths import enumerate_paths

    try:
        bundle = load_domain(args.domain)
        cases = load_suite(Path(args.suite) if args.suite else bundle.cases_path)
    except InputError as exc:
        print_problems(exc.problems)
        return PROBLEMS
    info = summary(cases, [p.id for p in enumerate_paths(bundle.graph)])
    if args.format == "json":
        print(json.dumps(info, indent=2))
    else:
        _print_table(info)
    return OK
