"""`sage-desk run` and `rejudge` with a name nobody registered: one line, exit 2, no run left behind."""

from __future__ import annotations

import pytest
from helpers import run_args

from sage_desk.cli import main
from sage_desk.core.store import Store


@pytest.mark.parametrize(
    "names, says",
    [
        (["--agent", "baseline:nope"], "unknown baseline agent 'baseline:nope' (known: baseline:oracle"),
        (
            ["--agent", "baseline:oracle", "--judge", "baseline:nope"],
            "unknown baseline judge 'baseline:nope' (known: baseline:heuristic)",
        ),
        (["--agent", "baseline:oracle", "--user", "baseline:nope"], "unknown customer 'baseline:nope' (known: scripted)"),
        # neither ours nor a provider/model name litellm could route: every call would fail
        (["--agent", "baseline:oracle", "--judge", "nope:judge"], "unknown model 'nope:judge'"),
        (["--agent", "oracle:v2"], "unknown model 'oracle:v2'"),
    ],
)
def test_an_unknown_name_is_refused_before_a_run_exists(tmp_path, capsys, names, says):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    code = main(["run", "--db", db, "--domain", "northline", "--cases", "nl-001", "--quiet", *names])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [f"sage-desk: {err.strip().removeprefix('sage-desk: ')}"]  # one line
    assert says in err and "Traceback" not in err
    assert not (tmp_path / "runs.db").exists() or Store(db).list_runs() == []


def test_rejudge_refuses_an_unknown_judge(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    assert main(run_args(db, "baseline:oracle", cases="nl-001")) == 0
    capsys.readouterr()
    assert main(["rejudge", "--db", db, "--judge", "baseline:nope"]) == 2
    assert "unknown baseline judge 'baseline:nope'" in capsys.readouterr().err


def test_a_model_name_for_the_users_own_server_is_theirs_to_choose():
    from sage_desk.core.engine.runner import RunSpec
    from sage_desk.core.session import check_spec

    # an OpenAI-compatible server (Ollama's /v1, vLLM) names its models as it likes: llama3:8b
    check_spec(RunSpec(domain="northline", agents=["llama3:8b"], api_base="http://127.0.0.1:11434/v1"))
    check_spec(RunSpec(domain="northline", agents=["ollama/llama3:8b"], judges=["none"]))
