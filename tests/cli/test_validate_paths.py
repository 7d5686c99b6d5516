"""`sage-desk validate` and `sage-desk paths` through the real entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sage_desk.cli import main

ROOT = Path(__file__).resolve().parents[2]
NORTHLINE = ROOT / "sops" / "northline"

BROKEN = """\
version: 1
name: broken
fields:
  Demand:
    source: user
    values: [refund, status, other]
nodes:
- id: start
  kind: start
- id: ask
  kind: decision
  field: Demand
- id: pay
  kind: action
  tool: make_refund
  args: {order_id: "=order.order_id +"}
- id: done
  kind: end
  outcome: resolved
- id: done
  kind: end
  outcome: refused
- id: orphan
  kind: end
  outcome: refused
- id: stuck
  kind: action
  say: Say sorry
edges:
- {from: start, to: ask}
- {from: ask, to: pay, when: refund}
- {from: ask, to: stuck, when: status}
- {from: pay, to: done}
"""

BROKEN_PROBLEMS = [
    "12:3: node 'ask': value 'other' of 'Demand' is not covered by any edge",
    "15:3: node 'pay': unknown tool 'make_refund' (the domain has: cancel_order, close_ticket, edit_address, "
    "handover_to_human, lookup_customer, lookup_order, open_carrier_trace, reship_order, send_replacement, tag_ticket)",
    "16:3: node 'pay': argument 'order_id': bad expression 'order.order_id +': invalid syntax",
    "20:3: node 'done': duplicate id (another node already uses it)",
    "23:3: node 'orphan': unreachable from the start",
    "26:3: node 'stuck': dead end: nothing follows it and it is not an end node",
]


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A broken graph beside Northline's domain.yaml, so tools and names are checked too."""
    (tmp_path / "domain.yaml").write_text((NORTHLINE / "domain.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_shipped_domain_is_ok(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "validate", str(NORTHLINE)) == (0, "ok\n", "")
    assert _run(capsys, "validate", "northline") == (0, "ok\n", "")
    assert _run(capsys, "validate", str(NORTHLINE / "sop.yaml")) == (0, "ok\n", "")


def test_broken_graph_lists_every_problem(capsys: pytest.CaptureFixture[str], broken: Path) -> None:
    code, out, err = _run(capsys, "validate", str(broken))
    assert (code, err) == (1, "")
    assert out.splitlines() == [f"{broken}:{p}" for p in BROKEN_PROBLEMS]


def test_yaml_syntax_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: t\nnodes:\n  - id: a\n   kind: start\n")
    assert _run(capsys, "validate", str(path)) == (1, f"{path}:4:4: YAML syntax: did not find expected '-' indicator\n", "")


def test_several_targets(capsys: pytest.CaptureFixture[str], broken: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    code, out, err = _run(capsys, "validate", str(NORTHLINE), str(missing), str(broken))
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[:2] == [f"{NORTHLINE}: ok", f"{missing}:1:1: no such file or folder (and no shipped domain of that name)"]
    assert len(lines) == 2 + len(BROKEN_PROBLEMS)


def _nested_lists() -> bytes:
    return b"[" * 10_000 + b"]" * 10_000


def _billion_laughs() -> bytes:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines).encode()


HOSTILE = {
    "prose": (
        b"Dear support, my order never came. Regards, Sam\n",
        "1:1: expected a SOP graph (a mapping with nodes and edges), found str",
    ),
    "binary": (bytes(range(256)) * 4, "1:1: binary file (contains NUL bytes), expected UTF-8 text"),
    "latin1": (b"name: caf\xe9\n", "1:1: not UTF-8 text (bad byte at offset 9)"),
    "empty": (b"", "1:1: file is empty"),
    "list": (b"- start\n- end\n", "1:1: expected a SOP graph (a mapping with nodes and edges), found list"),
    "types": (b"name: t\nnodes: {a: 1}\n", "2:1: nodes: Input should be a valid list"),
    "python_tag": (
        b"!!python/object/apply:os.system ['echo pwned']\n",
        "1:1: YAML tag '!!python/object/apply:os.system' is not allowed",
    ),
    "laughs": (_billion_laughs(), "2:8: YAML aliases (*a) are not allowed"),
    "nesting": (_nested_lists(), "1:65: nesting deeper than 64 levels"),
    "huge_int": (b"version: " + b"9" * 10_000 + b"\nname: t\n", "1:10: bad value '" + "9" * 60 + "...': too many digits"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_files_get_one_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str) -> None:
    content, problem = HOSTILE[kind]
    path = tmp_path / f"{kind}.yaml"
    path.write_bytes(content)
    assert _run(capsys, "validate", str(path)) == (1, f"{path}:{problem}\n", "")
    assert _run(capsys, "paths", str(path)) == (1, f"{path}:{problem}\n", "")


def test_folder_that_is_not_a_domain(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert _run(capsys, "validate", str(tmp_path)) == (1, f"{tmp_path}:1:1: not a domain folder (no domain.yaml)\n", "")


@pytest.mark.parametrize("argv", [["validate"], ["validate", "--bogus", "x"], ["paths"], ["paths", "x.yaml", "--format", "xml"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "usage: sage-desk" in capsys.readouterr().err


def test_paths_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "paths", str(NORTHLINE / "sop.yaml"))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[-1] == "29 path(s)"
    assert lines[0] == "legal_threat  ->  escalated"
    assert lines[1] == "    when:    Escalation=legal_threat"
    assert sum(1 for line in lines if "  ->  " in line) == 29


def test_paths_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "paths", "northline", "--format", "json")
    assert (code, err) == (0, "")
    paths = json.loads(out)
    assert len(paths) == 29
    assert all(set(p) == {"id", "nodes", "actions", "assignments", "outcome"} for p in paths)
    first = paths[0]
    assert first == {
        "id": "legal_threat",
        "nodes": ["start", "check_escalation", "handover"],
        "actions": [],
        "assignments": {"Escalation": "legal_threat"},
        "outcome": "escalated",
    }
    with_tool = next(p for p in paths if p["actions"])
    assert with_tool["actions"][0] == {"node": "lookup", "tool": "lookup_order", "args": {"order_id": "=order.order_id"}}


def test_paths_of_a_graph_with_problems_warns(capsys: pytest.CaptureFixture[str], broken: Path) -> None:
    code, out, err = _run(capsys, "paths", str(broken), "--format", "json")
    assert code == 0
    assert [p["id"] for p in json.loads(out)] == ["refund"]
    assert err == f"warning: {broken} has 5 problem(s); run `sage-desk validate {broken}`\n"


def test_paths_limit_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sage_desk.core.sop import paths as paths_module

    monkeypatch.setattr(paths_module, "MAX_PATHS", 10)
    monkeypatch.setattr(paths_module.enumerate_paths, "__defaults__", (10,))
    code, out, err = _run(capsys, "paths", str(NORTHLINE / "sop.yaml"))
    assert (code, out) == (1, "")
    assert err == f"{NORTHLINE / 'sop.yaml'}: the graph has more than 10 paths; split it into smaller procedures\n"


def _subprocess(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "sage_desk", *argv], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )


def test_subprocess_has_no_traceback(tmp_path: Path, broken: Path) -> None:
    marker = tmp_path / "pwned"
    tagged = tmp_path / "tag.yaml"
    tagged.write_text(f"!!python/object/apply:os.system ['touch {marker}']\n")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_bytes(_billion_laughs())
    result = _subprocess("validate", str(broken), str(tagged), str(bomb), str(NORTHLINE), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == ""
    assert result.stdout.splitlines() == [f"{broken}:{p}" for p in BROKEN_PROBLEMS] + [
        f"{tagged}:1:1: YAML tag '!!python/object/apply:os.system' is not allowed",
        f"{bomb}:2:8: YAML aliases (*a) are not allowed",
        f"{NORTHLINE}: ok",
    ]
    assert not marker.exists()
    usage = _subprocess("validate", cwd=tmp_path)
    assert usage.returncode == 2
    assert "Traceback" not in usage.stderr
    assert usage.stderr.splitlines()[-1] == "sage-desk validate: error: the following arguments are required: PATH"
