"""The Case model: a grounded opening, a hidden truth, the pressure, and
the script that makes it playable without an LLM."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sage_desk.core.domain.model import KindName
from sage_desk.core.jsonsafe import JsonObject

CASE_VERSION = 1


class Bucket(StrEnum):
    """SupportAgentBench's three jobs."""

    RESOLVABLE = "resolvable"
    MUST_ESCALATE = "must_escalate"
    ADVERSARIAL = "adversarial"


class Conflict(StrEnum):
    """SAGE's conflict level of the customer's intent."""

    ZERO = "zero"  # collaborative
    WEAK = "weak"  # query, ambiguity
    STRONG = "strong"  # negotiation


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


EMOTIONS = ("calm", "slightly_frustrated", "frustrated", "angry")
"""The simulated customer's emotions, calm to angry (SAGE's four)."""


class Persona(_Model):
    """Who the customer is and how they come across."""

    name: str
    email: str = ""
    style: str = Field("polite", description="How the customer writes: polite, terse, rambling, hostile ...")
    emotion: str = Field("calm", description="Starting emotion: calm, slightly_frustrated, frustrated, angry")
    patience: int | None = Field(
        None,
        ge=1,
        le=8,
        description="Agent replies that do not move the request forward the customer takes before giving up (SAGE's patience)",
    )
    conciseness: Literal["brief", "normal", "verbose"] | None = Field(
        None, description="How much the customer writes per message (SAGE's conciseness)"
    )


class ExpectedAction(_Model):
    """One action node of the expected path, with concrete argument values."""

    node: str
    tool: str | None = None
    args: JsonObject = Field(default_factory=dict)
    say: str | None = None


class Expected(_Model):
    """The ground truth the rule engine compares against."""

    path: str = Field(description="Path id in the domain's graph")
    actions: list[ExpectedAction] = Field(default_factory=list)
    outcome: str


class Forbidden(_Model):
    """An unsafe action this case tempts; firing it is a catastrophic failure."""

    tool: str
    args: JsonObject = Field(default_factory=dict, description="Only calls matching these arguments count")
    kind: KindName
    why: str = ""


class ReplyRule(_Model):
    """The scripted customer's answer when the agent's message mentions any of `on`.

    The scripted customer (no LLM) answers each agent message with, in order: `thanks` when the
    turn is `thanks_at`; else the first rule whose phrase the agent's text contains (a `once`
    rule fires at most once); else the next unused `pushes` entry; else `default`. It stops after
    `stop_after` turns or once it has had to fall back on `default` twice.
    """

    on: list[str] = Field(description="Lower-case phrases; the rule fires when the agent's text contains one")
    say: str
    once: bool = True


class Script(_Model):
    """Reply rules that make the case playable with no LLM (the scripted customer)."""

    replies: list[ReplyRule] = Field(default_factory=list)
    pushes: list[str] = Field(default_factory=list, description="What the customer pushes next, in order, when no rule fires")
    demands: list[ExpectedAction] = Field(default_factory=list, description="The actions the customer is asking for")
    thanks_at: int | None = Field(None, description="Customer turn at which they thank the agent before anything is fixed")
    thanks: str = "Thanks so much, that's great!"
    on_close: str = "Thanks."
    default: str = "Is there anything else you need from me?"
    stop_after: int = Field(8, description="The customer gives up after this many turns")


class Case(_Model):
    """One test case of a domain's suite."""

    version: int = CASE_VERSION
    id: str
    domain: str
    bucket: Bucket
    conflict: Conflict = Conflict.ZERO
    tactics: list[str] = Field(default_factory=list)
    title: str = ""
    persona: Persona
    subject: str = ""
    opening: str = Field(description="The customer's first message (a realistic email)")
    grounding: dict[str, str] = Field(default_factory=dict, description="Context row name -> key, e.g. {'order': 'NL-10023'}")
    world_rows: dict[str, list[JsonObject]] = Field(default_factory=dict, description="Rows this case adds to the world")
    truth: dict[str, str] = Field(default_factory=dict, description="Hidden user-slot values")
    facts: JsonObject = Field(default_factory=dict, description="What the customer knows and can tell")
    expected: Expected
    forbidden: list[Forbidden] = Field(default_factory=list)
    escalation_reason: str | None = None
    script: Script = Field(default_factory=Script)
