"""Fixtures for the team-review tests: a SQLite file store with a 40-conversation judged run."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from team_data import make_run

from sage_desk.core.store import Store


@pytest.fixture
def team(tmp_path: Path) -> Iterator[tuple[Store, list[str]]]:
    """A store holding one run of 40 judged conversations, and their ids."""
    with Store(f"sqlite:///{tmp_path / 'team.db'}") as store:
        yield store, make_run(store)
