"""Small helpers shared by tests (importable because tests/ is on sys.path)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager


def first_case(cases, **where):
    """The first case whose attributes match `where` (bucket, conflict ...)."""
    for case in cases.values():
        if all(getattr(case, k) == v or getattr(getattr(case, k), "value", None) == v for k, v in where.items()):
            return case
    raise LookupError(where)


def paths_calling(paths, tool):
    """Paths with an action calling `tool`."""
    return [p for p in paths if any(a.get("tool") == tool for a in p.actions)]


def wait_until(predicate, timeout=5.0, interval=0.01, message="the condition never held"):
    """Poll `predicate` until it returns something truthy and return that; fail with `message` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{message} (waited {timeout:g} s)")
        time.sleep(interval)  # the poll interval, for conditions nothing signals (another process, /proc, a file)


def replay_json(capsys, *args):
    """`sage-desk replay ARGS --format json`: its exit code and its JSON (or, when it failed, what it printed on stderr)."""
    import json

    from sage_desk.cli import main

    capsys.readouterr()
    code = main(["replay", *args, "--format", "json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else out.err)


@contextmanager
def own_pg_database(url: str, prefix: str) -> Iterator[str]:
    """The URL of a database of the caller's own on the PostgreSQL server at `url` (`prefix` and random hex),
    dropped after: other tests on that server drop their schemas, so none is shared."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"{prefix}{secrets.token_hex(6)}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def run_args(
    db: str,
    *agents: str,
    domain: str = "northline",
    cases: str | list[str] | None = None,
    repeats: int | None = 1,
    user: str | None = None,
    judge: str | None = None,
    quiet: bool = True,
    extra: tuple[str, ...] | list[str] = (),
) -> list[str]:
    """The argument list of `sage-desk run` on `db`: one `--agent` per agent, then only the options given, then `extra`
    (so the many CLI tests that start a run share one spelling instead of a dozen lines each)."""
    args = ["run", "--db", db, "--domain", domain]
    for agent in agents:
        args += ["--agent", agent]
    if user is not None:
        args += ["--user", user]
    if judge is not None:
        args += ["--judge", judge]
    if cases is not None:
        args += ["--cases", cases if isinstance(cases, str) else ",".join(cases)]
    if repeats is not None:
        args += ["--repeats", str(repeats)]
    if quiet:
        args.append("--quiet")
    return [*args, *extra]


def old_judged_run(url: str, conversation_ids: list[str], verdicts: list[tuple[str, str, bool, float | None]]) -> None:
    """A database at migration 0006 (before stored summaries) holding finished run 'x' with `conversation_ids`, the
    first judged with `verdicts` (source, criterion, passed, score) and its rules' outcome relabelled passed by 'ann'."""
    from alembic import command
    from sqlalchemy import create_engine, text

    from sage_desk.core.store.migrate import alembic_config

    engine = create_engine(url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0006")
        conn.execute(
            text(
                "INSERT INTO runs (id, created_at, status, domain, config) "
                "VALUES ('x', '2026-11-01 00:00:00', 'finished', 'northline', '{}')"
            )
        )
        for cid in conversation_ids:
            conn.execute(
                text(
                    "INSERT INTO conversations (id, run_id, case_id, domain, agent, repeat, tactics, status, "
                    "turns, prompt_tokens, completion_tokens, cost_usd, agent_turns, agent_tokens, agent_cost_usd) "
                    "VALUES (:cid, 'x', 'nl-001', 'northline', 'openai/a', 0, '[]', 'finished', 0, 0, 0, 0, 0, 0, 0)"
                ),
                {"cid": cid},
            )
        judged = conversation_ids[0]
        for source, criterion, passed, score in verdicts:
            conn.execute(
                text(
                    "INSERT INTO verdicts (conversation_id, source, criterion, passed, score, rationale, "
                    "unscored, details, created_at) VALUES (:cid, :source, :criterion, :passed, :score, '', 0, "
                    "'{}', '2026-11-01 00:00:00')"
                ),
                {"cid": judged, "source": source, "criterion": criterion, "passed": passed, "score": score},
            )
        conn.execute(
            text(
                "INSERT INTO overrides (conversation_id, criterion, source, original_passed, human_passed, "
                "reason, author, created_at, kind) VALUES (:cid, 'outcome', 'rules', 0, 1, '', 'ann', "
                "'2026-11-01 00:00:00', 'label')"
            ),
            {"cid": judged},
        )
    engine.dispose()
