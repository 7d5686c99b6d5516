"""Hostile JSON in every reader ends in a `FILE:LINE` problem, never a traceback (issue 34):
100,000-deep nesting, a 5,000-digit integer, a UTF-8 byte-order mark (accepted), one id read
twice with different content (reported), and a large file read in flat memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sage_desk.core import jsonbound
from sage_desk.core.cases.suite import load_suite_entries
from sage_desk.core.errors import CaseError
from sage_desk.core.imports.importer import read_files

DATA = Path(__file__).resolve().parents[2] / "data" / "imports"
OPENAI = DATA / "northline_production.jsonl"
DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "9" * 5000


def _openai_lines() -> list[str]:
    return [line for line in OPENAI.read_text(encoding="utf-8").splitlines() if line.strip()]


def _events_line(source: str, text: str) -> str:
    return json.dumps(
        {
            "conversation": source,
            "agent": "m",
            "events": [
                {"type": "customer_message", "seq": 0, "turn": 1, "text": text},
                {"type": "agent_message", "seq": 1, "turn": 1, "text": "Hello."},
            ],
        }
    )


@pytest.mark.parametrize("fmt", ["openai", "events"])
def test_deep_nesting_and_long_integers_are_located_problems(tmp_path: Path, fmt: str) -> None:
    good = _openai_lines()[0] if fmt == "openai" else _events_line("e-1", "Where is my order?")
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join([good, DEEP, '{"id": "n", "messages": [], "n": ' + LONG_INT + "}", good]) + "\n")
    parsed, problems = read_files([path], fmt)
    assert [(p.line, p.message) for p in problems] == [
        (2, "nested too deeply (at most 64 levels)"),
        (3, "cannot read: an integer of 5000 digits (at most 40)"),
    ]
    assert all(str(p).startswith(f"{path}:") for p in problems)
    assert len(parsed) == 2  # line 4 repeats line 1 word for word: a plain duplicate (the import keeps one), no clash


@pytest.mark.parametrize("fmt", ["openai", "events"])
def test_a_byte_order_mark_is_accepted(tmp_path: Path, fmt: str) -> None:
    good = _openai_lines()[0] if fmt == "openai" else _events_line("e-1", "Where is my order?")
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + good.encode() + b"\r\n")
    parsed, problems = read_files([path], fmt)
    assert problems == [] and len(parsed) == 1


def test_the_same_id_with_different_content_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "clash.jsonl"
    path.write_text(
        "\n".join([_events_line("e-1", "Where is my order?"), _events_line("e-2", "Hi"), _events_line("e-1", "Cancel my order.")])
        + "\n"
    )
    parsed, problems = read_files([path], "events")
    assert [str(p) for p in problems] == [f"{path}:3:1: id 'e-1' was already read at {path}:1 with different content"]
    assert [p.source_id for p in parsed] == ["e-1", "e-2"]  # the first stays; the other is refused, not stored twice


def test_a_case_suite_with_hostile_lines_names_them(tmp_path: Path) -> None:
    suite = tmp_path / "cases.jsonl"
    suite.write_bytes(b"\xef\xbb\xbf" + DEEP.encode() + b"\n" + b'{"id": ' + LONG_INT.encode() + b"}\n")
    with pytest.raises(CaseError) as caught:
        load_suite_entries(suite)
    assert [(p.line, p.message) for p in caught.value.problems] == [
        (1, "nested too deeply (at most 64 levels)"),
        (2, "cannot read: an integer of 5000 digits (at most 40)"),
    ]


def test_a_json_list_is_read_an_item_at_a_time_with_lines(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(jsonbound, "CHUNK", 64)  # items cut by every chunk boundary, multi-byte characters too
    items = [{"task_id": i, "text": "café ☕ " * (i % 7), "traj": [{"role": "user", "content": "x"}]} for i in range(40)]
    path = tmp_path / "list.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(items, indent=1, ensure_ascii=False).encode())
    found = list(jsonbound.json_list(path))
    assert [item for _, item in found] == items
    text = path.read_text(encoding="utf-8-sig")
    starts = [number for number, line in enumerate(text.split("\n"), start=1) if line == " {"]  # indent=1: an item's first line
    assert [line for line, _ in found] == starts
    bad = tmp_path / "bad.json"
    bad.write_text('[{"a": 1},\n{"b": ' + DEEP + "}]")
    (first, problem) = list(jsonbound.json_list(bad))
    assert first == (1, {"a": 1}) and isinstance(problem, jsonbound.JsonProblem)
    assert (problem.line, problem.message) == (2, "nested too deeply (at most 64 levels)")


def test_a_long_jsonl_file_is_read_in_flat_memory(tmp_path: Path) -> None:
    import tracemalloc

    path = tmp_path / "big.jsonl"
    line = _events_line("e", "x" * 2000)
    with path.open("w") as handle:
        for i in range(10_000):  # ~22 MB
            handle.write(line.replace('"e"', f'"e-{i}"', 1) + "\n")
    tracemalloc.start()
    count = sum(1 for found in jsonbound.jsonl(path) if not isinstance(found, jsonbound.JsonProblem))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 10_000
    assert peak < 2 * 1024 * 1024, f"reading held {peak / 1e6:.1f} MB at once"


def test_an_import_streamed_in_small_chunks_stores_what_one_chunk_does(tmp_path: Path, monkeypatch) -> None:
    """Conversations go through placing and judging a chunk at a time and wait on disk: the run is the same."""
    from sage_desk.core.imports import importer
    from sage_desk.core.store import Store

    doubled = tmp_path / "twice.jsonl"
    doubled.write_text(OPENAI.read_text(encoding="utf-8") * 2)  # every conversation twice: duplicates across chunks

    def stored(chunk: int, name: str) -> list[tuple]:
        monkeypatch.setattr(importer, "IMPORT_CHUNK", chunk)
        with Store(f"sqlite:///{tmp_path / name}") as store:
            summary = importer.import_files(store, [doubled], "northline", "openai", skip_bad=True)
            rows = sorted(
                (
                    c.source_id,
                    c.case_id,
                    c.bucket,
                    c.rules_state,
                    len(store.events(c.id)),
                    sorted((v.criterion, v.passed, v.unscored) for v in store.verdicts(c.id)),
                )
                for c in store.conversations(summary.run_id)
            )
        assert len(summary.duplicates) == len(rows)
        return rows

    assert stored(2, "small.db") == stored(1000, "whole.db")
