"""Fixtures for one domain's policy tests: each test module names its domain in `DOMAIN`."""

from __future__ import annotations

import pytest

from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain.loader import load_domain
from sage_desk.core.sop.paths import enumerate_paths


@pytest.fixture(scope="module")
def bundle(request):
    return load_domain(request.module.DOMAIN)


@pytest.fixture(scope="module")
def cases(bundle):
    return load_suite(bundle.cases_path)


@pytest.fixture(scope="module")
def paths(bundle):
    return enumerate_paths(bundle.graph)
