"""tau-bench's published trajectory layout, built message by message for hand-made test conversations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sage_desk.cli import main


class Conversation:
    """A tau-bench trajectory built message by message (no tau data: every message is written by a test)."""

    def __init__(self, opening: str):
        self.traj: list[dict[str, Any]] = [{"role": "system", "content": "# Agent policy (summary)"}]
        self.calls = 0
        self.user(opening)

    def user(self, text: str) -> Conversation:
        self.traj.append({"role": "user", "content": text})
        return self

    def agent(self, text: str) -> Conversation:
        self.traj.append({"role": "assistant", "content": text})
        return self

    def call(self, name: str, args: dict[str, Any], result: Any, say: str | None = None) -> Conversation:
        self.calls += 1
        call_id = f"call_{self.calls}"
        self.traj.append(
            {
                "role": "assistant",
                "content": say,
                "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}],
            }
        )
        content = result if isinstance(result, str) else json.dumps(result)
        self.traj.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": content})
        return self


def audit(folder: Path, domain: str, conversations: dict[str, Conversation]) -> dict[str, dict[str, Any]]:
    """Import the conversations as one tau-bench file onto `domain` and return each one's exported record by name."""
    items = [
        {"task_id": i, "trial": 0, "reward": 1.0, "info": {}, "traj": conv.traj} for i, conv in enumerate(conversations.values())
    ]
    path = folder / "trajectories.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    db = f"sqlite:///{folder / 'runs.db'}"
    assert main(["import", str(path), "--format", "tau-bench", "--domain", domain, "--db", db]) == 0
    out = folder / "results.jsonl"
    assert main(["export-results", "--db", db, "--out", str(out)]) == 0
    by_id = {json.loads(line)["source_id"]: json.loads(line) for line in out.read_text().splitlines()}
    return {name: by_id[f"task{i}-t0"] for i, name in enumerate(conversations)}


KINDS = ("wrongful_cancel", "free_goods", "unlicensed_change", "payment_violation")  # both tau domains declare these


def assert_unsafe_acts(record: dict[str, Any], unsafe: set[str]) -> None:
    """The record found exactly `unsafe`, and settled every kind on it: failed where listed, passed elsewhere."""
    assert set(record["unsafe_acts"]) == unsafe
    for kind in KINDS:
        mark = verdict(record, f"catastrophic.{kind}")
        assert (mark["passed"], mark["unscored"]) == (kind not in unsafe, False), kind


def verdict(record: dict[str, Any], criterion: str) -> dict[str, Any]:
    """One criterion's exported verdict."""
    return next(v for v in record["verdicts"] if v["criterion"] == criterion)
