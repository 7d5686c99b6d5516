"""`sage-desk rejudge --run RUN_ID --judge MODEL`: re-score stored conversations, no re-run."""

from __future__ import annotations

import argparse
import asyncio
import sys

from sage_desk.cli._common import OK, fail, fail_error
from sage_desk.cli._store import add_db_option, open_store, pick_run
from sage_desk.core.errors import SageError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", metavar="RUN_ID", help="default: the latest run")
    parser.add_argument(
        "--judge", action="append", required=True, metavar="MODEL", help="a litellm model or baseline:heuristic, repeatable"
    )
    parser.add_argument("--api-base", metavar="URL")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--calibrated",
        action="store_true",
        help="give LLM judges the domain's saved calibration examples (from Calibrate) as few-shot examples",
    )
    add_db_option(parser)
    parser.set_defaults(handler=run)


def load_domain_name(domain: str) -> str:
    """The domain's name as the store keys examples by it (a run may name its domain by a path)."""
    from sage_desk.core.domain.loader import load_domain

    return load_domain(domain).name


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.judge.factory import make_judges
    from sage_desk.core.scoring.rejudge import rejudge
    from sage_desk.core.session import run_cases

    try:
        store = open_store(args)
        run_id = pick_run(store, args.run)
        options = {}
        if args.calibrated:
            from sage_desk.core.calibration.calibrate import saved_examples
            from sage_desk.core.session import run_spec

            domain = run_spec(store, run_id).domain
            options["examples"] = saved_examples(store, load_domain_name(domain))
            if not options["examples"]:
                return fail(
                    f"no saved calibration examples for {domain}: run Calibrate (Calibration screen or "
                    "`sage-desk calibration --calibrate MODEL`) first"
                )
        judges = make_judges(args.judge, api_base=args.api_base, **options)
        bundle, cases, _spec = run_cases(store, run_id)
        count = asyncio.run(rejudge(store, run_id, judges, bundle, cases, args.concurrency))
    except SageError as exc:
        return fail_error(exc)
    with_examples = f" and {len(options['examples'])} calibration example(s)" if options else ""
    print(
        f"re-judged {count} conversations of {run_id} with {', '.join(j.source for j in judges)}{with_examples}", file=sys.stderr
    )
    return OK
