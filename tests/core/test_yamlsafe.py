"""Safe located YAML: plain data, positions, and one clear located error for every hostile file."""

from __future__ import annotations

from pathlib import Path

import pytest

from sage_desk.core import yamlsafe
from sage_desk.core.errors import InputError
from sage_desk.core.yamlsafe import load_file, loads


def _error(text: str) -> str:
    with pytest.raises(InputError) as info:
        loads(text, "f.yaml")
    (problem,) = info.value.problems
    return str(problem)


def _file_error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        load_file(path)
    (problem,) = info.value.problems
    assert problem.file == str(path)
    return problem.message


def test_plain_data_and_positions() -> None:
    doc = loads("name: x\nnodes:\n  - id: a\n    pos: [1, 2]\n  - id: b\n", "g.yaml")
    assert doc.data == {"name": "x", "nodes": [{"id": "a", "pos": [1, 2]}, {"id": "b"}]}
    assert doc.where(("nodes", 1, "id")) == (5, 5)
    assert doc.where(("nodes", 0, "pos", 1)) == (4, 14)
    # an unknown tail falls back to the deepest known prefix
    assert doc.where(("nodes", 1, "nothing", 3)) == (5, 5)
    assert doc.problem(("nodes", 0), "bad").__str__() == "g.yaml:3:5: bad"


def test_core_schema_scalars_stay_strings() -> None:
    doc = loads("a: yes\nb: off\nc: 2024-01-01\nd: 0x1F\ne: 3\nf: 1.5\ng: true\nh: ~\ni: !!str 12\nj: !!int '7'\n")
    assert doc.data == {
        "a": "yes",
        "b": "off",
        "c": "2024-01-01",
        "d": "0x1F",
        "e": 3,
        "f": 1.5,
        "g": True,
        "h": None,
        "i": "12",
        "j": 7,
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: [1, 2\n", "f.yaml:2:1: YAML syntax: did not find expected ',' or ']'"),
        ("a: 1\na: 2\n", "f.yaml:2:1: duplicate key 'a'"),
        ("a: 1\n---\nb: 2\n", "f.yaml:2:1: expected one YAML document, found several"),
        ("? [a, b]\n: 1\n", "f.yaml:1:3: mapping keys must be plain scalars"),
        ("~: 1\n", "f.yaml:1:1: mapping keys must be plain scalars"),
        ("a: &x 1\nb: *x\n", "f.yaml:2:4: YAML aliases (*x) are not allowed"),
        (
            "a: !!python/object/apply:os.system [echo pwned]\n",
            "f.yaml:1:4: YAML tag '!!python/object/apply:os.system' is not allowed",
        ),
        (
            "!!python/object/apply:os.system [echo pwned]\n",
            "f.yaml:1:1: YAML tag '!!python/object/apply:os.system' is not allowed",
        ),
        ("a: !!python/name:os.system\n", "f.yaml:1:4: YAML tag '!!python/name:os.system' is not allowed"),
        ("a: !!binary aGVsbG8=\n", "f.yaml:1:4: YAML tag '!!binary' is not allowed"),
        ("a: !mine x\n", "f.yaml:1:4: YAML tag '!mine' is not allowed"),
        ("a: !!map x\n", "f.yaml:1:4: YAML tag '!!map' does not apply to a plain value"),
        ("a: !!int abc\n", "f.yaml:1:4: bad value 'abc': not a valid int"),
        ("a: !!bool maybe\n", "f.yaml:1:4: bad value 'maybe': not a valid bool"),
        ("a: !!float x\n", "f.yaml:1:4: bad value 'x': not a valid float"),
    ],
)
def test_refusals_are_located(text: str, expected: str) -> None:
    assert _error(text) == expected


def test_python_tag_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(InputError):
        loads(f"!!python/object/apply:os.system ['touch {marker}']\n")
    assert not marker.exists()


def test_integer_past_python_digit_limit_is_refused() -> None:
    assert _error("version: " + "1" * 5000 + "\n").endswith(": too many digits")


def test_billion_laughs_is_refused_at_the_first_alias() -> None:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    assert _error("\n".join(lines)) == "f.yaml:2:8: YAML aliases (*a) are not allowed"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("[" * 10_000 + "]" * 10_000, "1:65"),
        ("{a: " * 10_000 + "1" + "}" * 10_000, "1:257"),
        ("".join(" " * i + "- \n" for i in range(3000)), "65:65"),
    ],
)
def test_absurd_nesting_is_refused(text: str, where: str) -> None:
    assert _error(text) == f"f.yaml:{where}: nesting deeper than {yamlsafe.MAX_DEPTH} levels"


def test_nesting_just_inside_the_limit_loads() -> None:
    depth = yamlsafe.MAX_DEPTH
    assert loads("[" * depth + "]" * depth).data is not None


def test_event_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlsafe, "MAX_EVENTS", 50)
    assert "document is too large" in _error("[" + ", ".join(["1"] * 100) + "]")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "file is empty"),
        (b"  \n\n\t\n", "file is empty"),
        (b"# only a comment\n", "file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file (contains NUL bytes), expected UTF-8 text"),
        (b"caf\xe9: 1\n", "not UTF-8 text (bad byte at offset 3)"),
    ],
)
def test_hostile_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(content)
    assert _file_error(path) == message


def test_missing_folder_and_oversized(tmp_path: Path) -> None:
    assert _file_error(tmp_path / "nope.yaml") == "no such file"
    assert _file_error(tmp_path) == "is a folder, expected a file"
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 200 + "\n")
    with pytest.raises(InputError, match=r"file is too large \(204 bytes; the limit is 100\)"):
        yamlsafe.read_text(big, max_bytes=100)


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfname: caf\xc3\xa9\n")
    assert load_file(path).data == {"name": "café"}


def test_loading_does_not_grow_the_shared_constructor() -> None:
    loads("a: [1, 2, 3]\nb: {c: x}\n")
    assert not yamlsafe._constructor.constructed_objects
