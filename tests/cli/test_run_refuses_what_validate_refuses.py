"""`sage-desk run` and `sage-desk validate` read a suite through one loader (issue 34): what validate
refuses (a repeated case id, a case naming another domain) run refuses, with the same problems."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_args

from sage_desk.cli import main
from sage_desk.core.locations import resolve_domain_dir
from sage_desk.core.store import Store


def _first_case() -> dict:
    line = (resolve_domain_dir("northline") / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return json.loads(line)


@pytest.mark.parametrize("breakage", ["repeated id", "another domain"])
def test_run_refuses_a_suite_validate_refuses(tmp_path: Path, capsys, breakage: str) -> None:
    case = _first_case()
    other = {**case, "domain": "telecom"} if breakage == "another domain" else dict(case)
    suite = tmp_path / "cases.jsonl"
    suite.write_text(json.dumps(case) + "\n" + json.dumps(other) + "\n")
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    code = main(run_args(db, "baseline:oracle", extra=["--suite", str(suite)]))
    run_out = capsys.readouterr()
    assert code == 1
    expected = "duplicate case id" if breakage == "repeated id" else "domain 'telecom' is not 'northline'"
    assert f"{suite}:2:1: case {case['id']}: {expected}" in run_out.out + run_out.err
    assert Store(db).list_runs() == []  # refused before a run exists
