"""Verdicts as conversations finish: the rule engine, then any judges, stored per source."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.rules.engine import evaluate
from sage_desk.core.rules.verdict import RULES_SOURCE


def verdict_hook(store: Any, judges: Sequence[Any] = ()) -> Any:
    """A runner post-hook that stores rule verdicts and each judge's verdicts for a conversation."""

    async def post(conversation_id: str, case: Case, bundle: DomainBundle, outcome: Any) -> None:
        store.save_verdicts(conversation_id, RULES_SOURCE, evaluate(case, bundle, outcome.events, conversation_id=conversation_id))
        for judge in judges:
            verdicts = await judge.judge(case, bundle, outcome.events)
            for v in verdicts:
                v.conversation_id = conversation_id
            store.save_verdicts(conversation_id, judge.source, verdicts)

    return post
