"""Suite problems are reported with the line they stand on."""

from __future__ import annotations

import json

from sage_desk.core.cases.suite import validate_suite_file

from .conftest import NORTHLINE


def _suite(tmp_path, edit):
    lines = (NORTHLINE / "cases.jsonl").read_text().splitlines()[:4]
    data = json.loads(lines[2])
    edit(data)
    lines[2] = json.dumps(data)
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _messages(path, northline):
    return [(p.line, p.message) for p in validate_suite_file(path, northline)]


def test_the_shipped_suite_is_clean(northline):
    assert validate_suite_file(NORTHLINE / "cases.jsonl", northline) == []


def test_bad_json_line(tmp_path, northline):
    path = tmp_path / "cases.jsonl"
    good = (NORTHLINE / "cases.jsonl").read_text().splitlines()[0]
    path.write_text(good + "\n{not json\n")
    [(line, message)] = _messages(path, northline)
    assert line == 2 and "not valid JSON" in message


def test_unknown_order(tmp_path, northline):
    path = _suite(tmp_path, lambda d: d["grounding"].update(order="NL-00000"))
    assert any(line == 3 and "NL-00000" in msg and "does not exist" in msg for line, msg in _messages(path, northline))


def test_unknown_path(tmp_path, northline):
    path = _suite(tmp_path, lambda d: d["expected"].update(path="none/teleport"))
    assert any(line == 3 and "none/teleport" in msg for line, msg in _messages(path, northline))


def test_unknown_tactic(tmp_path, northline):
    path = _suite(tmp_path, lambda d: d.update(tactics=["bribery"]))
    found = [(line, msg) for line, msg in _messages(path, northline) if "bribery" in msg]
    assert found and found[0][0] == 3 and "known:" in found[0][1]
