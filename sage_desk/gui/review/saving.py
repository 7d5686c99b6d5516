"""Saving overrides off the GUI thread, all or nothing.

A reviewer's Enter appends every keyed value of the conversation as overrides in one
`Store.add_overrides` call (one transaction: a refused override saves none of them), then re-reads
the conversation's summary row and verdicts. While a run writes to the same SQLite file those
writes can wait on its lock for seconds (one waited 9 s), so they happen on a thread; the screen
moves on at once and applies the re-read figures when the save lands, or puts the keyed values
back on screen when it failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sage_desk.core.review.session import NewOverride
from sage_desk.gui.common.async_thread import AsyncThread

if TYPE_CHECKING:
    from sage_desk.core.review.session import Store


@dataclass(frozen=True)
class Saved:
    """What one save wrote, and the conversation's figures read back after it."""

    conversation_id: str
    run_id: str
    items: list[tuple[Any, Any]]  # (verdict, human value)
    summary: Any  # the conversation's row of the list, as `Store.conversation_table` reads it
    verdicts: list[Any]
    overrides: list[Any]


def new_overrides(
    conversation_id: str,
    items: list[tuple[Any, Any]],
    tags: dict[int, tuple[str, ...]],
    reason: str,
    corrected_reply: str,
    author: str,
) -> list[NewOverride]:
    """One reviewer label per keyed value: its verdict's tags, the save's reason, corrected reply and author."""
    return [
        NewOverride(
            conversation_id,
            verdict.criterion,
            verdict.source,
            human_passed=value.passed,
            human_score=value.score,
            reason=reason,
            author=author,
            verdict_id=verdict.id,
            tags=tags.get(verdict.id, ()),
            corrected_reply=corrected_reply or None,
        )
        for verdict, value in items
    ]


class SaveThread(AsyncThread):
    """Appends one conversation's keyed values as overrides in one transaction; ends with `Saved` (or the store's error)."""

    def __init__(self, store: Store, run_id: str, items: list[tuple[Any, Any]], overrides: list[NewOverride], parent: Any = None):
        super().__init__(parent)
        self.store, self.run_id = store, run_id
        self.items, self.overrides = items, overrides
        self.conversation_id = overrides[0].conversation_id
        self.setObjectName(f"save-{self.conversation_id}")

    async def work(self) -> Saved:
        store, cid = self.store, self.conversation_id
        store.add_overrides(self.overrides)
        return Saved(
            cid,
            self.run_id,
            self.items,
            store.conversation_table(self.run_id, [cid]),
            store.effective_verdicts(conversation_id=cid),
            store.overrides(conversation_id=cid),
        )
