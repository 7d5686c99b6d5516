"""The report's per-model row: one named type for what `report`, the Leaderboard and the charts read.

A `ModelRow` is a dict (so `report --format json` writes it unchanged, key for key in the order
it was filled) whose figure keys come from the metric registry (metrics/registry.py): a metric
`m` gives `m` (the median over repeats), `m_range` ([min, max] over repeats) and, when it has an
interval, `m_ci` ([low, high]). A TypedDict cannot list those keys without a second, parallel
list of metrics (the drift the registry removed), so the row is a mapping keyed from the registry,
with typed accessors for what every reader needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from sage_desk.core.jsonsafe import Json


class ModelRow(dict[str, Json]):
    """One model's figures on one domain: agent, domain, repeats, then each registry metric."""

    __slots__ = ()

    @property
    def agent(self) -> str:
        """The agent's spec (or display name)."""
        return str(self["agent"])

    @property
    def domain(self) -> str:
        return str(self["domain"])

    @property
    def repeats(self) -> int:
        return int(self.get("repeats") or 0)

    def figure(self, name: str) -> float | None:
        """A metric's median over repeats (None: nothing to measure it on)."""
        value = self.get(name)
        return None if value is None or isinstance(value, (dict, list, str)) else float(value)

    def spread(self, name: str) -> tuple[float, float] | None:
        """A metric's [min, max] over repeats."""
        return _pair(self.get(f"{name}_range"))

    def interval(self, name: str) -> tuple[float, float] | None:
        """A metric's bootstrap interval [low, high]."""
        return _pair(self.get(f"{name}_ci"))

    @classmethod
    def of(cls, mapping: Mapping[str, Json]) -> ModelRow:
        """A row from a mapping (a row read back from a report's JSON)."""
        return mapping if isinstance(mapping, ModelRow) else cls(mapping)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        # Validated and dumped as a dict of JSON (key order kept), kept a ModelRow in between.
        return core_schema.no_info_after_validator_function(
            cls.of, core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema())
        )


def _pair(value: Json) -> tuple[float, float] | None:
    if not isinstance(value, (list, tuple)) or len(value) != 2 or None in value:
        return None
    return float(value[0]), float(value[1])
