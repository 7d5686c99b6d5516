"""A provider reply over the size cap ends its conversation with one line (issue 34): it is neither
stored nor sent back on the next turn, and it is not asked for again."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeOpenAIServer, FakeReply, FakeToolCall
from helpers import run_args

from sage_desk.cli import main
from sage_desk.core.store import Store

HUGE = 64 * 1024 * 1024


def _agent(size: int):
    """An agent whose first reply is `size` bytes (0: an ordinary one), then closes the ticket."""

    def reply(request):
        if any(m["role"] == "assistant" for m in request["messages"]):
            return [FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "answered"})]
        return FakeReply("x" * size if size else "Your order is on its way.")

    return reply


def _run(db: str, base_url: str, cases: str) -> int:
    return main(run_args(db, "openai/agent-model", cases=cases, extra=["--api-base", base_url]))


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_a_reply_over_the_cap_errors_its_conversation_in_one_line(tmp_path: Path, monkeypatch, capsys, transport) -> None:
    db_path = tmp_path / "runs.db"
    size = HUGE
    if transport == "litellm":  # litellm reads a reply whole before we see it: a smaller reply and cap make the point
        monkeypatch.setenv("SAGE_DESK_LLM_TRANSPORT", "litellm")
        monkeypatch.setenv("SAGE_DESK_MAX_REPLY_BYTES", str(256 * 1024))
        size = 1024 * 1024
    with FakeOpenAIServer(_agent(size)) as server:
        code = _run(f"sqlite:///{db_path}", server.base_url, "nl-001")
        asked = len(server.requests)
    assert code == 1
    with Store(f"sqlite:///{db_path}") as store:
        (run,) = store.list_runs()
        (conversation,) = store.conversations(run.id)
        events = store.events(conversation.id)
    assert conversation.status.value == "errored"
    assert "over the" in conversation.error and "cap" in conversation.error and "SAGE_DESK_MAX_REPLY_BYTES" in conversation.error
    assert "\n" not in conversation.error and len(conversation.error) < 400
    assert asked == 1, "a reply over the cap is not asked for again"
    assert not any("xxxxxxxx" in str(e) for e in events), "the reply was stored"
    assert db_path.stat().st_size + Path(f"{db_path}-wal").stat().st_size < 4 * 1024 * 1024
    assert "Traceback" not in capsys.readouterr().err


def test_replies_under_the_cap_are_untouched(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SAGE_DESK_MAX_REPLY_BYTES", str(64 * 1024))
    with FakeOpenAIServer(_agent(0)) as server:
        assert _run(f"sqlite:///{tmp_path / 'runs.db'}", server.base_url, "nl-001,nl-002") == 0
