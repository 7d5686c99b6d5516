"""The Review screen: a run's conversations beside the selected one's transcript, tool calls, verdicts and route.

Layout: the filter bar on top; the conversation list on the left; on the right the transcript
over the tool-call timeline, and the verdicts (with the override panel) over the route graph.
Choosing a verdict highlights its event in the transcript and the timeline and its node on the graph.

Overrides are written a conversation at a time through `Store.add_overrides` (append-only, all or
nothing; the machine's value stays: override_loop.py), then `workspace.verdicts_changed(run_id)`
tells the other screens. Keyboard first: see `keys.py`. Its other parts live beside it: reading a
run into the list (list_reader.py), queues (queue_mode.py), what it keeps between sessions
(layout_state.py), comparing two conversations (compare.py), its widgets laid out (build.py),
the conversation's titles and its graph once the run's domain is read (showing.py).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QLabel,
    QSplitter,
    QTableView,
    QWidget,
)

from sage_desk.core.errors import SageError
from sage_desk.core.review.session import OverrideRecord, ReviewSession, Store, empty_table
from sage_desk.gui.common.reviewer_dialog import ReviewerDialog, profile_signals
from sage_desk.gui.common.screen import ScreenDefaults
from sage_desk.gui.common.workspace import Workspace
from sage_desk.gui.review.blind import NOTE as BLIND_NOTE
from sage_desk.gui.review.blind import BlindVerdictModel
from sage_desk.gui.review.build import EMPTY_TEXT, build, fit_list_to_screen, toggle_list
from sage_desk.gui.review.compare import CompareDialog, open_compare
from sage_desk.gui.review.detail import ConversationDetail, DetailLoader
from sage_desk.gui.review.filter_bar import FilterBar
from sage_desk.gui.review.keys import MENU, TOOLBAR, make_actions, shortcuts_dialog
from sage_desk.gui.review.layout_state import restore_layout, save_layout
from sage_desk.gui.review.list_model import ConversationListModel
from sage_desk.gui.review.list_reader import REFRESH_DELAY_MS, ListReader
from sage_desk.gui.review.look import STYLE
from sage_desk.gui.review.override_loop import OverrideLoop
from sage_desk.gui.review.override_panel import OverridePanel
from sage_desk.gui.review.panes import PaneGroup
from sage_desk.gui.review.path_view import PathView
from sage_desk.gui.review.queue_bar import QueueBar
from sage_desk.gui.review.queue_mode import QueueMode
from sage_desk.gui.review.saving import SaveThread
from sage_desk.gui.review.showing import RunFollower, conversation_titles
from sage_desk.gui.review.slots import SlotsPanel
from sage_desk.gui.review.transcript import TimelineView, TranscriptView
from sage_desk.gui.review.views import fit_list_columns, fit_verdict_columns

__all__ = ["EMPTY_TEXT", "ReviewScreen"]  # EMPTY_TEXT (build.py) is what tests look for on an empty database


class ReviewScreen(OverrideLoop, ScreenDefaults, QWidget):
    """Read conversations three ways at once, override verdicts from the keyboard, compare two."""

    message = Signal(str)
    reading: PaneGroup  # laid out by build.py
    empty: QLabel  # build.py: shown instead of the list while the database holds no run

    def __init__(
        self, store: Any = None, db_url: str | None = None, notifier: Any = None, parent=None, workspace: Workspace | None = None
    ):
        super().__init__(parent)
        self.setObjectName("review")
        self.setStyleSheet(STYLE)
        # the filters want ~800 px; below that they are clipped rather than forcing the window wider
        self.setMinimumSize(560, 420)
        self.workspace = workspace or Workspace(db_url=db_url, store=store, parent=self)
        self.notifier = notifier
        self.session = ReviewSession()  # what is chosen, the queue and the store: Qt-free (core/review/session.py)
        self.loader: DetailLoader | None = None
        self.detail: ConversationDetail | None = None
        self.overrides: list[OverrideRecord] = []
        self._saving = False
        self._saves: list[SaveThread] = []  # overrides on their way to the store
        self._stale = False
        self._verdicts_dirty = False  # another screen changed this run's verdicts: read it even if its counts stand
        self._seen_run: tuple | None = None
        self._wanted_run: str | None = None  # the last session's run, chosen once the runs are read
        self._wanted_queue: str | None = None  # the last session's queue, entered once the queues are read
        self._sized = False  # the splitters have their first sizes (or the last session's)
        self._list_fits_screen = True  # the list's width follows the screen's until the reviewer drags it
        self.compare_dialog: QDialog | None = None  # the last one opened (compare.open_compare)
        self.list_reader = ListReader(self)  # a run's list: its first page now, the rest behind it
        self.filters = FilterBar()
        self.queue_bar = QueueBar()  # shown in queue mode (queue_mode.py)
        self.list_model = ConversationListModel(self)
        self.list = QTableView()
        self.title = QLabel("")
        self.subtitle = QLabel("")
        self.transcript = TranscriptView()
        self.transcript.replay_context = lambda: (self.store, self.detail.record) if self.detail is not None else None
        self.timeline = TimelineView()
        self.verdict_model = BlindVerdictModel(
            self, session=self.session
        )  # a blind queue hides the judge until the reviewer labels
        self.verdicts = QTableView()
        self.override = OverridePanel()
        self.slots = SlotsPanel(author=lambda: self.override.author.text())  # imported conversations only
        self.route = PathView()
        self.splitters: dict[str, QSplitter] = {}
        self.name_dialog: ReviewerDialog | None = None  # open while the reviewer is asked their name
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_DELAY_MS)
        self._refresh_timer.timeout.connect(self._refresh_if_visible)
        build(self)  # build.py: the filters over the list beside the conversation
        self.actions_by_name = self._make_actions()
        self._connect()
        self.queue = QueueMode(self)
        self.run_follower = RunFollower(self)  # showing.py: the graph follows once the run's domain is read
        if store is not None or self.workspace.is_open:
            self.open_store()

    # --- building ---------------------------------------------------------------------------

    def _make_actions(self) -> dict[str, QAction]:
        slots = {
            "next": lambda: self.move_conversation(1),
            "previous": lambda: self.move_conversation(-1),
            "next_verdict": lambda: self.move_verdict(1),
            "previous_verdict": lambda: self.move_verdict(-1),
            **{f"key{d}": (lambda d=d: self.key_value(str(d))) for d in range(1, 6)},
            "pass": lambda: self.key_value("p"),
            "fail": lambda: self.key_value("x"),
            "clear": lambda: self.key_value(""),
            "save": self._on_enter,
            "reason": self._focus_reason,
            "search": self._focus_search,
            "failures": self.filters.failures.toggle,
            "compare": self.compare,
            "list": self._focus_list,
            "toggle_list": self.toggle_list,
            "refresh": self.reload,
            "help": self.show_shortcuts,
            "next_item": lambda: self.queue.next(),
        }
        return make_actions(self, slots)

    def _connect(self) -> None:
        self.filters.run_chosen.connect(self.list_reader.load)
        self.filters.changed.connect(self._apply_filter)
        self.filters.transcript_search.connect(self._search_transcripts)
        self.list.selectionModel().currentRowChanged.connect(lambda current, _old: self._show_position(current.row()))
        self.list_model.layoutChanged.connect(self._after_sort)
        self.verdicts.selectionModel().currentRowChanged.connect(lambda current, _old: self._on_verdict(current.row()))
        self.timeline.event_selected.connect(self._on_timeline_event)
        self.override.value_chosen.connect(self.key_value)
        self.override.save_requested.connect(self.save_and_next)
        self.override.tags_chosen.connect(self._on_tags)
        self.slots.slot_set.connect(self._on_slot_set)
        self.slots.failed.connect(self._report)
        self.workspace.runs_changed.connect(self._on_runs_written)
        self.workspace.verdicts_changed.connect(self._on_verdicts_written)
        self.workspace.run_chosen.connect(self._on_run_chosen_elsewhere)
        profile_signals().changed.connect(self._on_reviewer_named)

    def menus(self) -> dict[str, list[QAction | None]]:
        """The Review menu of the main window (keys.MENU)."""
        return {"&Review": [self.actions_by_name[name] if name else None for name in MENU]}

    def toolbar_actions(self) -> list[QAction | None]:
        """Buttons for the main toolbar (keys.TOOLBAR)."""
        return [self.actions_by_name[name] if name else None for name in TOOLBAR]

    # --- opening and reading ----------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # Qt API
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            self._fit_list_to_screen()
        if self.store is None:
            self.open_store()
        elif self._stale:
            self.refresh(force=False)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt API
        super().resizeEvent(event)
        if self._sized and self._list_fits_screen:
            self._fit_list_to_screen()

    def widget(self) -> QWidget:
        """The screen as a widget (host.py): the parent of its dialogs and helpers."""
        return self

    def _fit_list_to_screen(self) -> None:
        fit_list_to_screen(self)

    @property
    def store(self) -> Store | None:
        """The run database Review reads (the session's)."""
        return self.session.store

    def open_store(self) -> bool:
        """Open the workspace's run database and list its runs (False when it cannot be opened)."""
        if self.store is not None:
            return True
        try:
            self.session.open(self.workspace.store())
        except SageError as exc:
            self._report("Could not open the run database", exc)
            return False
        self.loader = DetailLoader(self.session.need_store())
        self.refresh()
        return True

    def refresh(self, force: bool = True) -> None:
        """Read the runs again, then the chosen run's conversations (keeping the selection).

        Unless forced, the conversations are read again only when the run changed (status or
        counts): a live run elsewhere makes `runs_changed` fire often.
        """
        if self.store is None:
            return
        force = force or self._verdicts_dirty
        self._stale = self._verdicts_dirty = False
        runs = self.store.list_runs()
        keep = self.filters.run_id() or self._wanted_run
        self._wanted_run = None
        self.filters.set_runs(runs, keep)
        self.empty.setVisible(not runs)
        self.splitters["main"].setVisible(bool(runs))
        self.queue.list_queues()
        wanted, self._wanted_queue = self._wanted_queue, None
        if wanted and self.queue.reenter(wanted):
            return
        if self.queue.active:  # the list is the queue's: read it again (or just its progress, unless forced)
            self.queue.reload() if force else self.queue.update_progress()
            return
        run = next((r for r in runs if r.id == self.filters.run_id()), None)
        if run is not None:
            seen = (run.id, run.status, tuple(sorted(run.counts.items())))
            if force or seen != self._seen_run:
                self.list_reader.load(run.id)
            self._seen_run = seen
        else:
            self.list_model.set_table(empty_table())
            self._show_detail(None)

    def reload(self) -> None:
        """F5: read the runs, the list and the conversation on show again, domain folders included
        (a sop.yaml fixed, or broken, on disk since shows without a restart)."""
        if self.loader is not None:
            self.loader.forget()
        self.refresh(force=True)
        if self.detail is not None and self.loader is not None:
            try:
                self._show_detail(self.loader.load(self.detail.id))
            except SageError as exc:
                self._report("Could not read the conversation", exc)

    def _on_run_chosen_elsewhere(self, run_id: str) -> None:
        if run_id == self.filters.run_id() or self.queue.active:  # a queue's list stays until the reviewer leaves it
            return
        if self.store is None or not self.filters.choose_run(run_id):
            self._wanted_run = run_id  # chosen when the runs are next read

    def _apply_filter(self, keep: str | None = None) -> None:
        keep = keep or (self.detail.id if self.detail else None)
        spec = self.filters.spec()
        self.session.set_filters(spec)
        self.list_model.set_filter(spec)
        self.filters.set_count(self.list_model.rowCount(), len(self.list_model.table), loading=self.list_reader.reading)
        position = self.list_model.position_of(keep) if keep else None
        self.select_position(position if position is not None else 0)

    def _search_transcripts(self, text: str) -> None:
        run_id = self.filters.run_id()
        if self.store is None or not run_id:
            return
        ids = self.store.search_transcripts(run_id, text)
        self.filters.set_text_ids(text, frozenset(ids))

    # --- the selected conversation ----------------------------------------------------------

    def select_position(self, position: int, centre: bool = False) -> None:
        """Select a row of the list (clamped), which shows its conversation."""
        count = self.list_model.rowCount()
        if count == 0:
            self.list.selectionModel().clear()
            self._show_detail(None)
            return
        position = max(0, min(position, count - 1))
        index = self.list_model.index(position, 0)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.list.selectionModel().setCurrentIndex(index, flags)
        self.list.scrollTo(
            index, QAbstractItemView.ScrollHint.PositionAtCenter if centre else QAbstractItemView.ScrollHint.EnsureVisible
        )
        if self.detail is None or self.detail.id != self.list_model.conversation_id(position):
            self._show_position(position)

    def _after_sort(self) -> None:
        # the selection followed its conversation to a new row: keep it in sight
        current = self.list.selectionModel().currentIndex()
        if current.isValid():
            self.list.scrollTo(current, QAbstractItemView.ScrollHint.PositionAtCenter)

    def current_position(self) -> int:
        """The selected row of the list (-1 when none)."""
        return self.list.selectionModel().currentIndex().row()

    def _show_position(self, position: int) -> None:
        conversation_id = self.list_model.conversation_id(position)
        if conversation_id is None:
            self._show_detail(None)
        elif self.detail is None or self.detail.id != conversation_id:
            self._drop_pending()
            assert self.loader is not None  # made with the store, before any conversation is shown
            try:
                detail = self.loader.load(conversation_id, read_disk=False)
            except SageError as exc:
                self._report("Could not read the conversation", exc)
                return
            self._show_detail(detail)
            if detail.reading:  # the run's domain is read in a thread; the graph follows (no stall on a first look)
                self.run_follower.read(detail)

    def _show_detail(self, detail: ConversationDetail | None) -> None:
        self.detail = detail
        self.session.choose_conversation(detail.id if detail is not None else None)
        self.slots.show_detail(detail, self.store)
        if detail is None:
            self.title.setText("No conversation selected" if self.list_model.table.ids else "")
            self.subtitle.setText("Nothing matches the filters." if self.list_model.table.ids else "")
            for view in (self.transcript, self.timeline):
                view.show_events([], {})
            self.verdict_model.set_verdicts([])
            self.route.show_route(None, None, "")
            self.override.show_verdict(None, [])
            return
        self.overrides = self.queue.visible_overrides(detail.id, self.session.need_store().overrides(conversation_id=detail.id))
        title, subtitle = conversation_titles(detail, self.list_model.agent_names)
        self.title.setText(title)
        self.subtitle.setText(subtitle)
        self.transcript.show_events(detail.events, detail.tool_kinds)
        self.timeline.show_events(detail.events, detail.tool_kinds)
        self.verdict_model.set_verdicts(detail.verdicts)
        self.route.show_route(detail.bundle.graph if detail.bundle else None, detail.trace, detail.problem, detail.note)
        self._select_verdict(self._sticky_row())
        self.override.set_pending_count(0)
        self.queue.show_item()
        self.conversation_shown()  # override_loop.py: the domain's tags, values a failed save left

    def _sticky_row(self) -> int:
        if self.session.verdict_key is not None:
            row = self.verdict_model.row_of(*self.session.verdict_key)
            if row is not None:
                return row
        failed = next((i for i, v in enumerate(self.verdict_model.verdicts) if v.passed is False), None)
        return failed if failed is not None else 0

    # --- verdicts ---------------------------------------------------------------------------

    def _select_verdict(self, row: int) -> None:
        if self.verdict_model.rowCount() == 0:
            self._on_verdict(-1)
            return
        row = max(0, min(row, self.verdict_model.rowCount() - 1))
        index = self.verdict_model.index(row, 0)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.verdicts.selectionModel().setCurrentIndex(index, flags)
        self.verdicts.scrollTo(index)
        self._on_verdict(row)

    def selected_verdict_row(self) -> int:
        """The selected verdict's row (-1 when none)."""
        return self.verdicts.selectionModel().currentIndex().row()

    def _on_verdict(self, row: int) -> None:
        verdict = self.verdict_model.verdict(row)
        self.override.show_verdict(verdict, self.overrides)
        if self.verdict_model.hides(verdict):
            self.override.rationale.setText(BLIND_NOTE)
        if verdict is None:
            self.transcript.highlight(None)
            self.timeline.highlight(None)
            return
        self.session.choose_verdict((verdict.criterion, verdict.source))
        self.transcript.highlight(verdict.event_seq)
        self.timeline.highlight(verdict.event_seq)
        node = verdict.node
        if node is None and verdict.event_seq is not None and self.detail and self.detail.trace:
            node = self.detail.trace.action_nodes.get(verdict.event_seq)
        self.route.select_node(node)

    def _on_timeline_event(self, seq: int) -> None:
        self.transcript.highlight(seq)
        if self.detail is not None and self.detail.trace is not None:
            self.route.select_node(self.detail.trace.action_nodes.get(seq))

    def move_verdict(self, step: int) -> None:
        """Select the next (1) or previous (-1) verdict."""
        self._select_verdict(max(self.selected_verdict_row(), 0) + step if self.selected_verdict_row() >= 0 else 0)

    # --- keyboard review --------------------------------------------------------------------

    def move_conversation(self, step: int) -> None:
        """Go to the next (1) or previous (-1) conversation of the list."""
        position = self.current_position()
        target = position + step if position >= 0 else 0
        if not 0 <= target < self.list_model.rowCount():
            self.message.emit("Last conversation in the list" if step > 0 else "First conversation in the list")
            return
        self.select_position(target)

    def _focus_reason(self) -> None:
        self.override.reason.setFocus()

    def _focus_search(self) -> None:
        self.filters.search.setFocus()
        self.filters.search.selectAll()

    def _focus_list(self) -> None:
        self.list.setFocus()

    def toggle_list(self) -> None:
        """Fold the conversation list away (the detail gets the width) or bring it back."""
        toggle_list(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt API
        if event.type() == QEvent.Type.Resize and watched is self.verdicts:
            fit_verdict_columns(self.verdicts)
        if event.type() == QEvent.Type.Resize and watched is self.list:
            fit_list_columns(self.list)
        # ← → pick verdicts while the keyboard is on the list (the list's rows go up and down)
        if isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress and watched in (self.list, self.verdicts):
            key = event.key()
            if key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
                self.move_verdict(1 if key == Qt.Key.Key_Right else -1)
                return True
            if watched is self.verdicts and key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
                self.move_conversation(1 if key == Qt.Key.Key_Down else -1)
                return True
        return super().eventFilter(watched, event)

    def show_shortcuts(self):
        """The dialog listing the Review keys."""
        return shortcuts_dialog(self)

    # --- the reviewer's name ---------------------------------------------------------------

    def save_and_next(self) -> None:
        """Save the keyed values and move on; asks the reviewer's name first when labels would carry none."""
        if self.detail is not None and self.verdict_model.pending and not self.reviewer_known(self.save_and_next):
            return
        if self.queue.active:  # the next item comes from the queue, once the label counts
            self.queue.save_and_next()
            return
        super().save_and_next()

    # --- imported conversations: a reviewer sets a slot (slots.py) -------------------------

    def _on_slot_set(self, conversation_id: str, what: str) -> None:
        """The rules re-ran on a set slot: re-read the conversation's verdicts, route and list row."""
        if self.detail is None or self.detail.id != conversation_id or self.loader is None:
            return
        self._drop_pending()
        run_id = self.detail.record.run_id
        self._show_detail(self.loader.load(conversation_id))
        if self.list_model.table.row_of(conversation_id) is not None:
            self.list_model.replace_summary(
                conversation_id, self.session.need_store().conversation_table(run_id, [conversation_id])
            )
        self.message.emit(f"{conversation_id}: {what}")
        self._saving = True
        try:
            self.workspace.verdicts_changed.emit(run_id)
        finally:
            self._saving = False

    # --- opening a conversation from elsewhere, comparing -----------------------------------

    def show_conversation(self, conversation_id: str) -> bool:
        """Select a conversation (its run, its row), clearing filters that hide it; False when unknown."""
        if not self.open_store():
            return False
        try:
            record = self.session.need_store().conversation(conversation_id)
        except SageError as exc:
            self._report("Could not open the conversation", exc)
            return False
        if self.queue.active and not self.queue.holds(conversation_id):
            self.queue.leave()
        if not self.queue.active and self.filters.run_id() != record.run_id and not self.filters.choose_run(record.run_id):
            self.refresh()
            self.filters.choose_run(record.run_id)
        position = self.list_model.position_of(conversation_id)
        if position is None:
            self.filters.clear_filters()
            position = self.list_model.position_of(conversation_id)
        if position is None:
            return False
        self.select_position(position, centre=True)
        self._focus_list()
        return True

    def compare(self) -> CompareDialog | None:
        """Open the selected conversation beside another of the same case (another model first)."""
        return open_compare(self)

    # --- workspace signals ------------------------------------------------------------------

    def _on_runs_written(self) -> None:
        self._stale = True
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def _on_verdicts_written(self, run_id: str) -> None:
        if self._saving or run_id != self.filters.run_id():
            return
        self._verdicts_dirty = True
        self._on_runs_written()

    def _refresh_if_visible(self) -> None:
        if self.isVisible() and self.store is not None:
            self.refresh(force=False)

    # --- state ------------------------------------------------------------------------------

    def save_state(self, settings: Any) -> None:
        """Remember the splitters, the list's columns, the author and the run (layout_state.py)."""
        save_layout(self, settings)

    def restore_state(self, settings: Any) -> None:
        """Put back what `save_state` kept (widths only when this layout saved them)."""
        restore_layout(self, settings)

    def _report(self, title: str, error: BaseException | str) -> None:
        if self.notifier is not None and hasattr(self.notifier, "report"):
            self.notifier.report(title, error)
        self.message.emit(f"{title}: {error}")
