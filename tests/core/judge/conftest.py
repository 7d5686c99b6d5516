"""Fixtures for the judge and calibration tests: one judged run made once, copied per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from calibration_data import fresh_store, judged_run_db

from sage_desk.core.store import Store


@pytest.fixture(scope="session")
def judged_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with one run judged by the heuristic judge (see calibration_data)."""
    return judged_run_db(tmp_path_factory.mktemp("calibration"))


@pytest.fixture(scope="session")
def unjudged_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same run with rule verdicts only (no judge)."""
    return judged_run_db(tmp_path_factory.mktemp("calibration-unjudged"), judge=False)


@pytest.fixture
def judged(judged_template: Path, tmp_path: Path) -> Iterator[Store]:
    """A private copy of the judged run."""
    with fresh_store(judged_template, tmp_path) as store:
        yield store
