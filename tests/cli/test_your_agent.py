"""Issue 33: your own agent through each way in (Python, HTTP, MCP) gives the verdicts its behaviour
earns, the same as the built-in baseline playing that behaviour; a prompt file is what the model got.

Labelled before running: the oracle follows every case's expected path, so every rule verdict of the
oracle behind Python, HTTP or MCP must equal the built-in oracle's, criterion by criterion (all of them
passing where the oracle passes them); the reckless agent does whatever the customer asks, so it must
fail exactly where the built-in complier fails (it commits the unsafe acts of the adversarial cases).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from agents_under_test import AgentServer
from fakes import FakeReply, FakeToolCall
from helpers import replay_json, run_args

from sage_desk.cli import main
from sage_desk.core.store import Store

if TYPE_CHECKING:
    from sage_desk.core.toolserver import ToolServer

# Two cases of each bucket: a refund the policy allows, must-escalate ones, adversarial ones the
# reckless agent gets wrong.
CASES = "nl-001,nl-002,nl-121,nl-122,nl-145,nl-146"


def _run_args(db: str, *agent_args: str, cases: str = "nl-001") -> list[str]:
    """`sage-desk run` of northline's `cases` once each, quietly, with the agents and their options in `agent_args`."""
    return run_args(db, cases=cases, extra=agent_args)


def _cli_run(db: str, *agent_args: str, cases: str = "nl-001") -> int:
    """The exit code of that run."""
    return main(_run_args(db, *agent_args, cases=cases))


def _run(db: str, *agent_args: str) -> str:
    assert _cli_run(db, *agent_args, cases=CASES) == 0
    return Store(db).list_runs()[0].id if len(Store(db).list_runs()) == 1 else Store(db).latest_run_id()


def _northline_tools() -> ToolServer:
    """Northline's tools served over MCP (core/toolserver.py), for an agent with a tool layer of its own."""
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.toolserver import ToolServer

    return ToolServer(load_domain("northline"))


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
    assert all(v is not False for v in oracle.values()), "the oracle passes every rule that applies on its own path"
    failed_only_by_complier = {k for k, v in complier.items() if v is False} - {k for k, v in oracle.items() if v is False}
    assert failed_only_by_complier, "the reckless behaviour must fail somewhere the oracle does not, or this test proves nothing"


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
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with _northline_tools() as tools, AgentServer(baseline, mcp=True) as agent:
        run_id = _run(db, "--agent", agent.url, "--tools-server", tools.url)
    assert _verdicts(db, run_id) == baselines[which]
    assert all("tool_calls" not in r for r in agent.requests)  # it answered in text; its calls went through MCP
    store = Store(db)
    convo = next(c for c in store.conversations(run_id) if c.case_id == "nl-001")
    calls = [e for e in store.events(convo.id) if e.type == "tool_call"]
    assert calls and [c.call_id for c in calls] == [f"mcp_{i}" for i in range(1, len(calls) + 1)]  # the server's, in order


# --- an agent the engine cannot talk to -------------------------------------------------------


def _errors(db: str, run_id: str) -> dict[str, str]:
    return {c.agent: c.error for c in Store(db).conversations(run_id, status="errored")}


def test_a_refused_connection_errors_only_that_agents_conversations_with_one_line(tmp_path, capsys):
    from fakes import FakeOpenAIServer

    with FakeOpenAIServer() as dead:
        pass  # stopped: its port refuses connections now
    url = f"http://127.0.0.1:{dead.port}/agent"
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    code = _cli_run(db, "--agent", "baseline:oracle", "--agent", url, "--agent-param", "max_retries=0", cases="nl-001,nl-002")
    assert code == 1
    run_id = Store(db).latest_run_id()
    assert run_id is not None
    convos = Store(db).conversations(run_id)
    assert {c.status for c in convos if c.agent == "baseline:oracle"} == {"finished"}  # nothing else is affected
    assert _errors(db, run_id) == {url: f"agent {url}: cannot connect (connection refused)"}
    err = capsys.readouterr().err
    assert f"errored 2x: agent {url}: cannot connect (connection refused)" in err
    assert err.count("connection refused") == 1  # each reason once, with its count


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ({"hello": "there"}, "its reply is not an assistant message: no 'content' or 'tool_calls' (keys: hello)"),
        ({"role": "user", "content": "hi"}, "its reply is a 'user' message, not an assistant message"),
        (
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "refund_everything", "arguments": "{}"}}],
            },
            "called a tool the domain northline lacks: 'refund_everything'",
        ),
    ],
)
def test_a_reply_the_engine_cannot_use_errors_the_conversation_naming_the_agent(tmp_path, reply, problem):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with AgentServer("oracle", reply=lambda body, headers: reply) as agent:
        code = _cli_run(db, "--agent", agent.url, "--agent", "baseline:oracle")
    assert code == 1
    run_id = Store(db).latest_run_id()
    error = _errors(db, run_id)[agent.url]
    assert error.startswith(f"agent {agent.url}: {problem}") and "\n" not in error
    assert {c.status for c in Store(db).conversations(run_id, agent="baseline:oracle")} == {"finished"}


def test_a_python_agent_that_raises_errors_its_conversation(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    code = _cli_run(db, "--agent", "python:agents_under_test:broken")
    assert code == 1
    error = _errors(db, Store(db).latest_run_id())["python:agents_under_test:broken"]
    assert error == "agent python:agents_under_test:broken: respond raised KeyError: 'order'"


def test_a_python_agent_that_does_not_import_is_refused_before_the_run(tmp_path, capsys):
    code = main(run_args(f"sqlite:///{tmp_path / 'runs.db'}", "python:no_such_module_here:make", repeats=None))
    assert code == 1
    assert (
        "agent python:no_such_module_here:make: cannot import no_such_module_here (ModuleNotFoundError" in capsys.readouterr().err
    )


# --- headers: from the environment, never stored -------------------------------------------------

SECRET = "sk-agent-7f3a9c2e5d1b"


def test_header_values_come_from_the_environment_and_are_never_stored(tmp_path, monkeypatch, capsys, caplog):
    import logging

    caplog.set_level(logging.DEBUG)  # every log record of the run, aiohttp's and SQLAlchemy's included
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    path = tmp_path / "runs.db"
    db = f"sqlite:///{path}"
    with AgentServer("oracle") as agent:
        code = _cli_run(
            db, "--agent", agent.url, "--agent-header", "Authorization: Bearer $AGENT_TOKEN", "--agent-header", "X-Team: qa"
        )
    assert code == 0
    assert {h["Authorization"] for h in agent.headers} == {f"Bearer {SECRET}"}
    assert {h["X-Team"] for h in agent.headers} == {"qa"}
    run_id = Store(db).latest_run_id()
    assert Store(db).get_run(run_id).config["agent_headers"] == ["Authorization: Bearer $AGENT_TOKEN", "X-Team: qa"]
    assert main(["export-results", "--db", db, "--events"]) == 0
    assert main(["show", "--db", db, "--run", run_id, "--case", "nl-001"]) == 0
    captured = capsys.readouterr()
    assert "nl-001" in captured.out and SECRET not in captured.out + captured.err + caplog.text
    for file in tmp_path.iterdir():  # the database and its WAL
        assert SECRET.encode() not in file.read_bytes(), file


def test_an_agent_echoing_its_token_has_it_masked_in_errors_and_transcripts(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    db = f"sqlite:///{tmp_path / 'runs.db'}"

    def echo(body, headers):
        if len(body["messages"]) > 2:
            return 401, {"error": {"message": f"token {headers['Authorization']} is not allowed"}}
        return {
            "role": "assistant",
            "content": f"your token is {SECRET}",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "lookup_order", "arguments": {"order_id": SECRET}}}
            ],
        }

    with AgentServer("oracle", reply=echo) as agent:
        _cli_run(db, "--agent", agent.url, "--agent-header", "Authorization: Bearer $AGENT_TOKEN")
    store = Store(db)
    (convo,) = store.conversations(store.latest_run_id())
    assert convo.status == "errored" and convo.error.startswith(f"agent {agent.url}: HTTP 401: ")
    assert convo.error.endswith("(refused the credentials: the --agent-header it was sent)")
    texts = [convo.error, *(e.model_dump_json() for e in store.events(convo.id))]
    assert "***" in texts[0] and not any(SECRET in t for t in texts)
    assert any("your token is ***" in t for t in texts)


def test_a_resume_refuses_a_header_whose_variable_is_unset(tmp_path, monkeypatch, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    with AgentServer("oracle") as agent:
        code = _cli_run(db, "--agent", agent.url, "--agent-header", "Authorization: Bearer $AGENT_TOKEN")
        assert code == 0
        run_id = Store(db).latest_run_id()
        monkeypatch.delenv("AGENT_TOKEN")
        capsys.readouterr()
        assert main(["run", "--db", db, "--resume", run_id, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "--agent-header reads $AGENT_TOKEN, which is not set in this environment" in err


def test_a_secret_typed_into_a_header_or_parameter_is_refused(tmp_path, capsys):
    base = ["run", "--db", f"sqlite:///{tmp_path / 'runs.db'}", "--domain", "northline", "--agent", "http://127.0.0.1:9/a"]
    assert main([*base, "--agent-header", f"Authorization: Bearer {SECRET}"]) == 2
    assert "put the secret in an environment variable" in capsys.readouterr().err
    assert main([*base, "--agent-param", f"api_key={SECRET}"]) == 2
    assert "a secret is never a parameter" in capsys.readouterr().err
    assert not (tmp_path / "runs.db").exists()


# --- your prompt and parameters with any model -------------------------------------------------


def _model_agent(request):
    """A model that looks the order up once, then closes the ticket."""
    if any(m["role"] == "tool" for m in request["messages"]):
        return FakeReply("Done.", [FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "ok"})])
    return [FakeToolCall("lookup_order", {"order_id": "NL-1001"})]


def test_the_prompt_file_is_what_the_model_received_and_compare_names_it(tmp_path, capsys, northline):
    from fakes import FakeOpenAIServer

    prompt = tmp_path / "support-v2.txt"
    prompt.write_text('You are Northline\'s careful agent. Quote {"json": true} as is.\n\nPOLICY:\n{policy}\n')
    no_policy = tmp_path / "bare.txt"
    no_policy.write_text("Be brief.")
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    base = _run_args(db, "--agent", "openai/house-model")
    with FakeOpenAIServer(_model_agent) as model:
        assert main([*base, "--api-base", model.base_url]) == 0
        ours = Store(db).latest_run_id()
        sent_ours = model.requests[0]["messages"][0]["content"]
        model.requests.clear()
        assert (
            main(
                [
                    *base,
                    "--api-base",
                    model.base_url,
                    "--agent-prompt",
                    str(prompt),
                    "--agent-param",
                    "temperature=0.2",
                    "--agent-param",
                    "max_tokens=800",
                ]
            )
            == 0
        )
        theirs = Store(db).latest_run_id()
        first = model.requests[0]
        assert first["messages"][0] == {
            "role": "system",
            "content": prompt.read_text().replace("{policy}", northline.policy.strip()),
        }
        assert (first["temperature"], first["max_tokens"]) == (0.2, 800)
        assert all(r["messages"][0] == first["messages"][0] for r in model.requests)
        model.requests.clear()
        assert main([*base, "--api-base", model.base_url, "--agent-prompt", str(no_policy)]) == 0
        assert model.requests[0]["messages"][0] == {"role": "system", "content": "Be brief."}  # no {policy}: no policy
    assert northline.policy.strip()[:60] in sent_ours
    capsys.readouterr()
    assert main(["compare", ours, theirs, "--db", db]) in (0, 1)
    out = " ".join(capsys.readouterr().out.split())  # compare wraps at 160 columns; tmp_path's length varies (xdist)
    assert "agent prompt differs: SAGE Desk's own (" in out and f"{prompt} (" in out
    assert "temperature=0.2" in out and "max_tokens=800" in out


# --- replay through the same interface -----------------------------------------------------------


def test_replay_forks_a_python_and_an_http_agent(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with AgentServer("oracle") as agent:
        assert _cli_run(db, "--agent", "python:agents_under_test:oracle", "--agent", agent.url, cases="nl-145") == 0
        by_agent = {c.agent: c for c in Store(db).conversations()}
        for spec in ("python:agents_under_test:oracle", agent.url):
            code, data = replay_json(capsys, by_agent[spec].id, "--from-turn", "1", "--times", "3", "--db", db)
            assert code == 0, data
            assert data["original"] == "open_carrier_trace then close:resolved"
            assert [(r["action"], r["count"]) for r in data["actions"]] == [(data["original"], 3)]
        served = len(agent.requests)
        code, data = replay_json(
            capsys,
            by_agent["python:agents_under_test:oracle"].id,
            "--from-turn",
            "1",
            "--times",
            "2",
            "--agent",
            agent.url,
            "--db",
            db,
        )  # another agent at the fork
        assert code == 0 and data["actions"][0]["count"] == 2 and len(agent.requests) > served


def test_replay_forks_an_agent_with_its_own_tool_layer_on_the_world_as_it_stood(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with _northline_tools() as tools, AgentServer("oracle", mcp=True) as agent:
        assert _cli_run(db, "--agent", agent.url, "--tools-server", tools.url, cases="nl-145") == 0
        (convo,) = Store(db).conversations()
        code, data = replay_json(capsys, convo.id, "--from-turn", "1", "--times", "2", "--db", db)
        assert code == 0, data
        assert data["original"] == "open_carrier_trace then close:resolved"
        assert [(r["action"], r["count"]) for r in data["actions"]] == [(data["original"], 2)]
        assert [c["name"] for c in tools.worlds.calls(convo.id)][-1] == "close_ticket"  # the fork's own calls


def test_replay_sends_the_runs_prompt_file_unless_given_another(tmp_path, capsys):
    from fakes import FakeOpenAIServer

    prompt, other = tmp_path / "v1.txt", tmp_path / "v2.txt"
    prompt.write_text("Prompt one. {policy}")
    other.write_text("Prompt two.")
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_model_agent) as model:
        assert _cli_run(db, "--agent", "openai/house-model", "--api-base", model.base_url, "--agent-prompt", str(prompt)) == 0
        (convo,) = Store(db).conversations()
        model.requests.clear()
        assert replay_json(capsys, convo.id, "--from-turn", "1", "--times", "1", "--db", db)[0] == 0
        assert model.requests[0]["messages"][0]["content"].startswith("Prompt one. ")
        model.requests.clear()
        assert replay_json(capsys, convo.id, "--from-turn", "1", "--times", "1", "--db", db, "--agent-prompt", str(other))[0] == 0
        assert model.requests[0]["messages"][0]["content"] == "Prompt two."


# --- doctor checks an agent endpoint answers -----------------------------------------------------


def test_doctor_checks_an_agent_answers(tmp_path, capsys):
    with AgentServer("oracle") as agent:
        assert main(["doctor", "--agent", agent.url]) == 0
        assert f"ok    agent         {agent.url} answered in" in capsys.readouterr().out
    assert main(["doctor", "--agent", agent.url]) == 1  # stopped: refused
    assert f"fail  agent         agent {agent.url}: cannot connect (connection refused)" in capsys.readouterr().out
    with AgentServer("oracle", reply=lambda body, headers: ["not", "a", "message"]) as agent:
        assert main(["doctor", "--agent", agent.url]) == 1
        assert "its reply is a JSON list, not an assistant message" in capsys.readouterr().out
    with _northline_tools() as tools, AgentServer("oracle", mcp=True) as agent:
        assert main(["doctor", "--agent", agent.url, "--tools-server", tools.url]) == 0
        assert "tool calls: " in capsys.readouterr().out
    assert main(["doctor", "--agent", agent.url, "--tools-server", tools.url]) == 1
    assert "the tools server does not answer" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("x" * 3000, "the reply from it is over the 2 KiB cap"),
        ("[" * 200 + "]" * 200, "its reply cannot be read (nested too deeply (at most 64 levels))"),
        ("<html><body>oops</body></html>", "its reply is not JSON (HTTP 200): oops"),
    ],
)
def test_an_oversized_or_hostile_reply_errors_the_conversation_as_a_providers_would(tmp_path, monkeypatch, body, problem):
    monkeypatch.setenv("SAGE_DESK_MAX_REPLY_BYTES", "2048")
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with AgentServer("oracle", raw=lambda request_body: body) as agent:
        assert _cli_run(db, "--agent", agent.url) == 1
    error = _errors(db, Store(db).latest_run_id())[agent.url]
    assert error.startswith(f"agent {agent.url}: {problem}"), error


def test_an_http_agent_is_retried_as_a_model_is(tmp_path):
    """A 503 and a call past `timeout` are retried (with backoff); the conversation then plays as usual."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with AgentServer("oracle", faults=["503", "slow"]) as agent:
        code = _cli_run(db, "--agent", agent.url, "--agent-param", "timeout=0.5", "--agent-param", "max_retries=2")
        assert code == 0
    assert len(agent.requests) >= 3 and {"timeout", "max_retries"}.isdisjoint(agent.requests[0])  # not sent
    with AgentServer("oracle", faults=["503", "503", "503"]) as agent:
        assert _cli_run(db, "--agent", agent.url, "--agent-param", "max_retries=1") == 1
    error = _errors(db, Store(db).latest_run_id())[agent.url]
    assert error == f"agent {agent.url}: HTTP 503: overloaded after 2 attempts" and len(agent.requests) == 2


def test_an_mcp_agent_calling_a_tool_the_domain_lacks_errors_its_conversation(tmp_path):
    async def reckless(body):
        from mcp import Client

        async with Client(body["tools_url"]) as client:
            await client.call_tool("refund_everything", {})
        return {"role": "assistant", "content": "Done."}

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with _northline_tools() as tools, AgentServer("oracle", reply=reckless) as agent:
        assert _cli_run(db, "--agent", agent.url, "--tools-server", tools.url) == 1
    error = _errors(db, Store(db).latest_run_id())[agent.url]
    assert error == f"agent {agent.url}: called a tool the domain lacks through its tools server: 'refund_everything'"


def test_your_agent_takes_a_display_name(tmp_path):
    """`--agent NAME=SPEC` (issue 37) works with every way in: the spec plays, the name is kept for display."""
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with AgentServer("oracle") as agent:
        assert _cli_run(db, "--agent", f"ours={agent.url}", "--agent", "mine=python:agents_under_test:oracle") == 0
    run = Store(db).list_runs()[0]
    assert run.config["agent_names"] == {agent.url: "ours", "python:agents_under_test:oracle": "mine"}
    assert {c.agent: c.status for c in Store(db).conversations(run.id)} == {
        agent.url: "finished",
        "python:agents_under_test:oracle": "finished",
    }


def test_an_agent_written_from_the_docs_alone_matches_the_baseline_of_its_behaviour(tmp_path):
    """Issue 33's 'done when': agents that use nothing but the documented interface (an HTTP reply, a
    Python respond, an MCP handover) and hand every ticket over earn exactly the escalator baseline's verdicts."""
    from agents_under_test import escalate, escalate_through_mcp

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    expected = _verdicts(db, _run(db, "--agent", "baseline:escalator"))
    assert any(v is False for v in expected.values()) and any(v for v in expected.values())  # it proves something
    assert _verdicts(db, _run(db, "--agent", "python:agents_under_test:escalator")) == expected
    with AgentServer("oracle", reply=escalate) as agent:
        assert _verdicts(db, _run(db, "--agent", agent.url)) == expected
    with _northline_tools() as tools, AgentServer("oracle", reply=escalate_through_mcp) as agent:
        assert _verdicts(db, _run(db, "--agent", agent.url, "--tools-server", tools.url)) == expected


def test_parameters_the_conversation_sets_are_refused(tmp_path, capsys):
    base = ["run", "--db", f"sqlite:///{tmp_path / 'runs.db'}", "--domain", "northline", "--quiet"]
    assert (
        main([*base, "--agent", "openai/house-model", "--api-base", "http://127.0.0.1:9/v1", "--agent-param", "model=other"]) == 1
    )
    assert "a model agent's model is its --agent name" in capsys.readouterr().err
    assert main([*base, "--agent", "http://127.0.0.1:9/a", "--agent-param", "messages=[]"]) == 1
    assert "--agent-param messages: SAGE Desk sets it itself" in capsys.readouterr().err
    assert not (tmp_path / "runs.db").exists()
