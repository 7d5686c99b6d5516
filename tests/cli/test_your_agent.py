"""Issue 33: your own agent through each way in (Python, HTTP, MCP) gives the verdicts its behaviour
earns, the same as the built-in baseline playing that behaviour; a prompt file is what the model got.

Labelled before running: the oracle follows every case's expected path, so every rule verdict of the
oracle behind Python, HTTP or MCP must equal the built-in oracle's, criterion by criterion (all of them
passing where the oracle passes them); the reckless agent does whatever the customer asks, so it must
fail exactly where the built-in complier fails (it commits the unsafe acts of the adversarial cases).
"""

from __future__ import annotations

import pytest
from agents_under_test import AgentServer

from sage_desk.cli import main
from sage_desk.core.store import Store

# Two cases of each bucket: a refund the policy allows, must-escalate ones, adversarial ones the
# reckless agent gets wrong.
CASES = "nl-001,nl-002,nl-121,nl-122,nl-145,nl-146"


def _run(db: str, *agent_args: str) -> str:
    code = main(["run", "--db", db, "--domain", "northline", "--cases", CASES, "--repeats", "1", "--quiet", *agent_args])
    assert code == 0
    return Store(db).list_runs()[0].id if len(Store(db).list_runs()) == 1 else Store(db).latest_run_id()


def _verdicts(db: str, run_id: str) -> dict[tuple[str, str], bool]:
    store = Store(db)
    out = {}
    for convo in store.conversations(run_id):
        assert convo.status == "finished", (convo.case_id, convo.error)
        for v in store.verdicts(conversation_id=convo.id):
            if v.source == "rules":
                out[(convo.case_id, v.criterion)] = v.passed
    return out


@pytest.fixture(scope="module")
def baselines(tmp_path_factory):
    db = f"sqlite:///{tmp_path_factory.mktemp('base') / 'runs.db'}"
    oracle = _run(db, "--agent", "baseline:oracle")
    complier = _run(db, "--agent", "baseline:complier")
    return _verdicts(db, oracle), _verdicts(db, complier)


def test_the_baselines_differ_on_these_cases(baselines):
    oracle, complier = baselines
    assert all(oracle.values()), "the oracle passes every rule on its own expected path"
    assert {k for k, v in complier.items() if not v} - {k for k, v in oracle.items() if not v}, (
        "the reckless behaviour must fail somewhere the oracle does not, or this test proves nothing"
    )


@pytest.mark.parametrize(("factory", "which"), [("oracle", 0), ("reckless", 1)])
def test_a_python_agent_gets_the_verdicts_of_its_behaviour(tmp_path, baselines, factory, which):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    run_id = _run(db, "--agent", f"python:agents_under_test:{factory}")
    assert _verdicts(db, run_id) == baselines[which]


@pytest.mark.parametrize(("baseline", "which"), [("oracle", 0), ("complier", 1)])
def test_an_http_agent_gets_the_verdicts_of_its_behaviour(tmp_path, baselines, baseline, which):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with AgentServer(baseline) as agent:
        run_id = _run(db, "--agent", agent.url)
    assert _verdicts(db, run_id) == baselines[which]
    first = agent.requests[0]
    assert set(first) == {"conversation_id", "messages", "tools"}
    assert first["messages"][0]["role"] == "system" and first["messages"][1]["role"] == "user"
    assert {"lookup_order", "close_ticket"} <= {t["function"]["name"] for t in first["tools"]}


@pytest.mark.parametrize(("baseline", "which"), [("oracle", 0), ("complier", 1)])
def test_an_agent_with_its_own_mcp_tool_layer_gets_the_verdicts_of_its_behaviour(tmp_path, baselines, baseline, which):
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.toolserver import ToolServer

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with ToolServer(load_domain("northline")) as tools, AgentServer(baseline, mcp=True) as agent:
        run_id = _run(db, "--agent", agent.url, "--tools-server", tools.url)
    assert _verdicts(db, run_id) == baselines[which]
    assert all("tool_calls" not in r for r in agent.requests)  # it answered in text; its calls went through MCP
    store = Store(db)
    convo = next(c for c in store.conversations(run_id) if c.case_id == "nl-001")
    calls = [e for e in store.events(convo.id) if e.type == "tool_call"]
    assert calls and [c.call_id for c in calls] == [f"mcp_{i}" for i in range(1, len(calls) + 1)]  # the server's, in order
