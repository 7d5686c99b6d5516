"""Verdicts as conversations finish: the rule engine, then any judges, stored per source.

The runner records a conversation's finish only after this hook has stored every verdict (with
a batched store, in the same transaction), and a resume runs it again on finished conversations
that miss the verdicts of one of its `sources`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.errors import SageError
from sage_desk.core.events import Event
from sage_desk.core.judge.factory import NO_JUDGE, Judge, check_judge_names, judge_source, make_judges
from sage_desk.core.rules.engine import evaluate
from sage_desk.core.rules.verdict import RULES_SOURCE, Verdict


class VerdictSink(Protocol):
    """Where a hook stores verdicts: the store, or the run's batch writer (which holds them until the finish)."""

    def save_verdicts(self, conversation_id: str, source: str, verdicts: Iterable[Verdict]) -> None: ...


async def judge_conversation(
    judge: Judge, conversation_id: str, case: Case, bundle: DomainBundle, events: Sequence[Event]
) -> list[Verdict]:
    """One judge's verdicts; a judge that fails leaves the conversation unscored, never failed."""
    try:
        verdicts = await judge.judge(case, bundle, events)
    except SageError as exc:
        # JUDGE_FAILED in store/conversations.py: a resume judges this conversation again, and the run counts it unjudged
        verdicts = [
            Verdict(source=judge.source, criterion="judge", unscored=True, rationale=f"unscored: the judge failed: {exc}")
        ]
    for v in verdicts:
        v.conversation_id = conversation_id
    return verdicts


def judge_sources(names: Sequence[str]) -> tuple[str, ...]:
    """The verdict source each judge name stores under (as `make_judges` builds them), without building them."""
    return tuple(judge_source(n) for n in names if n not in NO_JUDGE)


class VerdictPost:
    """A runner post-hook that stores rule verdicts and each judge's verdicts for a conversation."""

    def __init__(self, store: VerdictSink, judges: Sequence[Judge] = ()) -> None:
        self.store = store
        self.judges = list(judges)
        self.sources = (RULES_SOURCE, *(j.source for j in self.judges))  # what a judged conversation has

    async def __call__(self, conversation_id: str, case: Case, bundle: DomainBundle, outcome: Any) -> None:
        store = self.store
        store.save_verdicts(
            conversation_id, RULES_SOURCE, evaluate(case, bundle, outcome.events, conversation_id=conversation_id)
        )
        for judge in self.judges:
            store.save_verdicts(
                conversation_id, judge.source, await judge_conversation(judge, conversation_id, case, bundle, outcome.events)
            )


def verdict_hook(store: VerdictSink, judges: Sequence[Judge] = ()) -> VerdictPost:
    """A runner post-hook that stores rule verdicts and each judge's verdicts for a conversation."""
    return VerdictPost(store, judges)


@dataclass(frozen=True)
class VerdictHooks:
    """A picklable post-hook factory: on a given store, the rule engine and these judges.

    Worker processes (`Runner(workers=N)`) each build their hook from it on their own store.
    An unknown offline judge is refused here, before any run is created.
    """

    judges: tuple[str, ...] = ()
    api_base: str | None = None

    def __post_init__(self) -> None:
        check_judge_names(self.judges)

    @property
    def sources(self) -> tuple[str, ...]:
        """The verdict sources every finished conversation gets: the rules, then each judge."""
        return (RULES_SOURCE, *judge_sources(self.judges))

    def __call__(self, store: VerdictSink) -> VerdictPost:
        return verdict_hook(store, make_judges(list(self.judges), api_base=self.api_base))
