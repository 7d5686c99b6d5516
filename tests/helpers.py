"""Small helpers shared by tests (importable because tests/ is on sys.path)."""

from __future__ import annotations


def first_case(cases, **where):
    """The first case whose attributes match `where` (bucket, conflict ...)."""
    for case in cases.values():
        if all(getattr(case, k) == v or getattr(getattr(case, k), "value", None) == v for k, v in where.items()):
            return case
    raise LookupError(where)


def paths_calling(paths, tool):
    """Paths with an action calling `tool`."""
    return [p for p in paths if any(a.get("tool") == tool for a in p.actions)]
