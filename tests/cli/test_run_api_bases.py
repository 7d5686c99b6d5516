"""Each role's model calls go where the run says: --api-base for all, --user-api-base and --judge-api-base per role."""

from __future__ import annotations

from fakes import FakeOpenAIServer, FakeReply, FakeToolCall
from helpers import run_args

from sage_desk.cli import main
from sage_desk.core.engine.runner import RunSpec
from sage_desk.core.store import Store


def test_a_role_takes_its_own_api_base_else_the_runs():
    spec = RunSpec(domain="northline", agents=["openai/a"], api_base="http://local:11434/v1")
    assert [spec.api_base_for(r) for r in ("agent", "user", "judge")] == ["http://local:11434/v1"] * 3
    spec.user_api_base, spec.judge_api_base = "http://other:8000/v1", "default"
    assert [spec.api_base_for(r) for r in ("agent", "user", "judge")] == ["http://local:11434/v1", "http://other:8000/v1", None]
    assert RunSpec(domain="northline", agents=["openai/a"]).api_base_for("judge") is None
    assert RunSpec.from_config(spec.to_config()).api_base_for("judge") is None  # it survives the stored config (resume)


def _agent(request):
    """Reply once, then close the ticket."""
    if any(m["role"] == "assistant" for m in request["messages"]):
        return [FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "answered"})]
    return FakeReply("Your order is on its way.")


def test_agent_customer_and_judge_calls_reach_three_different_servers(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with (
        FakeOpenAIServer(_agent) as agent,
        FakeOpenAIServer(lambda r: "Thanks, that is all.") as customer,
        FakeOpenAIServer(lambda r: "not a verdict") as judge,
    ):
        code = main(
            run_args(
                db,
                "openai/agent-model",
                user="openai/customer-model",
                judge="openai/judge-model",
                cases="nl-001",
                repeats=None,
                extra=["--api-base", agent.base_url, "--user-api-base", customer.base_url, "--judge-api-base", judge.base_url],
            )
        )
        assert code == 0
        assert {r["model"] for r in agent.requests} == {"agent-model"}
        assert {r["model"] for r in customer.requests} == {"customer-model"}
        assert {r["model"] for r in judge.requests} == {"judge-model"}
    store = Store(db)
    (run,) = store.list_runs()
    assert (run.config["user_api_base"], run.config["judge_api_base"]) == (customer.base_url, judge.base_url)
