"""Review's override loop: key a value (and failure-mode tags) on a verdict; Enter saves every keyed
value of the conversation as overrides in one all-or-nothing call, on a thread, and moves on; what
a save brings back updates the row and the verdicts.

A save the store refuses saves nothing (`Store.add_overrides` is one transaction) and loses
nothing: its values, tags, reason and corrected reply go back on screen, keyed again and unsaved,
beside the error. When the reviewer has already moved on, the screen goes back to that
conversation, unless values are keyed on the one on show; then they come back when the reviewer
opens it again.

A mixin of `ReviewScreen`: it reads the screen's verdict model, override panel, list model,
workspace and `message` signal, and keeps the saves on their way in `_saves`. It also knows the
name labels carry: the Author field, else the reviewer profile, asked for once when neither says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox

from sage_desk.core.review.session import NewOverride, ReviewSession
from sage_desk.gui.common.reviewer_dialog import ReviewerDialog, ask_reviewer_name, current_name
from sage_desk.gui.review.saving import Saved, SaveThread, new_overrides
from sage_desk.gui.review.verdict_model import HumanValue, keys_for, value_for_key

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QWidget

    from sage_desk.core.review.session import OverrideRecord
    from sage_desk.gui.common.workspace import Workspace
    from sage_desk.gui.review.blind import BlindVerdictModel
    from sage_desk.gui.review.detail import ConversationDetail
    from sage_desk.gui.review.filter_bar import FilterBar
    from sage_desk.gui.review.list_model import ConversationListModel
    from sage_desk.gui.review.override_panel import OverridePanel
    from sage_desk.gui.review.queue_bar import QueueBar
    from sage_desk.gui.review.queue_mode import QueueMode

    _Base = QWidget
else:
    _Base = object


class OverrideLoop(_Base):
    """Keyed values, their saves, and what a save brings back."""

    if TYPE_CHECKING:  # the screen's parts this mixin works on (ReviewScreen has them)
        workspace: Workspace
        session: ReviewSession
        detail: ConversationDetail | None
        overrides: list[OverrideRecord]
        filters: FilterBar
        list_model: ConversationListModel
        verdict_model: BlindVerdictModel
        override: OverridePanel
        message: SignalInstance
        _saves: list[SaveThread]
        name_dialog: ReviewerDialog | None
        queue: QueueMode
        queue_bar: QueueBar

        def selected_verdict_row(self) -> int: ...
        def select_position(self, position: int, centre: bool = False) -> None: ...
        def move_conversation(self, step: int) -> None: ...
        def _select_verdict(self, row: int) -> None: ...
        def _on_verdict(self, row: int) -> None: ...
        def _focus_list(self) -> None: ...
        def _report(self, title: str, error: BaseException | str) -> None: ...

    def key_value(self, key: str) -> None:
        """Key a human value on the selected verdict ("1"-"5", "p", "x"; "" clears it); saved with Enter."""
        row = self.selected_verdict_row()
        verdict = self.verdict_model.verdict(row)
        if verdict is None:
            self.message.emit("Pick a verdict first (← → or click one)")
            return
        value = value_for_key(verdict, key) if key else None
        if key and value is None:
            self.message.emit(f"Key {key.upper()} does not fit {verdict.criterion}: {keys_for(verdict)}")
            return
        if value is None:
            self.override.set_tags(verdict.id, ())
        self.verdict_model.set_pending(row, value)
        self.override.set_pending_count(len(self.verdict_model.pending))

    def _on_tags(self, tags: tuple[str, ...]) -> None:
        """Tags ticked on a verdict with no keyed value label it with its current value (the reviewer agrees)."""
        row = self.selected_verdict_row()
        verdict = self.verdict_model.verdict(row)
        if verdict is None or not tags or verdict.id in self.verdict_model.pending:
            return
        if verdict.unscored or (verdict.passed is None and verdict.score is None):
            self.override.set_tags(verdict.id, ())
            self.message.emit(f"Key a value for {verdict.criterion} first ({keys_for(verdict)}), then tag it")
            return
        self.verdict_model.set_pending(row, HumanValue(verdict.passed, verdict.score))
        self.override.set_pending_count(len(self.verdict_model.pending))

    def _on_enter(self) -> None:
        if self.focusWidget() is self.filters.search:
            self._focus_list()
            return
        self.save_and_next()

    def save_and_next(self) -> None:
        """Save every keyed value of this conversation as overrides, then go to the next conversation."""
        if self.detail is not None and not self.verdict_model.pending and self.override.reply_text():
            self.message.emit("A corrected reply is saved with a label: key a value (P/X or 1-5) first")
            return
        if self.detail is not None and self.verdict_model.pending:
            self.save()
        self._focus_list()
        self.move_conversation(1)

    def save(self) -> bool:
        """Append the keyed values as overrides in one call, on a thread (the store may wait on a run's writes)."""
        items = self.verdict_model.pending_items()
        if self.detail is None or not items:
            return True
        panel = self.override
        tags = {verdict.id: panel.tags_of(verdict.id) for verdict, _ in items}
        news = new_overrides(
            self.detail.id, items, tags, panel.reason.text().strip(), panel.reply_text(), panel.author.text().strip()
        )
        thread = SaveThread(self.session.need_store(), self.detail.record.run_id, items, news, parent=self)
        thread.ended.connect(lambda outcome, t=thread: self._on_saved(t, outcome))
        self._saves.append(thread)
        self.verdict_model.pending.clear()
        panel.reason.clear()
        panel.clear_reply()
        panel.clear_tags()
        panel.set_pending_count(0)
        self.message.emit(f"Saving {len(items)} override(s) on {self.detail.id}…")
        thread.start()
        return True

    def _on_saved(self, thread: SaveThread, outcome: Any) -> None:
        if thread in self._saves:
            self._saves.remove(thread)
        thread.wait()
        thread.deleteLater()
        if outcome.error is not None:
            self._on_save_failed(thread, outcome.error)
        elif outcome.result is not None:
            self._after_save(outcome.result)

    def _on_save_failed(self, thread: SaveThread, error: BaseException) -> None:
        """Nothing was saved: put the values back on screen, unsaved, and say why."""
        cid = thread.conversation_id
        self._failed_saves()[cid] = thread.overrides
        here = self.detail is not None and self.detail.id == cid
        if here:
            self._restore_failed()
        elif not self.verdict_model.pending and (position := self.list_model.position_of(cid)) is not None:
            self.select_position(position, centre=True)  # restored as it shows
        what = ", ".join(f"{v.criterion} → {value.text()}" for v, value in thread.items)
        back = (
            "they are keyed again, unsaved"
            if self.detail is not None and self.detail.id == cid
            else f"they come back when you open {cid}"
        )
        self._report(f"Nothing saved on {cid} ({what}): {back}", error)

    def _failed_saves(self) -> dict[str, list[NewOverride]]:
        """conversation id -> the overrides of a save that failed, waiting to be keyed again."""
        return self.__dict__.setdefault("_failed", {})

    def conversation_shown(self) -> None:
        """The screen shows another conversation: its domain's tags, and any values a failed save left."""
        bundle = self.detail.bundle if self.detail is not None else None
        self.override.set_failure_modes(list(bundle.domain.failure_modes) if bundle is not None else [])
        self.override.clear_tags()
        self.override.clear_reply()
        self._restore_failed()
        self._on_verdict(self.selected_verdict_row())

    def _restore_failed(self) -> None:
        if self.detail is None or self.detail.id not in self._failed_saves():
            return
        overrides = self._failed_saves().pop(self.detail.id)
        for new in overrides:
            row = self.verdict_model.row_of(new.criterion, new.source)
            verdict = self.verdict_model.verdict(row if row is not None else -1)
            if row is None or verdict is None:  # re-judged without this criterion since: nothing to key it on
                continue
            self.verdict_model.set_pending(row, HumanValue(new.human_passed, new.human_score))
            self.override.set_tags(verdict.id, new.tags)
        first = overrides[0]
        self.override.reason.setText(first.reason)
        self.override.set_reply(first.corrected_reply or "")
        self.override.set_pending_count(len(self.verdict_model.pending))
        self._on_verdict(self.selected_verdict_row())

    def wait_for_saves(self, timeout_ms: int = 30_000) -> None:
        """Let every save on its way land (closing the window, tests)."""
        for thread in list(self._saves):
            thread.wait(timeout_ms)
        QCoreApplication.sendPostedEvents()

    def _after_save(self, saved: Saved) -> None:
        if self.list_model.table.ids and saved.run_id == self.filters.run_id():
            self.list_model.replace_summary(saved.conversation_id, saved.summary)
        if self.detail is not None and self.detail.id == saved.conversation_id:
            self.detail.verdicts = saved.verdicts
            self.overrides = saved.overrides
            keep = self.selected_verdict_row()
            pending = dict(self.verdict_model.pending)
            self.verdict_model.set_verdicts(saved.verdicts)
            self.verdict_model.pending.update(pending)  # values keyed since: still there to save
            self._select_verdict(max(keep, 0))
        what = ", ".join(f"{v.criterion} → {value.text()}" for v, value in saved.items)
        self.message.emit(f"Saved {len(saved.items)} override(s) on {saved.conversation_id}: {what}")
        self._saving = True
        try:
            self.workspace.verdicts_changed.emit(saved.run_id)
        finally:
            self._saving = False

    def _drop_pending(self) -> None:
        if self.detail is not None and (self.verdict_model.pending or self.override.reply_text()):
            self.message.emit(
                f"Dropped {len(self.verdict_model.pending)} unsaved value(s) on {self.detail.id} (Enter saves before moving on)"
            )

    def can_close(self) -> bool:
        """Ask before dropping keyed values that were not saved (saves on their way are waited for)."""
        self.wait_for_saves()
        unsaved = len(self.verdict_model.pending) + sum(len(o) for o in self._failed_saves().values())
        if not unsaved:
            return True
        answer = QMessageBox.question(self, "Unsaved overrides", f"{unsaved} keyed value(s) are not saved. Close anyway?")
        return answer == QMessageBox.StandardButton.Yes

    # --- the name labels carry ---------------------------------------------------------------

    def reviewer(self) -> str:
        """The name labels are saved under: the Author field, else the reviewer profile ("" when neither)."""
        return self.override.author.text().strip() or current_name()

    def reviewer_known(self, then: Any = None) -> bool:
        """Whether labels have a name to carry; if not, ask for it (`then()` runs once it is chosen)."""
        name = self.reviewer()
        if name:
            if not self.override.author.text().strip():
                self.override.author.setText(name)
            return True
        if self.name_dialog is None:
            self.name_dialog = ask_reviewer_name(
                self,
                "Who is labelling? Choose the name your labels carry.",
                then=lambda _name: then() if then is not None else None,
            )
            self.name_dialog.finished.connect(self._on_name_dialog_closed)
        return False

    def _on_name_dialog_closed(self, result: int) -> None:
        self.name_dialog = None
        if not result:
            self.message.emit("Not saved: labels need a reviewer name (File > Reviewer Name…)")

    def _on_reviewer_named(self, name: str) -> None:
        self.override.author.setText(name)
        self.queue_bar.say("")  # a message about the old name ("… is not a reviewer") no longer holds
        self.queue.update_progress()
