"""A small stored run (three baselines on Northline) shared by the export tests."""

from __future__ import annotations

import asyncio

import pytest

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store

# two resolvable (zero and weak conflict), two must-escalate, three adversarial traps
CASES = ["nl-001", "nl-003", "nl-121", "nl-122", "nl-145", "nl-146", "nl-147"]
AGENTS = ["baseline:oracle", "baseline:complier", "baseline:escalator"]


@pytest.fixture(scope="session")
def stored_run(tmp_path_factory):
    """(store, run_id) of a two-repeat baseline run with rule verdicts."""
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('export') / 'runs.db'}")
    runner = Runner(store, post=verdict_hook(store))
    run_id = runner.create(RunSpec(domain="northline", agents=AGENTS, cases=CASES, repeats=2))
    asyncio.run(runner.execute(run_id))
    return store, run_id


@pytest.fixture(scope="session")
def report(stored_run):
    """`build_report` over the stored run."""
    from sage_desk.cli.report import build_report

    store, run_id = stored_run
    return build_report(store, [run_id])
