"""Verdicts for conversations already stored: a whole run, in batches."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.rules.engine import evaluate
from sage_desk.core.rules.verdict import RULES_SOURCE

if TYPE_CHECKING:
    from sage_desk.core.store import Store
    from sage_desk.core.store.records import ConversationRecord

BATCH = 500


def verdict_stored(
    store: Store,
    conversations: Sequence[ConversationRecord],
    cases: dict[str, Case],
    bundle: DomainBundle,
    on_batch: Callable[[int], None] | None = None,
) -> int:
    """Run the rule engine over stored conversations (one read and one write per batch); returns verdicts written."""
    written = 0
    for start in range(0, len(conversations), BATCH):
        batch = [c for c in conversations[start : start + BATCH] if c.case_id in cases]
        events = store.events_many([c.id for c in batch])
        found = {c.id: evaluate(cases[c.case_id], bundle, events[c.id], conversation_id=c.id) for c in batch}
        store.save_verdicts_many(RULES_SOURCE, found)
        written += sum(len(v) for v in found.values())
        if on_batch is not None:
            on_batch(start + len(batch))
    return written
