"""The seeded world: typed rows per table, and a private copy-on-write view per conversation."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from sage_desk.core.jsonsafe import Json, JsonObject

Row = JsonObject


@dataclass
class World:
    """Rows of every table, keyed by each table's key column. Never mutated once loaded."""

    tables: dict[str, dict[str, Row]] = field(default_factory=dict)

    def get(self, table: str, key: Json) -> Row | None:
        """A copy of one row, or None."""
        row = self.tables.get(table, {}).get(str(key))
        return copy.deepcopy(row) if row is not None else None

    def rows(self, table: str) -> Iterator[Row]:
        yield from self.tables.get(table, {}).values()

    def fork(self, extra: Mapping[str, list[Row]] | None = None, keys: Mapping[str, str] | None = None) -> WorldView:
        """A private view for one conversation; `extra` rows (a synthesized case's) are added to it."""
        view = WorldView(self)
        for table, rows in (extra or {}).items():
            key = (keys or {}).get(table)
            for row in rows:
                view.put(table, str(row[key]) if key else str(next(iter(row.values()))), dict(row))
        return view


@dataclass
class WorldView:
    """Copy-on-write overlay over a World: writes stay here, the base never changes."""

    base: World
    overlay: dict[str, dict[str, Row]] = field(default_factory=dict)
    records: list[JsonObject] = field(default_factory=list)

    def get(self, table: str, key: Json) -> Row | None:
        row = self.overlay.get(table, {}).get(str(key))
        if row is not None:
            return copy.deepcopy(row)
        return self.base.get(table, key)

    def put(self, table: str, key: Json, row: Row) -> None:
        self.overlay.setdefault(table, {})[str(key)] = copy.deepcopy(row)

    def record(self, entry: JsonObject) -> None:
        """Log a money-moving action the agent intended (never applied to anything real)."""
        self.records.append(copy.deepcopy(entry))
