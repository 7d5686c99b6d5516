"""The suite itself: every test file's name is unique, since `tests/` has no packages.

pytest imports each test file under its base name, so a second `test_registry.py` in another folder
fails the collection of the whole suite ("import file mismatch") though each file passes alone.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_every_test_file_name_is_unique():
    where: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        where[path.name].append(str(path.relative_to(TESTS)))
    assert not {name: paths for name, paths in where.items() if len(paths) > 1}, "rename one of each pair"
