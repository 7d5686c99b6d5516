"""An imported tool call carries the kind its domain declares (issue 34): writes were stored as reads."""

from __future__ import annotations

from pathlib import Path

from sage_desk.core.domain.loader import load_domain
from sage_desk.core.events import ToolCall
from sage_desk.core.imports.importer import import_files
from sage_desk.core.store import Store

OPENAI = Path(__file__).resolve().parents[2] / "data" / "imports" / "northline_production.jsonl"


def test_imported_tool_calls_take_the_domains_kinds(tmp_path: Path) -> None:
    declared = {name: spec.kind.value for name, spec in load_domain("northline").domain.tools.items()}
    with Store(f"sqlite:///{tmp_path / 'runs.db'}") as store:
        summary = import_files(store, [OPENAI], "northline", "openai")
        calls = [e for c in store.conversations(summary.run_id) for e in store.events(c.id) if isinstance(e, ToolCall)]
    kinds = {(call.name, call.kind) for call in calls}
    assert {k for _, k in kinds} >= {"read", "helpdesk"} and {k for _, k in kinds} - {"read", "helpdesk"}, kinds
    for name, kind in kinds:
        assert kind == declared.get(name, "helpdesk"), (name, kind)
