"""The deterministic rule engine: verdicts read from events, never an LLM.

Rule families are plug-ins: a function taking a `RuleContext` and returning verdicts, registered
with `@rule(name)`. `evaluate` runs every registered family (or the ones named) in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.tools import CLOSE
from sage_desk.core.events import Event, ToolCall
from sage_desk.core.registry import Registry
from sage_desk.core.rules.acts import ActReading, acts_of, args_match, normalize, read_acts
from sage_desk.core.rules.disclosure import Disclosure, disclosures
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.sop.model import NodeKind
from sage_desk.core.sop.paths import Path

__all__ = ["RuleContext", "args_match", "evaluate", "is_close", "normalize", "rule", "rule_families"]

RuleFn = Callable[["RuleContext"], list[Verdict]]


def _shipped_families() -> None:
    import sage_desk.core.rules.families  # registers the shipped families
    import sage_desk.core.rules.procedure  # noqa: F401  (after them: the procedure family's verdicts come last)


RULES: Registry[RuleFn] = Registry("rule family", load=_shipped_families)


def rule(name: str) -> Callable[[RuleFn], RuleFn]:
    """Register a rule family; a duplicate name raises."""
    return RULES.register(name)


def rule_families() -> list[str]:
    """Names of every registered rule family, in registration order."""
    return RULES.names()


@dataclass
class RuleContext:
    """What rules read: the case, its domain, the conversation's events and one reading of its acts."""

    case: Case
    bundle: DomainBundle
    events: Sequence[Event]
    source: str = "rules"
    verdicts: list[Verdict] = field(default_factory=list)

    @cached_property
    def tool_calls(self) -> list[ToolCall]:
        return [e for e in self.events if isinstance(e, ToolCall)]

    @cached_property
    def actions(self) -> list[ToolCall]:
        """Domain tool calls that took effect or were refused only by a guard (the agent's acts)."""
        return acts_of(self.bundle, self.events)

    @cached_property
    def path(self) -> Path | None:
        """The case's expected path of the graph (None when the graph lacks it)."""
        return self.bundle.paths_by_id().get(self.case.expected.path)

    @cached_property
    def reading(self) -> ActReading:
        """The conversation's acts read against the expected path (rules/acts.py)."""
        return read_acts(self.case, self.bundle, self.events, self.path.end if self.path else None)

    @cached_property
    def disclosures(self) -> list[Disclosure]:
        """The expected path's `tell:` steps, each with the values the agent's replies lacked (rules/disclosure.py)."""
        return disclosures(self.case, self.bundle, self.events, self.reading.steps)

    def decision_node(self, field_name: str) -> str | None:
        """The decision on the expected path that branches on `field_name`."""
        for node_id in self.path.nodes if self.path else []:
            node = self.bundle.graph.node(node_id)
            if node is not None and node.kind == NodeKind.DECISION and node.field == field_name:
                return node_id
        return None

    def ending(self) -> tuple[str, int | None]:
        """How the ticket ended ('escalated' if handed over at any point, else the last close
        outcome, else 'open') and the event's seq."""
        return self.reading.ending, self.reading.ending_seq

    def verdict(self, criterion: str, passed: bool | None, rationale: str = "", **extra: Any) -> Verdict:
        return Verdict(source=self.source, criterion=criterion, passed=passed, rationale=rationale, **extra)


def evaluate(
    case: Case, bundle: DomainBundle, events: Iterable[Event], families: Iterable[str] | None = None, conversation_id: str = ""
) -> list[Verdict]:
    """Every verdict of every (or the named) rule family for one conversation."""
    run = [RULES.get(name) for name in (rule_families() if families is None else families)]
    ctx = RuleContext(case, bundle, list(events))
    verdicts: list[Verdict] = []
    for family in run:
        verdicts += family(ctx)
    for v in verdicts:
        v.conversation_id = conversation_id
    return verdicts


def is_close(call: ToolCall, outcome: str) -> bool:
    return (
        call.name == CLOSE
        and isinstance(call.arguments, dict)
        and call.arguments.get("outcome") == outcome
        and call.error is None
    )
