"""Every domain folder shipped under sops/ loads, validates with no problems, and has a case suite
that validates and covers every path of its graph. The list is read from the folder, never
hard-coded, so a new domain is checked the moment its folder lands."""

from __future__ import annotations

import pytest

from sage_desk.core.cases.suite import load_suite, load_suite_entries, validate_suite
from sage_desk.core.domain.loader import load_domain, validate_domain
from sage_desk.core.locations import shipped_domains
from sage_desk.core.sop.paths import enumerate_paths

DOMAINS = shipped_domains()


def test_the_shipped_domains_are_found():
    names = {d.name for d in DOMAINS}
    assert {"northline", "logistics", "property"} <= names


@pytest.mark.parametrize("folder", DOMAINS, ids=[d.name for d in DOMAINS])
def test_domain_validates_and_its_suite_covers_every_path(folder):
    assert validate_domain(folder) == []
    bundle = load_domain(folder)
    assert bundle.name == folder.name, "domain.yaml's name must match its folder, or `--domain NAME` finds nothing"
    assert bundle.cases_path.is_file(), f"{folder.name} has no case suite"
    assert validate_suite(load_suite_entries(bundle.cases_path), bundle, str(bundle.cases_path)) == []
    covered = {c.expected.path for c in load_suite(bundle.cases_path)}
    missing = [p.id for p in enumerate_paths(bundle.graph) if p.id not in covered]
    assert missing == [], f"{folder.name}: paths with no case: {missing}"
