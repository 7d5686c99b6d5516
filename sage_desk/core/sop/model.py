"""Pydantic models of a Dynamic Dialogue Graph.

A graph has one `start`, `decision` nodes that branch on one field, `action` nodes (a tool call,
or a required utterance `say:` checked by the judge) and `end` nodes with an outcome. Edges that
leave a decision carry the field value(s) they stand for in `when`.

Fields are either *user slots* (learned from the customer, tagged by the agent with `tag_ticket`)
or *system variables* (read from the world; the domain says how).

Argument constraints on actions are literals, or expressions when the string starts with `=`
(``order_id: "=order.order_id"``), evaluated over the case's world rows, `slots` and `facts`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sage_desk.core.jsonsafe import JsonObject

OUTCOMES = ("resolved", "refused", "escalated", "info_requested")
"""End outcomes. `escalated` is observed as a handover; the others as `close_ticket(outcome=...)`."""


class NodeKind(StrEnum):
    """The four node kinds of a Dynamic Dialogue Graph."""

    START = "start"
    DECISION = "decision"
    ACTION = "action"
    END = "end"


class FieldSource(StrEnum):
    """Where a decision field's value comes from."""

    USER = "user"  # a user slot: learned from the customer
    SYSTEM = "system"  # a system variable: read from the world


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)


class FieldSpec(_Model):
    """A field decisions branch on, with every value it can take."""

    source: FieldSource = Field(description="`user` (a slot learned from the customer) or `system` (read from the world)")
    values: list[str] = Field(description="Every value the field can take; each must be covered by a decision edge")
    description: str = Field("", description="What the field means, shown to authors and to the agent's tag tool")

    @field_validator("values")
    @classmethod
    def _unique(cls, values: list[str]) -> list[str]:
        dupes = sorted({v for v in values if values.count(v) > 1})
        if dupes:
            raise ValueError(f"duplicate value {dupes[0]!r}")
        return values


class Node(_Model):
    """One node of the graph; which attributes apply depends on `kind`."""

    id: str = Field(description="Unique id, used by edges, paths and cases")
    kind: NodeKind
    label: str = Field("", description="Short text shown on the canvas")
    field: str | None = Field(None, description="decision: the field it branches on")
    tool: str | None = Field(None, description="action: the tool the agent must call")
    args: JsonObject = Field(default_factory=dict, description="action: argument constraints (literal, or `=expression`)")
    say: str | None = Field(None, description="action: what the agent must say (checked by the judge)")
    tell: list[str] = Field(
        default_factory=list,
        description="action: fields of the records the path read that the agent's "
        "replies after the read must carry (checked by the rules; a field a record lacks is not asked)",
    )
    confirm: Literal["required"] | None = Field(
        None,
        description="action: `required`: before the call, an agent message "
        "listing its details, then the customer's agreement (procedure.confirmation)",
    )
    confirm_details: list[str] = Field(
        default_factory=list,
        description="action: the call's arguments the listing must "
        "name (`reservation_id`, `flights.flight_number`); none: the tool's key",
    )
    outcome: str | None = Field(None, description="end: resolved, refused, escalated or info_requested")
    note: str = Field("", description="Free text for authors")
    cite: str = Field("", description="The sentence of the source SOP this node came from")
    pos: tuple[float, float] = Field((0.0, 0.0), description="Editor position (x, y)")

    @field_validator("id")
    @classmethod
    def _id_ok(cls, value: str) -> str:
        if not value or not value.strip():
            raise ValueError("node id must not be empty")
        if any(c.isspace() for c in value):
            raise ValueError(f"node id {value!r} must not contain spaces")
        return value


class Edge(_Model):
    """A directed edge; `when` holds the decision value(s) it stands for."""

    source: str = Field(alias="from")
    target: str = Field(alias="to")
    when: str | list[str] | None = Field(None, description="decision edges: the field value(s) that select this edge")

    @property
    def values(self) -> list[str]:
        """The decision values of this edge as a list (empty when `when` is unset)."""
        if self.when is None:
            return []
        return [self.when] if isinstance(self.when, str) else list(self.when)


class Graph(_Model):
    """A whole SOP graph as stored in `sop.yaml`."""

    version: int = 1
    name: str = Field(description="Short machine name, usually the domain's")
    title: str = ""
    description: str = ""
    fields: dict[str, FieldSpec] = Field(default_factory=dict)
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)

    def node(self, node_id: str) -> Node | None:
        """The node with `node_id`, or None."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        return None

    def out_edges(self, node_id: str) -> list[Edge]:
        """Edges leaving `node_id`, in file order."""
        return [e for e in self.edges if e.source == node_id]

    def start(self) -> Node | None:
        """The start node (the first, when an invalid graph has several)."""
        return next((n for n in self.nodes if n.kind == NodeKind.START), None)
