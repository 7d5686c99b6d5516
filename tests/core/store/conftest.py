"""Fixtures for the store tests: a file database per test, and every backend we can reach."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sage_desk.core.store import Store

PG_URL = os.environ.get("SAGE_DESK_TEST_PG_URL")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh SQLite file database."""
    with Store(f"sqlite:///{tmp_path / 'runs.db'}") as s:
        yield s


def _pg_store() -> Store:
    from sqlalchemy import create_engine, text

    # A clean schema per test: drop everything, including alembic's version table.
    engine = create_engine(PG_URL)  # type: ignore[arg-type]
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    engine.dispose()
    return Store(PG_URL)


@pytest.fixture(params=["file", "memory", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """The same tests on a SQLite file, SQLite in memory, and PostgreSQL when configured."""
    if request.param == "postgresql":
        if not PG_URL:
            pytest.skip("set SAGE_DESK_TEST_PG_URL to test PostgreSQL")
        s = _pg_store()
    else:
        s = Store(f"sqlite:///{tmp_path / 'runs.db'}" if request.param == "file" else "sqlite://")
    with s:
        yield s


def _make_run(store: Store, n: int = 3, agents: tuple[str, ...] = ("openai/a",), run_id: str | None = None) -> str:
    convs = [
        {
            "id": f"{run_id or 'x'}-{agent}-c{i}",
            "case_id": f"case-{i}",
            "agent": agent,
            "repeat": 0,
            "bucket": "resolvable" if i % 2 else "adversarial",
        }
        for agent in agents
        for i in range(n)
    ]
    return store.create_run("northline", {"agents": list(agents), "repeats": 1}, convs, run_id=run_id)


@pytest.fixture
def make_run() -> Callable[..., str]:
    """`make_run(store, n=3, agents=("openai/a",), run_id=None)`: a run, conversations `<run>-<agent>-c<i>`."""
    return _make_run
