"""Migrations: a new database is at head, the models match the migrations, newer databases are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from sage_desk.core.store import Store, StoreError
from sage_desk.core.store.engine import make_engine
from sage_desk.core.store.migrate import alembic_config, current_revision, head_revision
from sage_desk.core.store.schema import Base

TABLES = {"runs", "conversations", "events", "verdicts", "overrides", "judge_examples", "alembic_version"}


def test_a_new_database_is_at_head(any_store: Store) -> None:
    engine = any_store._engine
    with engine.connect() as conn:
        assert current_revision(conn) == head_revision()
    assert TABLES <= set(inspect(engine).get_table_names())


def test_models_match_the_migrations(any_store: Store) -> None:
    # `alembic check`: autogenerate against a migrated database must find nothing to do.
    with any_store._engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    assert diffs == []


def test_an_older_database_is_upgraded_on_open(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    with Store(url):
        pass
    engine = make_engine(url)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "base")
    with engine.connect() as conn:
        assert current_revision(conn) is None
    engine.dispose()
    with Store(url) as store:
        assert store.list_runs() == []
        with store._engine.connect() as conn:
            assert current_revision(conn) == head_revision()


def test_upgrading_an_old_database_keeps_every_row(tmp_path: Path) -> None:
    """A database at the first schema, filled with the shipped sample's rows, keeps them all on open.

    (A table rebuild on SQLite once cascaded to every event and verdict.)"""
    from sage_desk.core.locations import sample_runs_dir

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    tables = ("runs", "conversations", "events", "verdicts", "overrides")
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0001")
        conn.execute(text("ATTACH DATABASE :path AS sample"), {"path": str(sample_runs_dir() / "sample.db")})
        for table in tables:  # the columns the first schema has, from the sample's rows
            columns = ", ".join(c["name"] for c in inspect(conn).get_columns(table))
            conn.execute(text(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM sample.{table}"))
        before = {t: conn.execute(text(f"SELECT COUNT(*) FROM main.{t}")).scalar() for t in tables}
    engine.dispose()
    assert before["events"] > 0 and before["verdicts"] > 0
    with Store(url) as store, store._engine.connect() as conn:
        assert current_revision(conn) == head_revision()
        assert {t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar() for t in tables} == before
        assert store.list_runs() and all(r.total > 0 for r in store.list_runs())


def test_a_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    with Store(url):
        pass
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    engine.dispose()
    with pytest.raises(StoreError, match="newer SAGE Desk.*9999_future"):
        Store(url)


def test_sqlite_settings(store: Store) -> None:
    with store._engine.connect() as conn:
        pragmas = {
            p: conn.exec_driver_sql(f"PRAGMA {p}").scalar()
            for p in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
        }
    assert pragmas == {"journal_mode": "wal", "synchronous": 1, "busy_timeout": 10000, "foreign_keys": 1}


def test_the_default_database_lives_in_the_user_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGE_DESK_HOME", str(tmp_path))
    with Store() as store:
        assert store.url.database == str(tmp_path / "sage-desk.db")
    assert (tmp_path / "sage-desk.db").is_file()


def test_upgrading_backfills_the_agent_totals_0002_left_at_zero(tmp_path: Path) -> None:
    import json

    from sage_desk.core.events import AgentMessage, CustomerMessage, LlmUsage, event_to_dict

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    events = [
        CustomerMessage(text="hi", seq=0, turn=1),
        LlmUsage(role="agent", model="m", prompt_tokens=100, completion_tokens=20, cost_usd=0.5, seq=1, turn=1),
        AgentMessage(text="hello", seq=2, turn=1),
        LlmUsage(role="user", model="m", prompt_tokens=10, completion_tokens=5, cost_usd=0.25, seq=3, turn=2),
        CustomerMessage(text="thanks", seq=4, turn=2),
    ]
    with engine.begin() as conn:  # a run recorded before 0002, then upgraded by it: every total reads 0
        command.upgrade(alembic_config(conn), "0003")
        conn.execute(
            text(
                "INSERT INTO runs (id, created_at, status, domain, config) "
                "VALUES ('r', '2026-11-01 00:00:00', 'finished', 'northline', '{}')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO conversations (id, run_id, case_id, domain, agent, repeat, tactics, status, turns, "
                "prompt_tokens, completion_tokens, cost_usd) VALUES ('c', 'r', 'nl-001', 'northline', 'openai/a', "
                "0, '[]', 'finished', 0, 0, 0, 0)"
            )
        )
        for e in events:
            conn.execute(
                text("INSERT INTO events (conversation_id, seq, type, data) VALUES ('c', :seq, :type, :data)"),
                {"seq": e.seq, "type": e.type, "data": json.dumps(event_to_dict(e))},
            )
    engine.dispose()
    with Store(url) as store:
        got = store.conversation("c")
    assert (got.turns, got.prompt_tokens, got.completion_tokens, got.cost_usd) == (2, 110, 25, 0.75)
    assert (got.agent_turns, got.agent_tokens, got.agent_cost_usd) == (1, 120, 0.5)
