"""The label rule: from many reviewers' overrides to one effective human label, or a dispute.

Written out for users in docs/calibration.md ("Which label counts"). For each item (a
conversation's criterion, of one verdict source for metrics, of any source for calibration):

1. each reviewer (override `author`) counts once, with their latest label (highest id);
2. the latest *adjudication* of the item, when there is one, is the effective label;
3. else, when every reviewer gives the same pass/fail, that is the effective label (its score is
   the mean of the scores given, its reason and tags the latest label's);
4. else the item is *disputed*: it has no effective label, is left out of the figures, and is
   counted (`Resolution.disputes`).

A label that carries no pass/fail (no `human_passed`, no score, no pass/fail word) is not counted.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar, overload

from sage_desk.core.judge.rubric import PASS_THRESHOLD

LABEL = "label"
ADJUDICATION = "adjudication"
KINDS = (LABEL, ADJUDICATION)
PASS_WORDS = frozenset({"pass", "passed", "true", "yes", "y", "ok", "good"})
FAIL_WORDS = frozenset({"fail", "failed", "false", "no", "n", "bad"})


class Label(Protocol):
    """A human label as the rule reads it: an override row (SQLAlchemy) or record (pydantic)."""

    @property
    def id(self) -> int: ...
    @property
    def conversation_id(self) -> str: ...
    @property
    def criterion(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def human_passed(self) -> bool | None: ...
    @property
    def human_score(self) -> float | None: ...
    @property
    def human_value(self) -> str | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def author(self) -> str | None: ...
    @property
    def created_at(self) -> datetime: ...


K = TypeVar("K", bound=Hashable)
"""What one item is: (conversation, criterion, source) with `by_verdict`, (conversation, criterion) with `by_criterion`."""


def word_pass(text: str | None) -> bool | None:
    """True/False for a pass or fail word, else None."""
    word = (text or "").strip().lower()
    return True if word in PASS_WORDS else False if word in FAIL_WORDS else None


def label_pass(override: Label) -> bool | None:
    """A label's pass/fail: `human_passed`, else its score >= the pass threshold, else a pass/fail word."""
    if override.human_passed is not None:
        return bool(override.human_passed)
    if override.human_score is not None:
        return bool(override.human_score >= PASS_THRESHOLD)
    return word_pass(override.human_value)


@dataclass(frozen=True)
class EffectiveLabel:
    """The human label that counts for one item, and how it came about."""

    id: int
    """The override in effect: the adjudication, or the latest of the agreeing labels."""
    human_passed: bool
    human_score: float | None
    human_value: str | None
    reason: str
    author: str
    created_at: datetime
    status: str
    """`single` (one reviewer), `agreed` (several, all the same) or `adjudicated`."""
    reviewers: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    corrected_reply: str | None = None


@dataclass(frozen=True)
class Dispute:
    """An item whose reviewers disagree and that no one has adjudicated yet."""

    key: Hashable
    labels: dict[str, Label]
    """reviewer -> their latest label (an override row or record)."""


@dataclass
class Resolution(Generic[K]):
    """Every item's effective label, and the disputed items left out."""

    labels: dict[K, EffectiveLabel] = field(default_factory=dict)
    disputes: dict[K, Dispute] = field(default_factory=dict)
    reviewers: dict[K, dict[str, Label]] = field(default_factory=dict)
    """item -> reviewer -> latest label, for every labelled item (agreement between humans reads it)."""


def by_verdict(override: Label) -> tuple[str, str, str]:
    """The key metrics use: one verdict source's criterion of a conversation."""
    return (override.conversation_id, override.criterion, override.source)


def by_criterion(override: Label) -> tuple[str, str]:
    """The key calibration uses: a conversation's criterion, whichever judge a label was written against."""
    return (override.conversation_id, override.criterion)


@overload
def resolve(overrides: Iterable[Label]) -> Resolution[tuple[str, str, str]]: ...
@overload
def resolve(overrides: Iterable[Label], key: Callable[[Label], K]) -> Resolution[K]: ...


def resolve(overrides: Iterable[Label], key: Callable[[Label], Any] = by_verdict) -> Resolution[Any]:  # typed by the overloads
    """Apply the label rule to overrides (rows or records, any order), one item per `key`."""
    latest: dict[Hashable, dict[str, Label]] = {}
    adjudicated: dict[Hashable, Label] = {}
    for o in sorted(overrides, key=lambda o: o.id):  # ascending ids: the last one wins
        if label_pass(o) is None:
            continue
        if (getattr(o, "kind", None) or LABEL) == ADJUDICATION:
            adjudicated[key(o)] = o
        else:
            latest.setdefault(key(o), {})[o.author or ""] = o
    out: Resolution[Any] = Resolution(reviewers=latest)
    for item in latest.keys() | adjudicated.keys():
        labels = latest.get(item, {})
        if item in adjudicated:
            out.labels[item] = _effective(adjudicated[item], [adjudicated[item]], "adjudicated", labels)
        elif len({label_pass(o) for o in labels.values()}) == 1:
            newest = max(labels.values(), key=lambda o: o.id)
            out.labels[item] = _effective(newest, list(labels.values()), "single" if len(labels) == 1 else "agreed", labels)
        else:
            out.disputes[item] = Dispute(item, labels)
    return out


def _effective(chosen: Label, counted: list[Label], status: str, labels: dict[str, Label]) -> EffectiveLabel:
    scores = [o.human_score for o in counted if o.human_score is not None]
    score = round(sum(scores) / len(scores), 4) if scores else None
    passed = label_pass(chosen)
    assert passed is not None  # resolve() counts only labels with a pass/fail
    return EffectiveLabel(
        id=chosen.id,
        human_passed=passed,
        human_score=score,
        human_value=chosen.human_value,
        reason=chosen.reason or "",
        author=chosen.author or "",
        created_at=chosen.created_at,
        status=status,
        reviewers=tuple(sorted(labels)),
        tags=tuple(getattr(chosen, "tags", None) or ()),
        corrected_reply=getattr(chosen, "corrected_reply", None),
    )
