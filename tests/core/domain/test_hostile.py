"""Hostile domain folders: files outside the folder, devices, symlinks, expression bombs; all refused fast."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sage_desk.cli import main
from sage_desk.core.cases.suite import validate_domain_and_suite
from sage_desk.core.domain.loader import load_domain, validate_domain
from sage_desk.core.errors import DomainError

Edit = Callable[[str, str, str], Path]


def _declare(mini: Path, key: str, value: str) -> Path:
    path = mini / "domain.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("intent_field:", f"{key}: {value!r}\nintent_field:", 1), encoding="utf-8"
    )
    return mini


def _errors(mini: Path) -> list[str]:
    return [p.message for p in validate_domain(mini) if p.is_error]


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret" / "id_rsa"
    path.parent.mkdir()
    path.write_text("-----BEGIN OPENSSH PRIVATE KEY----- canary\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("key", ["policy", "sop", "world", "cases"])
@pytest.mark.parametrize("value", ["../secret/id_rsa", "{secret}", "/dev/zero", "sub/../../secret/id_rsa"])
def test_a_file_outside_the_folder_is_refused(mini: Path, secret: Path, key: str, value: str) -> None:
    _declare(mini, key, value.format(secret=secret))
    started = time.monotonic()
    problems = validate_domain_and_suite(mini)
    assert time.monotonic() - started < 2
    assert any(f"{key}: " in p.message and ("outside" in p.message or "absolute" in p.message) for p in problems), problems
    with pytest.raises(DomainError):
        load_domain(mini)


def test_a_symlink_leading_out_of_the_folder_is_refused(mini: Path, secret: Path) -> None:
    (mini / "policy.md").unlink()
    (mini / "policy.md").symlink_to(secret)
    assert _errors(mini) == ["policy: 'policy.md' leads outside the domain folder"]
    (mini / "link").symlink_to(secret.parent, target_is_directory=True)
    _declare(mini, "world", "link/id_rsa")
    assert any("world: 'link/id_rsa' leads outside" in p.message for p in validate_domain(mini))


def test_a_symlink_to_a_device_or_a_pipe_in_the_folder_is_not_a_regular_file(mini: Path) -> None:
    os.mkfifo(mini / "pipe.md")  # reading it would wait forever
    _declare(mini, "policy", "pipe.md")
    assert any(p.message == "policy: 'pipe.md' is not a regular file" for p in validate_domain(mini))


def test_a_symlink_inside_the_folder_is_fine(mini: Path) -> None:
    (mini / "texts").mkdir()
    (mini / "policy.md").rename(mini / "texts" / "policy.md")
    (mini / "policy.md").symlink_to(mini / "texts" / "policy.md")
    assert _errors(mini) == []


def test_validate_checks_the_suite_the_domain_names_not_cases_jsonl(mini: Path, tmp_path: Path) -> None:
    (mini / "cases.jsonl").write_text("not json\n", encoding="utf-8")  # a decoy a run never reads
    _declare(mini, "cases", "suite/mine.jsonl")
    problems = [p for p in validate_domain_and_suite(mini) if p.is_error]
    assert [p.file for p in problems] == [str(mini / "suite" / "mine.jsonl")] and "no such file" in problems[0].message


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("guard: \"row.status != 'cancelled'\"", 'guard: "3999999**3999999 > 0"'),
        ("Stage: \"'sent' if order.status == 'shipped' else 'not_sent'\"", "Stage: \"'%0999999999d' % 1\""),
        (
            "Stage: \"'sent' if order.status == 'shipped' else 'not_sent'\"",
            'Stage: "len([1 for a in order.items for b in order.items])"',
        ),
    ],
)
def test_expression_bombs_are_refused_by_validate_within_a_second(
    edit: Edit, capsys: pytest.CaptureFixture, old: str, new: str
) -> None:
    mini = edit("domain.yaml", old, new)
    started = time.monotonic()
    assert main(["validate", str(mini)]) == 1
    assert time.monotonic() - started < 1.0
    out = capsys.readouterr().out
    assert "not allowed" in out or "larger than" in out


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom"])
def test_a_device_given_as_a_file_is_refused_not_read(path: str, capsys: pytest.CaptureFixture) -> None:
    started = time.monotonic()
    assert main(["validate", path]) == 1
    assert time.monotonic() - started < 2
    assert "is not a regular file" in capsys.readouterr().out
