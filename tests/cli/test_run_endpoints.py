"""One run over several endpoints (issue 38): repeated --api-base, one replica failing for a while,
the per-endpoint cap, and what `report` says each endpoint did."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from fakes import FakeOpenAIServer, FakeReply, FakeToolCall
from helpers import own_pg_database, run_args

from sage_desk.cli import main
from sage_desk.core.store import Store


def _agent(request):
    """Reply once, then close the ticket: two completions a conversation."""
    if any(m["role"] == "assistant" for m in request["messages"]):
        return [FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "answered"})]
    return FakeReply("Your order is on its way.")


CASES = "nl-001,nl-002,nl-003,nl-004,nl-005,nl-006"


def test_two_endpoints_one_failing_for_a_while_every_conversation_finishes(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    # `flaky` answers 503 to the two requests it gets first, so it is out for 0.5-1 s (the client's first
    # back-off), then serves again; the run lasts about 2.4 s (96 completions, 4 at a time, 0.1 s each).
    with FakeOpenAIServer(_agent, latency=0.1, faults=["503"] * 2) as flaky, FakeOpenAIServer(_agent, latency=0.1) as steady:
        code = main(
            run_args(
                db,
                "openai/agent-model",
                cases=CASES,
                repeats=8,
                extra=["--api-base", flaky.base_url, "--api-base", steady.base_url, "--concurrency", "4"],
            )
        )
        assert code == 0
        served = {"flaky": len(flaky.requests), "steady": len(steady.requests)}
    store = Store(db)
    (run,) = store.list_runs()
    assert run.counts == {"finished": 48}
    assert run.config["api_base"] == f"{flaky.base_url},{steady.base_url}"
    assert served["flaky"] > 2 + 10 and served["steady"] > 10  # it served work once back, not only its failures

    capsys.readouterr()
    assert main(["report", "--db", db, "--format", "json"]) == 0
    endpoints = json.loads(capsys.readouterr().out)["endpoints"]
    assert set(endpoints) == {flaky.base_url, steady.base_url}
    assert endpoints[flaky.base_url]["errors"] == 2 and endpoints[flaky.base_url]["taken_out"] == 1
    assert endpoints[steady.base_url]["errors"] == 0 and endpoints[steady.base_url]["taken_out"] == 0
    assert {name: endpoints[s.base_url]["requests"] for name, s in (("flaky", flaky), ("steady", steady))} == served
    assert sum(e["requests"] - e["errors"] for e in endpoints.values()) == 96  # two answered completions a conversation
    assert endpoints[steady.base_url]["latency_ms"]["median"] >= 100  # the fake's 100 ms, measured by the client

    assert main(["report", "--db", db]) == 0
    text = capsys.readouterr().out
    assert f"endpoint {flaky.base_url}: {served['flaky']} requests, 2 errors, taken out 1x" in text


def test_endpoint_concurrency_caps_each_replica(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_agent, latency=0.05) as a, FakeOpenAIServer(_agent, latency=0.05) as b:
        code = main(
            run_args(
                db,
                "openai/agent-model",
                cases=CASES,
                repeats=2,
                extra=["--api-base", f"{a.base_url},{b.base_url}", "--concurrency", "8", "--endpoint-concurrency", "2"],
            )
        )
        assert code == 0
        assert 0 < a.max_in_flight <= 2 and 0 < b.max_in_flight <= 2
    assert Store(db).list_runs()[0].config["endpoint_concurrency"] == 2


def test_a_cap_below_one_is_a_usage_error(tmp_path, capsys):
    code = main(
        run_args(
            f"sqlite:///{tmp_path / 'r.db'}",
            "openai/x",
            repeats=None,
            quiet=False,
            extra=["--api-base", "http://127.0.0.1:9/v1", "--endpoint-concurrency", "0"],
        )
    )
    assert code == 2
    assert "--endpoint-concurrency must be at least 1" in capsys.readouterr().err


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A SQLite file, or a database of this test's own on the PostgreSQL test server (dropped after it:
    other tests on that server drop their schemas, so none is shared)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'runs.db'}"
        return
    url = os.environ.get("SAGE_DESK_TEST_PG_URL")
    if not url:
        pytest.skip("set SAGE_DESK_TEST_PG_URL to test PostgreSQL")
    with own_pg_database(url, "endpoints_") as own:
        yield own


def test_worker_processes_figures_add_up_in_the_run(db_url, capsys):
    # Each worker process keeps its own figures and adds them to the run in one transaction: none is lost.
    db = db_url
    with FakeOpenAIServer(_agent, latency=0.02) as a, FakeOpenAIServer(_agent, latency=0.02) as b:
        code = main(
            run_args(
                db,
                "openai/agent-model",
                cases=CASES,
                repeats=3,
                extra=["--api-base", a.base_url, "--api-base", b.base_url, "--concurrency", "6", "--workers", "2"],
            )
        )
        assert code == 0
        served = {a.base_url: len(a.requests), b.base_url: len(b.requests)}
    run_id = capsys.readouterr().out.split()[-1]
    assert main(["report", "--db", db, "--run", run_id, "--format", "json"]) == 0
    endpoints = json.loads(capsys.readouterr().out)["endpoints"]
    assert {url: f["requests"] for url, f in endpoints.items()} == served
    assert sum(served.values()) == 36 and min(served.values()) > 0  # 18 conversations, two completions each
