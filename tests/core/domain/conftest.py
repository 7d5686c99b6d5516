"""A tiny domain (tests/data/mini_domain) copied per test, so tests may edit its files."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

MINI = Path(__file__).resolve().parents[2] / "data" / "mini_domain"


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A fresh copy of the mini domain folder."""
    target = tmp_path / "mini"
    shutil.copytree(MINI, target)
    return target


@pytest.fixture
def edit(mini: Path) -> Callable[[str, str, str], Path]:
    """Replace `old` by `new` (which must be there) in one file of the mini domain copy."""

    def _edit(name: str, old: str, new: str) -> Path:
        path = mini / name
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {name}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        return mini

    return _edit
