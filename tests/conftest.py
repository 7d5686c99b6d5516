"""Shared fixtures for the whole test tree.

`tests/` has no `__init__.py`, so pytest puts this folder on `sys.path` and `fakes` imports as a
top-level package.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

# Tests never read or write the person's own data folder (databases, settings, sample copies).
os.environ["SAGE_DESK_HOME"] = tempfile.mkdtemp(prefix="sage-desk-tests-")

import pytest
from fakes import FakeOpenAIServer
from fakes.memory_keyring import MemoryKeyring


def _own_pg_database() -> None:
    """Under pytest-xdist, point SAGE_DESK_TEST_PG_URL at a database of this worker's own on the same server.

    The PostgreSQL tests start each from an empty schema (DROP SCHEMA public CASCADE): two workers on
    one database would drop each other's tables mid-test. Test modules read the variable when imported,
    which is after this file. (xdist_group with --dist loadgroup would do, but pytest 9 ignores the
    node id xdist 3.8 rewrites to group tests.)
    """
    url, worker = os.environ.get("SAGE_DESK_TEST_PG_URL"), os.environ.get("PYTEST_XDIST_WORKER")
    if not url or not worker:
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    base = make_url(url)
    name = f"{base.database}_{worker}"
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            if not conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first():
                conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    os.environ["SAGE_DESK_TEST_PG_URL"] = base.set(database=name).render_as_string(hide_password=False)


_own_pg_database()


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server on 127.0.0.1, stopped when the test ends.

    Configure it inside the test: `fake_openai.script = ...`, `.latency = 0.01`,
    `.push_faults("429", "timeout")`, `.fault_rates = {"500": 0.1}`, `.hold_seconds = 1`.
    Point a client at `fake_openai.base_url` with `model="openai/<anything>"`.
    """
    with FakeOpenAIServer(hold_seconds=2.0) as server:
        yield server


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    """A fresh in-memory keyring, with no provider key in the environment."""
    import keyring

    from sage_desk.core.llm import secrets

    for provider in secrets.PROVIDERS:
        monkeypatch.delenv(provider.env_var, raising=False)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(scope="session")
def northline():
    """The shipped Northline domain, loaded once."""
    from sage_desk.core.domain import load_domain

    return load_domain("northline")


@pytest.fixture(scope="session")
def northline_cases(northline):
    """Northline's case suite by id."""
    from sage_desk.core.cases.suite import load_suite

    return {c.id: c for c in load_suite(northline.cases_path)}


# -- the suite's two speeds and its two processes (`./dev test --fast`, pytest-xdist) -----------------

SLOW_MODULES = (
    # end-to-end: real processes killed or locked, whole docs pages and sample runs replayed, the app
    # started in a child process. `./dev test` runs them; `./dev test --fast` leaves them out.
    "tests/docs/test_docs.py",
    "tests/test_sample_runs.py",
    "tests/cli/test_run_faults.py",
    "tests/core/engine/test_streaming.py",
    "tests/core/engine/test_workers.py",
    "tests/core/store/test_store_lost_locks.py",
    "tests/core/store/test_migrate_without_alembic.py",
    "tests/core/review/test_queue_postgres.py",
    "tests/gui/test_startup.py",
    "tests/gui/test_fits_screen.py",
)
SLOW_TESTS = (
    # seconds each in an otherwise quick module
    "test_doctor_never_opens_a_network_connection",
    "test_a_healthy_setup_passes_with_every_check_named",
    "test_upgrading_an_old_database_keeps_every_row",
    "test_a_write_waits_for_a_lock_another_process_holds_past_the_busy_timeout",
    # 7-10 s each in the full run of 17:05 (two processes, load 6)
    "test_http_and_mcp_agents_run_from_the_screen",
    "test_cancel_mid_run_leaves_it_resumable_and_resume_finishes_without_duplicates",
    "test_screenshots_write_one_png_per_screen",
    "test_runs_of_two_domains_are_never_pooled_into_one_row",
    "test_show_and_rejudge",
    "test_a_run_whose_owner_was_killed_is_taken_over_at_once",
    "test_a_second_resume_of_a_live_run_is_refused_and_nothing_is_played_twice",
    "test_three_joiners_one_killed_finish_every_conversation_once",
    "test_a_fast_offline_run_keeps_the_window_responsive_and_cancels_within_a_second",
)
EVERY_DOMAIN_TESTS = (
    # a whole suite played per shipped domain (10-30 s each under load): --fast keeps the smallest domain's
    "test_idle_agents_rank_below_the_oracle_and_a_realistic_agent",
    "test_every_mistake_is_an_act_the_rules_read",
    "test_oracle_reads_perfect_and_complier_trips_every_trap",
)
FAST_DOMAIN = "telecom"
PG_URL = os.environ.get("SAGE_DESK_TEST_PG_URL")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow end-to-end tests `slow` (./dev test --fast leaves them out), and run the files holding them first.

    ./dev test gives each file to one of two processes in collection order (xdist --dist loadfile): a
    minute-long file left for last keeps one process busy while the other idles, so the long files go
    first and the many quick ones fill in behind them (each file's own order is kept).
    """
    root = config.rootpath
    heavy: set[str] = set()
    for item in items:
        where = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else str(item.path)
        name = getattr(item, "originalname", item.name)
        domain = getattr(getattr(item, "callspec", None), "params", {}).get("domain")
        if where in SLOW_MODULES or name in SLOW_TESTS or (name in EVERY_DOMAIN_TESTS and domain != FAST_DOMAIN):
            item.add_marker(pytest.mark.slow)
            heavy.add(where)
    items.sort(key=lambda item: item.path.relative_to(root).as_posix() not in heavy if item.path.is_relative_to(root) else True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line saying why the PostgreSQL tests skipped, when they did."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not PG_URL and any("SAGE_DESK_TEST_PG_URL" in str(getattr(r, "longrepr", "")) for r in skipped):
        terminalreporter.write_line(
            "PostgreSQL tests skipped: SAGE_DESK_TEST_PG_URL names no server "
            "(start one with `export SAGE_DESK_TEST_PG_URL=$(.ci/postgres.sh /tmp/pg)`; CI does)"
        )
