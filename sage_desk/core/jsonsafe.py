"""JSON as a type: the names core uses for values that are JSON (files, bodies, JSON columns, reports).

A value named `Json` was decoded from JSON (or YAML read as JSON) or is bound for `json.dumps`:
a dict with string keys, a list, a string, a number, a bool or None, nested. mypy cannot follow a
recursive union through every `data["key"]["other"]` without an isinstance check at each step, so
the values inside stay unchecked (`Any`); the names say *what* a value is, and this module is the
one place to tighten them. Use a typed record (a dataclass or pydantic model) instead wherever the
shape is known; these names are for the genuinely open parts (tool arguments, a domain's rows,
model request bodies, a run's config, an exported record).
"""

from __future__ import annotations

from typing import Any, TypeAlias

Json: TypeAlias = Any
"""Any JSON value (object, array, string, number, bool or null), not checked further."""
JsonObject: TypeAlias = dict[str, Json]
"""A JSON object: string keys, JSON values."""
JsonList: TypeAlias = list[Json]
"""A JSON array."""
JsonScalar: TypeAlias = str | int | float | bool | None
"""A JSON leaf."""

__all__ = ["Json", "JsonList", "JsonObject", "JsonScalar"]
