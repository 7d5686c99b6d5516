"""`sage-desk synthesize DOMAIN --per-path N --seed S [--strategy S]`: a case suite from a domain's graph.

`--strategy` is SAGE's case selection: path-coverage (every path, the default), intent-balanced
(the same number of cases spread evenly over the intent field's values) or mixed (every path once,
the rest intent-balanced); see sage_desk/core/cases/synthesize.py.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from sage_desk.cli._common import OK, PROBLEMS, fail, print_problems
from sage_desk.core.errors import InputError

DEFAULT_NAME = "cases.synth.jsonl"
STRATEGIES = ("path-coverage", "intent-balanced", "mixed")  # sage_desk.core.cases.synthesize.STRATEGIES, not imported at start-up


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("domain", metavar="DOMAIN", help="a domain folder or the name of a shipped one (northline)")
    parser.add_argument("--per-path", type=int, default=1, metavar="N", help="cases per path (default 1)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed; the same seed writes the same bytes")
    parser.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default="path-coverage",
        help="case selection: path-coverage (default: N cases per path), intent-balanced (as many "
        "cases spread evenly over the intents) or mixed (every path once, the rest intent-balanced)",
    )
    parser.add_argument(
        "--out", metavar="FILE", help=f"where to write (default: DOMAIN/{DEFAULT_NAME}; never cases.jsonl unless named)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.cases.suite import save_suite
    from sage_desk.core.cases.synthesize import synthesize
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.sop.paths import enumerate_paths

    if args.per_path < 1:
        return fail("--per-path must be at least 1", code=2)
    try:
        bundle = load_domain(args.domain)
    except InputError as exc:
        print_problems(exc.problems)
        return PROBLEMS
    result = synthesize(bundle, per_path=args.per_path, seed=args.seed, strategy=args.strategy)
    out = Path(args.out) if args.out else bundle.dir / DEFAULT_NAME
    save_suite(result.cases, out)
    buckets = Counter(c.bucket.value for c in result.cases)
    covered = len({c.expected.path for c in result.cases})
    total = len(enumerate_paths(bundle.graph))
    print(f"wrote {len(result.cases)} cases to {out}")
    print("  " + ", ".join(f"{b}: {buckets.get(b, 0)}" for b in ("resolvable", "must_escalate", "adversarial")))
    print(f"  paths covered: {covered} of {total}" + ("" if args.strategy == "path-coverage" else f" ({args.strategy})"))
    for path_id, why in result.skipped.items():
        print(f"  not covered: {path_id}: {why}")
    return OK if not result.skipped else PROBLEMS
