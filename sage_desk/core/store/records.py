"""What the store hands out: plain pydantic records, never ORM instances.

Records are safe to pass across threads and Qt signals; changing one changes nothing in the
database.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from sage_desk.core.engine.status import ConversationStatus, RunStatus
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.rules.verdict import Verdict


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class RunRecord(_Record):
    """A run and its configuration, with conversation counts by status."""

    id: str
    created_at: datetime
    status: RunStatus
    domain: str
    config: JsonObject = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict, description="conversation status -> how many")

    @property
    def total(self) -> int:
        """How many conversations the run has."""
        return sum(self.counts.values())


class ConversationRecord(_Record):
    """One conversation's row: its identity in the run, its state and its totals."""

    id: str
    run_id: str
    case_id: str
    domain: str
    agent: str
    repeat: int = 0
    bucket: str | None = None
    conflict: str | None = None
    tactics: list[Json] = Field(default_factory=list)
    seed: int | None = None
    status: ConversationStatus = ConversationStatus.PENDING
    termination: str | None = None
    error: str | None = None
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    agent_turns: int = 0
    agent_tokens: int = 0
    agent_cost_usd: float = 0.0
    started_at: datetime | None = None
    finished_at: datetime | None = None
    source_id: str | None = None
    """An imported conversation's id in its own log (None for simulated ones)."""
    tau_reward: float | None = None
    """An imported tau-bench/tau2 conversation's own reward, kept beside our verdicts."""
    rules_state: str | None = None
    """None when every rule verdict is settled; else `unscored`, `provisional` or both joined by '+'."""


class StoredVerdict(Verdict):
    """A verdict as stored: its row id and time, and the human override applied (if asked for)."""

    model_config = ConfigDict(frozen=True)

    id: int
    created_at: datetime
    override_id: int | None = Field(default=None, description="The override in effect, if any")
    original_passed: bool | None = Field(default=None, description="The judge's value when overridden")
    original_score: float | None = None
    human_value: str | None = None

    @property
    def overridden(self) -> bool:
        """True when a human override is applied to this verdict."""
        return self.override_id is not None


class OverrideRecord(_Record):
    """A human's correction of a verdict, with the value it replaced."""

    id: int
    verdict_id: int | None
    conversation_id: str
    criterion: str
    source: str
    original_passed: bool | None
    original_score: float | None
    human_passed: bool | None
    human_score: float | None
    human_value: str | None
    reason: str
    author: str
    created_at: datetime
    kind: str = "label"
    """`label` (a reviewer's) or `adjudication` (the final word where reviewers disagree)."""
    tags: list[str] | None = None
    corrected_reply: str | None = None


class JudgeExample(BaseModel):
    """A labelled transcript for judge calibration; `id`/`created_at` are set by the store."""

    id: int | None = None
    domain: str
    criterion: str
    conversation_id: str | None = None
    transcript: str
    label_passed: bool | None = None
    label_score: float | None = Field(default=None, ge=0.0, le=1.0)
    rationale: str = ""
    split: str = Field(default="train", pattern="^(train|dev|test)$")
    created_at: datetime | None = None


class MarkedConversation(NamedTuple):
    """A finished or errored conversation as metrics read it: the columns they count, and its marks.

    A named tuple, not a model: a report reads one per conversation of a run (50,000 and more),
    and building these is as cheap as the plain tuples they replace.
    """

    id: str
    agent: str
    domain: str
    case_id: str
    repeat: int
    bucket: str | None
    conflict: str | None
    status: str
    agent_turns: int | None
    agent_tokens: int | None
    agent_cost_usd: float | None
    marks: str | None
    """The summary's marks as JSON text (store/summaries.py); None for a conversation without verdicts."""
