"""An in-memory recorder: for tests, previews and one-off conversations that need no database."""

from __future__ import annotations

from sage_desk.core.events import Event, TerminationReason


class MemoryRecorder:
    """Keeps every conversation's events in a dict."""

    def __init__(self) -> None:
        self.events: dict[str, list[Event]] = {}
        self.finished: dict[str, tuple[TerminationReason, str | None]] = {}

    def start_conversation(self, conversation_id: str) -> None:
        self.events[conversation_id] = []
        self.finished.pop(conversation_id, None)

    def append_many(self, conversation_id: str, events: list[Event]) -> None:
        self.events.setdefault(conversation_id, []).extend(events)

    def finish(
        self, conversation_id: str, reason: TerminationReason, error: str | None = None, events: list[Event] | None = None
    ) -> None:
        self.finished[conversation_id] = (reason, error)
