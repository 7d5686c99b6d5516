"""`sage-desk import-sop` against the fake server, and `sage-desk diff-sop` on shipped graphs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from draft_samples import POLICY, VALID, fake_model, invalid_draft, write_domain
from fakes import FakeOpenAIServer

from sage_desk.cli import main
from sage_desk.core.sop.io import dumps_graph, load_graph
from sage_desk.core.sop.model import Edge

ROOT = Path(__file__).resolve().parents[2]
NORTHLINE = ROOT / "sops" / "northline" / "sop.yaml"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def setup(tmp_path: Path, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    policy = tmp_path / "policy.md"
    policy.write_text(POLICY, encoding="utf-8")
    return {
        "text": str(policy),
        "domain": str(write_domain(tmp_path / "shop")),
        "out": str(tmp_path / "draft.yaml"),
        "api": fake_openai.base_url,
    }


def _import(capsys, setup, *extra: str) -> tuple[int, str, str]:
    return _run(
        capsys,
        "import-sop",
        setup["text"],
        "--domain",
        setup["domain"],
        "--model",
        "openai/fake",
        "--api-base",
        setup["api"],
        "--out",
        setup["out"],
        *extra,
    )


def test_import_writes_the_draft_with_its_sources_and_flags_the_unmatched_tool(capsys, setup, fake_openai) -> None:
    fake_openai.script = fake_model(VALID)
    code, out, err = _import(capsys, setup)
    assert code == 1  # written, with a step the domain has no tool for
    graph = load_graph(setup["out"])
    assert graph.title == "Drafted from policy.md" and len(graph.nodes) == 9
    assert graph.node("lookup").cite == "First look the order up with `lookup_order`."
    lines = out.splitlines()
    assert lines[0] == (
        "unmatched action: node 'voucher' calls 'issue_voucher', which shop has no tool for "
        "(source: 'gets one with `issue_voucher`')"
    )
    line = Path(setup["out"]).read_text().splitlines().index("  tool: issue_voucher") + 1
    assert lines[1].startswith(f"{setup['out']}:{line}:3: node 'voucher': unknown tool 'issue_voucher'")
    assert f"wrote {setup['out']}: 9 nodes, 11 edges, 4 paths (1 section(s), 1 request(s)" in err
    assert "[1/1] Drafting…" in err


def test_a_clean_draft_exits_zero(capsys, setup, fake_openai) -> None:
    clean = copy.deepcopy(VALID)
    clean["nodes"][7].update(tool=None, say="Give the customer a voucher code")
    fake_openai.script = fake_model(clean)
    code, out, _ = _import(capsys, setup)
    assert (code, out) == (0, "")
    assert load_graph(setup["out"]).node("voucher").say == "Give the customer a voucher code"


def test_a_draft_that_never_validates_writes_nothing(capsys, setup, fake_openai) -> None:
    fake_openai.script = fake_model(invalid_draft())
    code, out, err = _import(capsys, setup, "--attempts", "2")
    assert code == 1 and not Path(setup["out"]).exists()
    assert len(fake_openai.requests) == 2
    assert "sage-desk: no draft written: the draft: the model's draft still had 3 problem(s) after 2 attempt(s)" in err
    assert "  - node 'delivered': value 'no' of 'Delivered' is not covered by any edge" in err


def test_an_existing_out_file_is_kept_unless_forced(capsys, setup, fake_openai) -> None:
    Path(setup["out"]).write_text("precious")
    code, _, err = _import(capsys, setup)
    assert code == 2 and "exists; pass --force" in err and Path(setup["out"]).read_text() == "precious"
    assert fake_openai.requests == []
    fake_openai.script = fake_model(VALID)
    assert _import(capsys, setup, "--force")[0] == 1 and load_graph(setup["out"]).node("refund") is not None


def test_missing_text_or_domain_exits_one_naming_it(capsys, setup, tmp_path) -> None:
    setup = {**setup, "text": str(tmp_path / "missing.md")}
    code, out, _ = _import(capsys, setup)
    assert code == 1 and out.strip() == f"{tmp_path / 'missing.md'}:1:1: no such file"
    setup["text"], setup["domain"] = str(NORTHLINE), str(tmp_path)
    code, out, _ = _import(capsys, setup)
    assert code == 1 and "not a domain folder (no domain.yaml)" in out


# --- diff-sop --------------------------------------------------------------------------------------


def test_diff_of_a_graph_with_itself_exits_zero(capsys) -> None:
    assert _run(capsys, "diff-sop", str(NORTHLINE), str(NORTHLINE)) == (0, "the graphs are the same\n", "")


def test_diff_shows_a_removed_node_a_changed_condition_and_renamed_ids(capsys, tmp_path: Path) -> None:
    graph = load_graph(NORTHLINE)
    ids = {n.id: f"d_{n.id}" for n in graph.nodes if n.id != "say_wear"}
    conditions = {
        ("cancel_stage", "say_cannot_cancel"): ["in_transit", "delivered"],
        ("cancel_stage", "say_already_closed"): ["closed", "lost"],
    }
    edited = graph.model_copy(
        update={
            "nodes": [n.model_copy(update={"id": ids[n.id]}) for n in graph.nodes if n.id in ids],
            "edges": [
                Edge(source=ids[e.source], target=ids[e.target], when=conditions.get((e.source, e.target), e.when))
                for e in graph.edges
                if e.source in ids and e.target in ids
            ],
        }
    )
    other = tmp_path / "other.yaml"
    other.write_text(dumps_graph(edited))
    code, out, _ = _run(capsys, "diff-sop", str(NORTHLINE), str(other))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("- node say_wear (action: say ")
    assert "~ node lookup -> d_lookup (matched by content): renamed" in lines
    assert "- edge fault_type -> say_wear when wear_and_tear" in lines and "- edge say_wear -> refused" in lines
    assert "~ edge d_cancel_stage -> d_say_cannot_cancel: when delivered | in_transit | lost -> delivered | in_transit" in lines
    assert lines[-1] == f"{len(graph.nodes) - 1 + 3 + 2} difference(s)"  # 40 renames, 1 removal, 2 edges, 2 conditions
    code, out, _ = _run(capsys, "diff-sop", str(NORTHLINE), str(other), "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["equal"] is False and data["matches"]["lookup"] == "d_lookup"
    assert [n["id"] for n in data["nodes"]["removed"]] == ["say_wear"]
    assert data["edges"]["conditions_changed"][1] == {
        "from": "d_cancel_stage",
        "to": "d_say_already_closed",
        "old": ["closed"],
        "new": ["closed", "lost"],
    }


def test_diff_of_an_unreadable_or_missing_graph_exits_one_naming_it(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes: [")
    code, out, _ = _run(capsys, "diff-sop", str(NORTHLINE), str(bad))
    assert code == 1 and out.startswith(f"{bad}:")
    code, out, _ = _run(capsys, "diff-sop", str(tmp_path / "gone.yaml"), str(NORTHLINE))
    assert code == 1 and out.strip() == f"{tmp_path / 'gone.yaml'}:1:1: no such file"
