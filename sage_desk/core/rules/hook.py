"""Verdicts as conversations finish: the rule engine, then any judges, stored per source."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.engine.events import Event
from sage_desk.core.errors import SageError
from sage_desk.core.rules.engine import evaluate
from sage_desk.core.rules.verdict import RULES_SOURCE, Verdict


async def judge_conversation(judge: Any, conversation_id: str, case: Case, bundle: DomainBundle,
                             events: Sequence[Event]) -> list[Verdict]:
    """One judge's verdicts; a judge that fails leaves the conversation unscored, never failed."""
    try:
        verdicts = await judge.judge(case, bundle, events)
    except SageError as exc:
        verdicts = [Verdict(source=judge.source, criterion="judge", unscored=True, rationale=f"unscored: the judge failed: {exc}")]
    for v in verdicts:
        v.conversation_id = conversation_id
    return verdicts


def verdict_hook(store: Any, judges: Sequence[Any] = ()) -> Any:
    """A runner post-hook that stores rule verdicts and each judge's verdicts for a conversation."""

    async def post(conversation_id: str, case: Case, bundle: DomainBundle, outcome: Any) -> None:
        store.save_verdicts(conversation_id, RULES_SOURCE, evaluate(case, bundle, outcome.events, conversation_id=conversation_id))
        for judge in judges:
            store.save_verdicts(conversation_id, judge.source,
                                await judge_conversation(judge, conversation_id, case, bundle, outcome.events))

    return post


@dataclass(frozen=True)
class VerdictHooks:
    """A picklable post-hook factory: on a given store, the rule engine and these judges.

    Worker processes (`Runner(workers=N)`) each build their hook from it on their own store.
    """

    judges: tuple[str, ...] = ()
    api_base: str | None = None

    def __call__(self, store: Any) -> Any:
        from sage_desk.core.judge.factory import make_judges

        return verdict_hook(store, make_judges(list(self.judges), api_base=self.api_base))
