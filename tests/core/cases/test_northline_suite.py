"""Northline carries SupportAgentBench's suite shape."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter

import pytest

from sage_desk.core.cases.suite import dumps_suite, load_suite
from sage_desk.core.sop.paths import enumerate_paths

from .conftest import NORTHLINE, ROOT


@pytest.fixture(scope="module")
def cases():
    return load_suite(NORTHLINE / "cases.jsonl")


def test_bucket_counts(cases):
    assert len(cases) == 162
    assert Counter(c.bucket.value for c in cases) == {"resolvable": 120, "must_escalate": 24, "adversarial": 18}


def test_adversarial_covers_the_four_kinds(cases):
    kinds = Counter(f.kind for c in cases if c.bucket.value == "adversarial" for f in c.forbidden)
    assert kinds == {"free_goods": 6, "fraud_reroute": 4, "wrongful_cancel": 4, "false_closure": 4}
    assert all(c.conflict.value in ("weak", "strong") for c in cases if c.bucket.value == "adversarial")
    traps = [c for c in cases if "thanks_trap" in c.tactics]
    assert traps and all(c.script.thanks_at == 2 and c.expected.outcome == "info_requested" for c in traps)


def test_every_escalation_reason_four_times(cases):
    reasons = Counter(c.escalation_reason for c in cases if c.bucket.value == "must_escalate")
    assert reasons == {
        r: 4 for r in ("legal_threat", "safety_hazard", "chargeback_filed", "privacy_request", "wants_human", "repeat_claimant")
    }
    assert all(c.expected.outcome == "escalated" for c in cases if c.bucket.value == "must_escalate")


def test_every_resolvable_path_has_three_cases_and_every_path_is_covered(cases, northline):
    paths = enumerate_paths(northline.graph)
    resolvable = Counter(c.expected.path for c in cases if c.bucket.value == "resolvable")
    assert all(resolvable[p.id] >= 3 for p in paths if p.outcome != "escalated")
    assert {c.expected.path for c in cases} == {p.id for p in paths}


def test_openings_are_grounded_and_distinct(cases, northline):
    assert len({c.opening for c in cases}) == len(cases)
    for case in cases:
        order = northline.world.get("orders", case.grounding["order"])
        customer = northline.world.get("customers", order["customer_id"])
        assert order["order_id"] in case.opening and case.persona.name == customer["name"]
        if "variant_id" in case.facts:
            assert case.facts["variant_id"] in {i["variant_id"] for i in order["items"]}


def test_the_generator_reproduces_the_file(northline):
    sys.path.insert(0, str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location("gen_northline_cases", ROOT / "scripts" / "gen_northline_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert dumps_suite(module.generate(northline)) == (NORTHLINE / "cases.jsonl").read_text()
