"""Review in queue mode: the list is a review queue's conversations, in its order, and the next item comes from it.

Choosing a queue (the Queue list above the conversations) shows its conversations, the queue bar
with its progress, and selects the reviewer's next item (`next_item`, which claims it for them).
Skip and Flag… append marks; a saved label counts at once (progress is read from the labels).
In a blind queue the judge's values and other reviewers' labels stay hidden on an item until the
reviewer has labelled it (`blind.py`). Progress is read again after every label and mark, on
Refresh (F5), and every `POLL_MS` while the screen shows, so other reviewers' work appears.

The queue, its progress and reveals are the session's (`core/review/session.py`, over
`core/store/queues.py`); this module only shows them and asks.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QInputDialog

from sage_desk.core.errors import SageError
from sage_desk.core.review.session import FLAG, SKIP, UNFLAG, OverrideRecord, QueueProgress, QueueRecord, list_cells

POLL_MS = 15_000
"""Other reviewers' progress is read again this often while a queue is shown."""


class QueueMode(QObject):
    """The Review screen's queue mode: which queue, its progress, and its actions (Next, Skip, Flag)."""

    def __init__(self, screen: Any):
        super().__init__(screen)
        self.screen = screen
        self.session = screen.session
        self.flag_dialog: QInputDialog | None = None
        self._next_after_save = False  # Enter or N saved keyed values: the next item once they land
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._on_poll)
        bar = screen.queue_bar
        bar.next_requested.connect(self.next)
        bar.skip_requested.connect(self.skip)
        bar.flag_requested.connect(self.flag)
        screen.filters.queue_chosen.connect(self.choose)
        screen.workspace.verdicts_changed.connect(self._on_labelled)
        self.session.progress_changed.connect(self._on_progress)  # the bar and the list follow the session

    @property
    def record(self) -> QueueRecord | None:
        """The shown queue (the session's)."""
        return self.session.queue

    @property
    def state(self) -> QueueProgress | None:
        """The shown queue's progress as last read."""
        return self.session.progress

    @property
    def active(self) -> bool:
        """Whether a queue is shown."""
        return self.record is not None

    @property
    def name(self) -> str | None:
        return self.record.name if self.record is not None else None

    def holds(self, conversation_id: str | None) -> bool:
        """Whether a conversation is one of the shown queue's."""
        return self.session.holds(conversation_id)

    def reviewer(self) -> str:
        return self.screen.reviewer()

    # --- choosing a queue -------------------------------------------------------------------

    def list_queues(self) -> None:
        """Offer the store's queues in the Queue list (keeping the chosen one)."""
        try:
            queues = self.session.queues()
        except SageError as exc:
            self.screen._report("Could not read the review queues", exc)
            return
        self.screen.filters.set_queues(queues, self.name)
        if self.active and self.name not in {q.name for q in queues}:
            self.leave()

    def choose(self, name: str | None) -> None:
        """Show a queue (None: back to the run's conversations); asks the reviewer's name first when there is none."""
        if name is None:
            self.leave()
        elif name != self.name:
            if not self.screen.reviewer_known(then=lambda: self._choose_named(name)):
                self.screen.filters.choose_queue(self.name)  # back, until a name is chosen
                return
            self.enter(name)

    def _choose_named(self, name: str) -> None:
        self.screen.filters.choose_queue(name)
        self.choose(name)

    def reenter(self, name: str) -> bool:
        """The last session's queue, entered again when it is still listed and the reviewer's name is known."""
        if self.active or not self.reviewer() or self.screen.filters.queue.findData(name) <= 0:
            return False
        self.screen.filters.choose_queue(name)
        return self.enter(name)

    def enter(self, name: str) -> bool:
        """Show the queue's conversations and progress, and select the reviewer's next item."""
        screen = self.screen
        try:
            table = self.session.enter_queue(name)
        except SageError as exc:
            self.session.leave_queue()
            screen._report(f"Could not open queue {name}", exc)
            screen.filters.choose_queue(None)
            return False
        screen.list_reader.stop()  # a run's list still being read must not add its pages to the queue's
        assert self.record is not None  # entered just above
        screen.filters.set_queue_mode(True, self.record.blind, table.run_id or None)
        screen.list_model.set_table(table)
        screen.filters.set_choices(table.choices())
        screen.queue_bar.show_queue(self.record, self.reviewer())
        screen.queue_bar.say("")
        screen.queue_bar.show()
        self.update_progress()
        screen._apply_filter()
        self._poll.start()
        self.next(entering=True)
        self.refresh_item()  # the conversation shown before may be the queue's first: it is blind now
        return True

    def leave(self) -> None:
        """Back to the run's conversations."""
        if self.record is None:
            return
        self.session.leave_queue()
        self._poll.stop()
        screen = self.screen
        screen.queue_bar.hide()
        screen.filters.set_queue_mode(False, False, None)
        screen.filters.choose_queue(None)
        screen.list_model.set_queue_view(None, frozenset())
        screen.verdict_model.set_blind(False)
        screen.refresh(force=True)
        self.refresh_item()

    def reload(self) -> None:
        """Read the queue's conversations and progress again (Refresh)."""
        if self.record is None:
            return
        keep = self.screen.detail.id if self.screen.detail else None
        try:
            table = self.session.queue_table()
        except SageError as exc:
            self.screen._report("Could not read the queue", exc)
            return
        self.screen.list_model.set_table(table)
        self.update_progress()
        self.screen._apply_filter(keep)

    # --- progress ---------------------------------------------------------------------------

    def update_progress(self) -> None:
        """Read the queue's progress: the bar, the list's marks, the shown item's Skip and Flag."""
        if self.record is None:
            return
        try:
            self.session.read_progress()  # _on_progress shows it
        except SageError as exc:
            self.screen.queue_bar.say(f"Could not read the progress: {exc}")

    def _on_progress(self, state: QueueProgress) -> None:
        """The session read the queue's progress: the bar, the list's marks, the shown item's Skip and Flag."""
        if self.record is None:
            return
        reviewer = self.reviewer()
        self.screen.queue_bar.show_queue(self.record, reviewer)
        self.screen.queue_bar.show_progress(state, reviewer)
        self.screen.list_model.set_queue_view(*list_cells(state, reviewer))
        self.show_item()

    def show_item(self) -> None:
        """Skip and Flag follow the shown conversation."""
        detail = self.screen.detail
        cid = detail.id if detail is not None else None
        mine = self.session.flagged_by(cid, self.reviewer())
        self.screen.queue_bar.show_item(self.holds(cid), mine)

    def _on_poll(self) -> None:
        if self.screen.isVisible():
            self.update_progress()

    # --- the queue's actions ----------------------------------------------------------------

    def next(self, entering: bool = False) -> None:
        """Go to the reviewer's next item (values keyed on this one are saved first)."""
        screen = self.screen
        if self.record is None:
            screen.message.emit("Choose a review queue first (Queue, above the list)")
            return
        if not screen.reviewer_known(then=self.next):
            return
        if screen.verdict_model.pending:  # save first; the next item once the label counts
            self.save_and_next()
            return
        self._next_after_save = False
        try:
            item = self.session.next_item(self.reviewer())
        except SageError as exc:
            screen.queue_bar.say(str(exc))
            screen.message.emit(str(exc))
            return
        self.update_progress()
        if item is None:
            self._say_done()
            return
        shown = not entering and screen.detail is not None and screen.detail.id == item.conversation_id
        where = f"Item {item.position + 1} of {self.record.size}"
        screen.queue_bar.say(f"{where} is still yours: label it (Enter saves) or Skip it" if shown else where)
        self.select(item.conversation_id)

    def save_and_next(self) -> None:
        """Save the values keyed on this item, then go to the next item once the save has landed."""
        screen = self.screen
        if screen.detail is None or not screen.verdict_model.pending:
            self.next()
            return
        self._next_after_save = True
        screen.save()

    def select(self, conversation_id: str) -> None:
        """Select a queue item in the list (clearing filters that hide it) with the keyboard on the list."""
        screen = self.screen
        position = screen.list_model.position_of(conversation_id)
        if position is None:
            screen.filters.clear_filters()
            position = screen.list_model.position_of(conversation_id)
        if position is not None:
            screen.select_position(position, centre=True)
        screen._focus_list()
        self.show_item()

    def _say_done(self) -> None:
        state, name = self.state, self.name
        if state is not None and state.done >= state.total:
            text = f"Queue {name} is done: all {state.total} items have their reviews."
        else:
            summary = state.summary if state is not None else ""
            text = f"Nothing left for you in {name} ({summary}): the rest wait on other reviewers or were skipped."
        self.screen.queue_bar.say(text, done=True)
        self.screen.message.emit(text)

    def _current(self) -> str | None:
        detail = self.screen.detail
        if detail is None or not self.holds(detail.id) or self.record is None:
            self.screen.message.emit("Select one of the queue's conversations first")
            return None
        return detail.id

    def skip(self) -> None:
        """Skip the shown item (other reviewers get it) and go to the next."""
        cid = self._current()
        if cid is None or not self._mark(cid, SKIP):
            return
        self.screen.message.emit(f"Skipped {cid}")
        self.next()

    def flag(self) -> None:
        """Flag the shown item with a note (asked for), or take the reviewer's flag back."""
        cid = self._current()
        if cid is None:
            return
        if self.session.flagged_by(cid, self.reviewer()):
            if self._mark(cid, UNFLAG):
                self.screen.message.emit(f"Took your flag off {cid}")
            return
        dialog = QInputDialog(self.screen)
        dialog.setObjectName("flagDialog")
        dialog.setWindowTitle("Flag this item")
        dialog.setLabelText(f"Why flag {cid}? (the queue's owner reads this)")
        dialog.textValueSelected.connect(lambda note: self._flag(cid, note))
        dialog.finished.connect(self._on_flag_dialog_closed)
        self.flag_dialog = dialog
        dialog.open()

    def _on_flag_dialog_closed(self, _result: int) -> None:
        if self.flag_dialog is not None:
            self.flag_dialog.deleteLater()
            self.flag_dialog = None

    def _flag(self, cid: str, note: str) -> None:
        if self._mark(cid, FLAG, note.strip()):
            self.screen.message.emit(f"Flagged {cid}" + (f": {note.strip()}" if note.strip() else ""))

    def _mark(self, cid: str, action: str, note: str = "") -> bool:
        if self.record is None:
            return False
        try:
            self.session.mark(cid, self.reviewer(), action, note)
        except SageError as exc:
            self.screen._report(f"Could not {action} {cid}", exc)
            return False
        self.update_progress()
        return True

    # --- blind mode -------------------------------------------------------------------------

    def visible_overrides(self, conversation_id: str, overrides: list[OverrideRecord]) -> list[OverrideRecord]:
        """Set the verdict table blind or not for this conversation; the overrides the reviewer may see."""
        reviewer = self.reviewer()
        blind = self.session.blind_for(conversation_id, reviewer)  # when in doubt, the judge stays hidden
        record = self.record
        self.screen.verdict_model.set_blind(blind, record.criteria if blind and record is not None else ())
        return [o for o in overrides if o.author == reviewer] if blind else overrides

    def refresh_item(self) -> None:
        """Show the selected conversation's verdicts and history as the reviewer may see them now."""
        screen = self.screen
        if screen.detail is None or screen.store is None:
            return
        row = screen.selected_verdict_row()
        screen.overrides = self.visible_overrides(screen.detail.id, screen.store.overrides(conversation_id=screen.detail.id))
        screen._on_verdict(row)
        self.show_item()

    def _reread_row(self) -> None:
        """The shown item's row of the list again (its judge and human figures), whichever run it is from."""
        screen = self.screen
        detail = screen.detail
        if detail is None or not self.holds(detail.id) or screen.list_model.table.row_of(detail.id) is None:
            return
        screen.list_model.replace_summary(detail.id, screen.store.conversation_table(detail.record.run_id, [detail.id]))

    def _on_labelled(self, _run_id: str) -> None:
        """A label was saved (here or on another screen): progress, and what the reviewer may now see."""
        if self.record is None:
            return
        self.update_progress()
        self._reread_row()
        self.refresh_item()
        if self._next_after_save:
            self._next_after_save = False
            self.next()
