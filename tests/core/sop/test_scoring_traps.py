"""Graphs that load but would score wrongly: `validate` warns, located, and loading still works."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sage_desk.cli import main
from sage_desk.core.domain import load_domain, validate_domain
from sage_desk.core.events import CustomerMessage, TicketClosed, TicketTagged, ToolCall
from sage_desk.core.rules.engine import evaluate

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def northline_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "nl"
    shutil.copytree(ROOT / "sops" / "northline", folder)
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


# Turn the read before Northline's PriorClaims decision into a mere utterance: the graph then
# decides on the customer's claims without ever looking the customer up.
UNREAD_OLD = '  tool: lookup_customer\n  args: {customer_id: "=order.customer_id"}\n'
UNREAD_NEW = "  say: Think about the customer's claims\n"


def warnings_of(folder: Path) -> list[str]:
    return [str(p) for p in validate_domain(folder) if not p.is_error]


def test_shipped_domains_have_no_scoring_trap():
    for name in ("northline", "banking", "telecom", "airline", "logistics", "property", "online_education", "ecommerce_refund"):
        assert validate_domain(name) == [], name


def test_a_system_decision_with_no_read_before_it_is_a_located_warning(northline_copy: Path):
    sop = northline_copy / "sop.yaml"
    _edit(sop, UNREAD_OLD, UNREAD_NEW)
    (warning,) = warnings_of(northline_copy)
    line = next(i for i, text in enumerate(sop.read_text().splitlines(), 1) if text == "- id: nr_claims") + 3
    assert warning.startswith(f"{sop}:{line}:") and "warning:" in warning
    assert "'PriorClaims'" in warning and "lookup_customer" in warning
    assert load_domain(northline_copy).graph.node("nr_claims") is not None  # a warning never stops loading


def test_a_classification_step_drawn_as_an_action_is_scored_as_classification(northline_copy: Path):
    sop = northline_copy / "sop.yaml"
    _edit(sop, "- {from: lookup, to: demand}", "- {from: lookup, to: classify}\n- {from: classify, to: demand}")
    _edit(
        sop,
        "- id: demand\n",
        "- id: classify\n  kind: action\n  label: Classify the request\n  tool: tag_ticket\n  pos: [0, 300]\n- id: demand\n",
    )
    (warning,) = warnings_of(northline_copy)
    assert "tag_ticket on the graph is read as the classification step" in warning
    bundle = load_domain(northline_copy)
    from sage_desk.core.cases.build import ground_truth
    from sage_desk.core.cases.suite import load_suite

    case = next(c for c in load_suite(northline_copy / "cases.jsonl") if c.id == "nl-001")
    case = case.model_copy(update={"expected": ground_truth(bundle, case)})
    assert [a.tool for a in case.expected.actions if a.tool] == ["lookup_order", "tag_ticket"]
    events = [
        CustomerMessage(text=case.opening),
        ToolCall(name="lookup_order", arguments={"order_id": case.grounding["order"]}),
        ToolCall(name="tag_ticket", arguments={"intent": case.truth["CoreDemand"]}, kind="helpdesk"),
        TicketTagged(intent=case.truth["CoreDemand"], slots={k: v for k, v in case.truth.items() if k != "CoreDemand"}),
        ToolCall(name="close_ticket", arguments={"outcome": "resolved", "summary": "ok"}, kind="helpdesk"),
        TicketClosed(outcome=case.expected.outcome),
    ]
    for i, e in enumerate(events):
        e.seq = i
    failed = [v.criterion for v in evaluate(case, bundle, events) if v.passed is False]
    assert failed == []  # the old engine read this as a missed step and a false closure


def test_a_graph_that_never_ends_short_of_resolved_warns_that_no_trap_can_be_made(tmp_path: Path, capsys):
    sop = tmp_path / "sop.yaml"
    sop.write_text(
        """\
version: 1
name: flat
fields:
  Want: {source: user, description: What they want, values: [info, human]}
nodes:
- {id: start, kind: start}
- {id: want, kind: decision, field: Want}
- {id: info, kind: action, say: Give the information}
- {id: done, kind: end, outcome: resolved}
- {id: human, kind: end, outcome: escalated}
edges:
- {from: start, to: want}
- {from: want, to: info, when: info}
- {from: want, to: human, when: human}
- {from: info, to: done}
""",
        encoding="utf-8",
    )
    assert main(["validate", str(sop)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{sop}:5:1: warning: every path ends resolved or escalated") and out[-1] == "ok (1 warning)"


def test_validate_prints_warnings_and_says_ok(tmp_path: Path, northline_copy: Path):
    _edit(northline_copy / "sop.yaml", UNREAD_OLD, UNREAD_NEW)
    (northline_copy / "cases.jsonl").unlink()  # its cases follow the shipped graph's read step
    exe = shutil.which("sage-desk") or str(ROOT / ".venv" / "bin" / "sage-desk")
    out = subprocess.run([exe, "validate", str(northline_copy)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert "warning: node 'nr_claims'" in lines[0] and lines[-1] == "ok (1 warning)"
