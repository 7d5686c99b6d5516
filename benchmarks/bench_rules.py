"""Rule-engine throughput over stored conversations (issue: verdicts and metrics).

Stores an offline baseline run of Northline, then reads, verdicts and stores the verdicts of
10,000 conversations (cycling over the stored ones) and prints the time (target < 10 s).

    python benchmarks/bench_rules.py [--conversations 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import tempfile
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain import load_domain
from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.batch import verdict_stored
from sage_desk.core.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=10_000)
    args = parser.parse_args()
    bundle = load_domain("northline")
    cases = {c.id: c for c in load_suite(bundle.cases_path)}
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{tmp}/bench.db")
        runner = Runner(store)  # no post hook: the verdicts are what we time
        spec = RunSpec(domain="northline", agents=["baseline:oracle", "baseline:complier", "baseline:escalator"])
        run_id = runner.create(spec)
        asyncio.run(runner.execute(run_id))
        stored = store.conversations(run_id=run_id)
        todo = list(itertools.islice(itertools.cycle(stored), args.conversations))
        started = time.perf_counter()
        verdicts = 0
        for i in range(0, len(todo), len(stored)):  # each pass covers distinct conversations
            verdicts += verdict_stored(store, todo[i : i + len(stored)], cases, bundle)
        elapsed = time.perf_counter() - started
    print(
        f"rule engine: {args.conversations:,} stored conversations read, verdicted and written in {elapsed:.1f} s "
        f"({verdicts:,} verdicts; {elapsed / args.conversations * 1000:.2f} ms per conversation; target < 10 s)"
    )


if __name__ == "__main__":
    main()
