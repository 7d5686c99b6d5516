"""Pydantic models of `domain.yaml`: tables, context, variables, tools."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from sage_desk.core.domain.unsafe import KIND_NAME
from sage_desk.core.jsonsafe import Json, JsonObject


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


ColumnType = Literal["string", "integer", "number", "boolean", "list", "object"]


class Column(_Model):
    """A typed column of a world table."""

    type: ColumnType = "string"
    values: list[str] | None = Field(None, description="Allowed values, for enumerations")
    required: bool = True
    description: str = ""


class Table(_Model):
    """A world table: its key column and typed columns."""

    key: str
    columns: dict[str, Column | ColumnType] = Field(default_factory=dict)
    description: str = ""

    def column(self, name: str) -> Column | None:
        spec = self.columns.get(name)
        return Column(type=spec) if isinstance(spec, str) else spec


class ContextRow(_Model):
    """A named row a case is grounded in: given by the case, or reached from another row."""

    table: str
    via: str | None = Field(None, description="`other.column` holding this row's key; None: the case names it")


class ToolKind(StrEnum):
    """Declarative tool kinds."""

    READ = "read"  # look a row up by key
    WRITE = "write"  # set fields on a row, if the guard holds
    RECORD = "record"  # money-moving/external action: recorded, applied to the private world only


class Param(_Model):
    """One tool parameter, as JSON schema."""

    type: Literal["string", "integer", "number", "boolean", "array", "object"] = "string"
    description: str = ""
    enum: list[Json] | None = None
    required: bool = True


class ToolSpec(_Model):
    """A declared tool. Reads and writes act on `table` by `key`; records also log an intent."""

    kind: ToolKind
    description: str
    table: str
    key: str = Field(description="The parameter (and key column) naming the row")
    params: dict[str, Param] = Field(default_factory=dict)
    set: JsonObject = Field(default_factory=dict, description="Columns set on the row (`=expr` over row, args)")
    guard: str | None = Field(None, description="Expression over `row` and `args` that must hold")
    guard_message: str = "this action is not possible for this record"
    returns: list[str] | None = Field(None, description="Columns a read returns (all when unset)")
    result_is_row: bool = Field(
        False,
        description="An imported write's result is the record as it became (tau's "
        "updates return the whole reservation): the rules read later calls against it",
    )


KindName = Annotated[str, Field(pattern=KIND_NAME.pattern, description="An unsafe-act kind (core/domain/unsafe.py)")]


class UnsafeKindSpec(_Model):
    """How a domain's own unsafe-act kind is shown: a column header and a one-line meaning."""

    header: str = ""
    description: str = ""


class UnsafeAct(_Model):
    """A write that is a catastrophic failure wherever the SOP does not allow it.

    The rule engine checks every conversation against these declarations: an act of `tool` that
    the conversation's expected path does not license is unsafe, of `kind`, when `when` (an
    expression over `row`, the record as it was just before the call in the conversation's own
    world, and `args`) holds or is left out. False closure needs no declaration: it is read from
    how the ticket was closed.
    """

    tool: str
    kind: KindName
    when: str | None = Field(None, description="Expression over `row`, `args` and the conversation's facts; unset: always")
    why: str = ""
    whatever_path: bool = Field(
        False,
        description="Unsafe whenever `when` holds, even where a path of the SOP "
        "takes the tool: the policy forbids the act in that state (tau's rules)",
    )


SageScenario = Literal[
    "online_education", "ecommerce_refund", "telecom_package", "property_service", "logistics_delivery", "airline_refund"
]
"""SAGE's six industrial scenarios."""


class Domain(_Model):
    """`domain.yaml`: what makes a folder a SAGE Desk domain."""

    version: int = 1
    name: str
    title: str = ""
    description: str = ""
    sage_scenario: SageScenario | None = Field(
        None, description="The SAGE scenario this domain stands for (arXiv 2604.09285), when it stands for one"
    )
    policy: str = "policy.md"
    sop: str = "sop.yaml"
    world: str = "world.yaml"
    cases: str = "cases.jsonl"
    intent_field: str = Field(description="The user slot that `tag_ticket(intent=...)` reports")
    tables: dict[str, Table]
    context: dict[str, ContextRow] = Field(default_factory=dict)
    system_variables: dict[str, str] = Field(default_factory=dict, description="Field name -> expression over the context rows")
    tools: dict[str, ToolSpec] = Field(default_factory=dict)
    unsafe_kinds: dict[KindName, UnsafeKindSpec | None] | None = Field(
        None, description="The domain's unsafe-act kinds in order (unset: Northline's four); kinds unsafe_acts name are added"
    )
    unsafe_acts: list[UnsafeAct] = Field(
        default_factory=list, description="Writes that are catastrophic where the SOP does not allow them"
    )
    audit_only: bool = Field(
        False,
        description="Conversations of this domain are imported and audited, never "
        "played: it needs no world or case suite (tau_airline, tau_retail)",
    )
    one_action_at_a_time: bool = Field(
        False,
        description="The policy says: one tool call at a time, and no reply to the "
        "customer in the same message as a call (procedure.one_at_a_time)",
    )
    clock: str | None = Field(
        None, description="The policy's current time (ISO, e.g. 2024-05-15T15:00:00): `now` in system variables and unsafe acts"
    )
    transcript_facts: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict,
        description="Facts read from the customer's own words: fact -> value -> regular "
        "expressions (any match in a customer message gives the value; the first value listed wins)",
    )
    failure_modes: list[str] = Field(
        default_factory=list,
        description="Failure-mode tags reviewers may put on a label (e.g. wrong_refund_amount, missed_escalation)",
    )

    def unsafe_for(self, tool: str) -> list[UnsafeAct]:
        """The unsafe-act declarations of one tool."""
        return [u for u in self.unsafe_acts if u.tool == tool]
