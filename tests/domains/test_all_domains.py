"""Every domain folder shipped under sops/ loads, validates with no problems, and has a case suite
that validates and covers every path of its graph. The list is read from the folder, never
hard-coded, so a new domain is checked the moment its folder lands."""

from __future__ import annotations

import asyncio
from typing import get_args

import pytest

from sage_desk.core.agents.base import make_agent, make_customer
from sage_desk.core.cases.suite import load_suite, load_suite_entries, validate_suite
from sage_desk.core.domain.loader import load_domain, validate_domain
from sage_desk.core.domain.model import SageScenario
from sage_desk.core.engine.conversation import run_conversation
from sage_desk.core.engine.memory import MemoryRecorder
from sage_desk.core.engine.runner import RunSpec, load_cases
from sage_desk.core.errors import RunError
from sage_desk.core.locations import shipped_domains
from sage_desk.core.rules.engine import evaluate
from sage_desk.core.sop.paths import enumerate_paths

DOMAINS = shipped_domains()
PLAYED = [d for d in DOMAINS if not load_domain(d).domain.audit_only]
"""Domains with a world and a case suite; audit-only ones (tau_airline, tau_retail) are imported, never played."""
AUDITED = [d for d in DOMAINS if d not in PLAYED]


def test_the_shipped_domains_are_found():
    names = {d.name for d in DOMAINS}
    assert {"northline", "logistics", "property"} <= names


def test_six_shipped_domains_name_sages_six_scenarios():
    named = [load_domain(d).domain.sage_scenario for d in PLAYED]
    scenarios = [s for s in named if s is not None]
    assert sorted(scenarios) == sorted(get_args(SageScenario)), "each SAGE scenario once"


@pytest.mark.parametrize("folder", AUDITED, ids=[d.name for d in AUDITED])
def test_audit_only_domain_validates_and_refuses_to_play(folder):
    assert validate_domain(folder) == []
    bundle = load_domain(folder)
    assert bundle.name == folder.name, "domain.yaml's name must match its folder, or `--domain NAME` finds nothing"
    assert not bundle.cases_path.exists() and bundle.world.tables == {}, "audit-only: its facts come from the conversation"
    assert bundle.domain.unsafe_acts and all(a.whatever_path for a in bundle.domain.unsafe_acts)
    with pytest.raises(RunError, match="audit-only"):
        load_cases(bundle, RunSpec(domain=bundle.name, agents=["baseline:oracle"]))


@pytest.mark.parametrize("folder", PLAYED, ids=[d.name for d in PLAYED])
def test_domain_validates_and_its_suite_covers_every_path(folder):
    assert validate_domain(folder) == []
    bundle = load_domain(folder)
    assert bundle.name == folder.name, "domain.yaml's name must match its folder, or `--domain NAME` finds nothing"
    assert bundle.cases_path.is_file(), f"{folder.name} has no case suite"
    assert validate_suite(load_suite_entries(bundle.cases_path), bundle, str(bundle.cases_path)) == []
    covered = {c.expected.path for c in load_suite(bundle.cases_path)}
    missing = [p.id for p in enumerate_paths(bundle.graph) if p.id not in covered]
    assert missing == [], f"{folder.name}: paths with no case: {missing}"


def _sample(cases, n=10):
    """One case per (bucket, outcome) first, then an even spread over the suite."""
    picked, seen = [], set()
    for case in cases:
        key = (case.bucket, case.expected.outcome)
        if key not in seen:
            seen.add(key)
            picked.append(case)
    picked += [c for c in cases[:: max(1, len(cases) // n)] if c not in picked]
    return picked[:n]


def _verdicts(bundle, case, agent):
    recorder = MemoryRecorder()
    asyncio.run(run_conversation(case.id, case, bundle, make_agent(agent), make_customer("scripted"), recorder))
    return evaluate(case, bundle, recorder.events[case.id])


@pytest.mark.parametrize("folder", PLAYED, ids=[d.name for d in PLAYED])
def test_suite_has_every_bucket_and_conflict_level(folder):
    cases = load_suite(load_domain(folder).cases_path)
    assert len(cases) >= 60
    assert {c.bucket.value for c in cases} == {"resolvable", "must_escalate", "adversarial"}
    assert {c.conflict.value for c in cases} == {"zero", "weak", "strong"}


@pytest.mark.parametrize("folder", PLAYED, ids=[d.name for d in PLAYED])
def test_offline_oracle_scores_perfectly_on_a_sample(folder):
    bundle = load_domain(folder)
    for case in _sample(load_suite(bundle.cases_path)):
        failed = [(v.criterion, v.rationale) for v in _verdicts(bundle, case, "baseline:oracle") if v.passed is False]
        assert failed == [], (case.id, failed)


@pytest.mark.parametrize("folder", PLAYED, ids=[d.name for d in PLAYED])
def test_complier_fires_every_adversarial_trap(folder):
    bundle = load_domain(folder)
    traps = [c for c in load_suite(bundle.cases_path) if c.bucket.value == "adversarial"]
    for case in traps:
        fired = [
            v
            for v in _verdicts(bundle, case, "baseline:complier")
            if v.criterion.startswith("catastrophic.") and v.passed is False
        ]
        assert fired, case.id
