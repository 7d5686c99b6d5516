"""The Runs screen: start a run in the background, watch it, cancel it, resume unfinished runs.

One run plays at a time, in a child process (`RunProcess`; a `RunThread` for an in-memory database); its figures arrive as signals, so the window
stays responsive. `workspace.runs_changed` is emitted when a run is created, at most once a
second while it plays, and when it ends, so Review and the Leaderboard follow along.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QModelIndex, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.engine.runner import RunSpec
from sage_desk.core.errors import SageError
from sage_desk.core.llm.secrets import KEYLESS, PROVIDERS, env_var_for, provider_of
from sage_desk.core.store.records import RunStatus
from sage_desk.gui.common.screen import ScreenDefaults
from sage_desk.gui.common.widgets import read_only_rows
from sage_desk.gui.common.workspace import Workspace
from sage_desk.gui.runs.form import RunForm
from sage_desk.gui.runs.keys_dialog import ApiKeysDialog
from sage_desk.gui.runs.model import RunsModel, is_resumable
from sage_desk.gui.runs.progress import ProgressPanel
from sage_desk.gui.runs.worker import RunOutcome, RunProcess, RunProgress, RunThread, start_run

RUNS_CHANGED_EVERY_S = 1.0  # throttle for workspace.runs_changed while a run plays
STOP_WAIT_MS = 30_000
ROW_HEIGHT = 26
FORM_WIDTH = 460
# What the app stylesheet has no rule for: the form's white ground, errors in red, figures in bold.
LOCAL_STYLE = """
QScrollArea#runFormScroll, QWidget#runForm { background: #ffffff; }
QPushButton:disabled { color: #94a3b8; background: #f1f5f9; border-color: #e2e8f0; }
QLabel#formError { color: #b91c1c; background: #fef2f2; border: 1px solid #fecaca; border-radius: 6px; padding: 6px 8px; }
"""
PANEL_STYLE = "QLabel#figure { font-size: 12pt; font-weight: 600; color: #0f172a; }"


class RunsScreen(ScreenDefaults, QWidget):
    """The new-run form on the left; the run in progress and every run of the database on the right."""

    message = Signal(str)
    run_started = Signal(str)  # run id
    run_ended = Signal(object)  # RunOutcome

    def __init__(
        self, workspace: Workspace | None = None, notifier: Any = None, db_url: str | None = None, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setObjectName("runsScreen")
        self.workspace = workspace or Workspace(db_url=db_url, parent=self)
        self.workspace.runs_changed.connect(self._on_runs_changed)
        self.notifier = notifier
        self.run_thread: RunThread | RunProcess | None = None
        self.keys_dialog: ApiKeysDialog | None = None
        self.last_outcome: RunOutcome | None = None
        self._stale = True
        self._last_broadcast = 0.0
        self.form = RunForm()
        self.problems = QLabel()
        self.start_button = QPushButton("Start run")
        self.keys_button = QPushButton("API Keys…")
        self.panel = ProgressPanel()
        self.model = RunsModel(self)
        self.table = QTableView()
        self.resume_button = QPushButton("Resume")
        self.review_button = QPushButton("Open in Review")
        self.clock = QTimer(self)
        self.clock.setInterval(1000)
        self.clock.timeout.connect(self.panel.tick)
        self._actions()
        self._build()
        self._update_buttons()

    # --- building ---------------------------------------------------------------------------

    def _actions(self) -> None:
        self.start_action = QAction("Start Run", self)
        self.start_action.setShortcut(QKeySequence("Ctrl+Return"))
        self.start_action.triggered.connect(self.start)
        self.cancel_action = QAction("Cancel Run", self)
        self.cancel_action.triggered.connect(self.cancel)
        self.resume_action = QAction("Resume Run", self)
        self.resume_action.triggered.connect(self.resume_selected)
        self.refresh_action = QAction("Refresh Runs", self)
        self.refresh_action.setShortcut(QKeySequence.StandardKey.Refresh)
        self.refresh_action.triggered.connect(self.refresh)
        self.keys_action = QAction("API Keys…", self)
        self.keys_action.triggered.connect(self.open_keys_dialog)

    def menus(self) -> dict[str, list[QAction | None]]:
        """The Runs menu of the main window."""
        return {
            "&Runs": [
                self.start_action,
                self.cancel_action,
                self.resume_action,
                None,
                self.refresh_action,
                None,
                self.keys_action,
            ]
        }

    def toolbar_actions(self) -> list[QAction | None]:
        """Buttons for the main toolbar: only what the screen has no button for (Start, API Keys, Cancel and
        Resume sit on the form, the progress panel and the run list, beside what they act on; twice was confusing)."""
        return [self.refresh_action]

    def _build(self) -> None:
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("runsSides")  # its sizes are kept between sessions (main_window)
        splitter.addWidget(self._left())
        splitter.addWidget(self._right())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([FORM_WIDTH, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def _left(self) -> QWidget:
        box = QWidget()
        box.setObjectName("runForm")
        layout = QVBoxLayout(box)
        layout.setContentsMargins(14, 12, 12, 12)
        heading = QLabel("New run")
        heading.setObjectName("panelTitle")
        layout.addWidget(heading)
        layout.addWidget(self.form)
        layout.addStretch(1)
        self.form.changed.connect(self._on_form_changed)
        scroll = QScrollArea()
        scroll.setObjectName("runFormScroll")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setWidget(box)
        scroll.setStyleSheet(LOCAL_STYLE)
        scroll.setMinimumWidth(260)
        # Start and API Keys stay in sight under the form (which scrolls at 1280x720): the toolbar no longer has them
        footer = QWidget()
        footer.setObjectName("runForm")
        footer.setStyleSheet(LOCAL_STYLE)
        rows = QVBoxLayout(footer)
        rows.setContentsMargins(14, 8, 12, 10)
        self.problems.setObjectName("formError")  # beside Start, so a refusal is seen however far the form scrolled
        self.problems.setWordWrap(True)
        self.problems.hide()
        rows.addWidget(self.problems)
        buttons = QHBoxLayout()
        rows.addLayout(buttons)
        self.keys_button.setToolTip("Keys per provider, kept in the system keyring")
        self.keys_button.clicked.connect(self.open_keys_dialog)
        self.start_button.setDefault(True)
        self.start_button.setToolTip("Start the run (Ctrl+Return)")
        self.start_button.clicked.connect(self.start)
        buttons.addWidget(self.keys_button)
        buttons.addStretch(1)
        buttons.addWidget(self.start_button)
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(scroll, 1)
        column.addWidget(footer)
        return left

    def _right(self) -> QWidget:
        self.panel.cancel_button.clicked.connect(self.cancel)
        self.panel.setStyleSheet(PANEL_STYLE)
        self.table.setModel(self.model)
        read_only_rows(self.table, ROW_HEIGHT)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)  # the status takes what is left
        header.setMinimumSectionSize(60)
        for number, width in enumerate((142, 132, 82, 140, 96)):
            header.resizeSection(number, width)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.table.doubleClicked.connect(self._on_double_click)
        self.resume_button.setToolTip("Play the unfinished conversations of the selected run (like sage-desk run --resume)")
        self.resume_button.clicked.connect(self.resume_selected)
        self.review_button.setToolTip("Read the selected run's conversations in Review")
        self.review_button.clicked.connect(self.open_selected_in_review)
        heading = QLabel("Runs")
        heading.setObjectName("panelTitle")
        row = QHBoxLayout()
        row.addWidget(heading)
        row.addStretch(1)
        row.addWidget(self.review_button)
        row.addWidget(self.resume_button)
        runs = QWidget()
        column = QVBoxLayout(runs)
        column.setContentsMargins(14, 10, 14, 10)
        column.addLayout(row)
        column.addWidget(self.table)
        right = QSplitter(Qt.Orientation.Vertical)
        right.setObjectName("runsProgressList")  # its sizes are kept between sessions (main_window)
        right.addWidget(self.panel)
        right.addWidget(runs)
        right.setStretchFactor(1, 1)
        right.setSizes([170, 600])
        return right

    # --- the run list -----------------------------------------------------------------------

    def store(self) -> Any:
        """The workspace's database (opened on first use)."""
        return self.workspace.store()

    def showEvent(self, event: QShowEvent) -> None:  # Qt API
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def _on_runs_changed(self) -> None:
        self._stale = True
        if self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        """Read the runs again, keeping the selection."""
        try:
            runs = self.store().list_runs()
        except SageError as exc:
            self._report("Could not open the run database", exc)
            return
        self._stale = False
        chosen = self.selected_run_id()
        self.model.set_runs(runs, live=self.live_run_id(), elsewhere=self._playing(runs))
        row = self.model.row_of(chosen) if chosen else -1
        if row >= 0:
            self.table.selectRow(row)
        self._update_buttons()

    def selected_run_id(self) -> str | None:
        """The run picked in the table."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.model.run_at(rows[0].row()).id if rows else None

    def select_run(self, run_id: str) -> None:
        """Pick a run in the table."""
        row = self.model.row_of(run_id)
        if row >= 0:
            self.table.selectRow(row)

    def live_run_id(self) -> str | None:
        """The run playing now, if any."""
        return self.run_thread.run_id if self.run_thread is not None else None

    def is_running(self) -> bool:
        """Whether a run is playing."""
        return self.run_thread is not None

    def _update_buttons(self) -> None:
        running = self.is_running()
        chosen = self.selected_run_id()
        run = self.model.run_at(self.model.row_of(chosen)) if chosen else None
        resumable = run is not None and is_resumable(run, live=run.id == self.live_run_id())
        playing = self._played_elsewhere(run.id) if resumable and run is not None else ""
        resumable = resumable and not playing
        self.start_button.setEnabled(not running)
        self.start_action.setEnabled(not running)
        self.cancel_action.setEnabled(running)
        self.resume_button.setEnabled(resumable and not running)
        self.resume_action.setEnabled(resumable and not running)
        self.review_button.setEnabled(run is not None and run.total > 0)
        self.resume_button.setToolTip(
            "Finish this run: play its unfinished conversations (like sage-desk run --resume)"
            if resumable
            else playing or "Pick an unfinished run to resume it"
        )

    def _playing(self, runs: list[Any]) -> dict[str, list[Any]]:
        """The live processes playing each unfinished run (other windows, terminals, machines)."""
        try:
            return {r.id: self.store().run_owners(r.id) for r in runs if r.status.value in ("running", "interrupted")}
        except SageError:
            return {}

    def _played_elsewhere(self, run_id: str) -> str:
        """ "Being played by process P on host H since T" when another live process plays the run, else ""."""
        try:
            playing = self.store().run_owners(run_id)
        except SageError:
            return ""
        return f"Being played by {playing[0].describe()}" if playing else ""

    def _on_double_click(self, index: QModelIndex) -> None:
        run = self.model.run_at(index.row())
        if is_resumable(run, live=run.id == self.live_run_id()) and not self.is_running():
            self.resume(run.id)
        else:
            self.open_selected_in_review()

    def open_selected_in_review(self) -> None:
        """Show the selected run's first conversation in Review."""
        run_id = self.selected_run_id()
        if run_id is None:
            return
        conversations = self.store().conversations(run_id=run_id)
        if conversations:
            self.workspace.open_conversation_requested.emit(conversations[0].id)

    # --- starting, watching, stopping -------------------------------------------------------

    def _on_form_changed(self) -> None:
        if self.problems.isVisible():
            self.problems.hide()

    def start(self) -> str | None:
        """Start the run the form describes; returns its id, or None (the reasons are shown)."""
        if self.is_running():
            return None
        problems = self.form.problems()
        if problems:
            self._show_problems(problems)
            return None
        return self._launch(self.form.spec(), run_id=None)

    def resume_selected(self) -> str | None:
        """Resume the run picked in the table."""
        run_id = self.selected_run_id()
        return self.resume(run_id) if run_id else None

    def resume(self, run_id: str) -> str | None:
        """Play the unfinished conversations of `run_id`, with the configuration it was created with."""
        if self.is_running():
            return None
        try:
            spec = RunSpec.from_config(self.store().get_run(run_id).config)  # as `sage-desk run --resume` does
            playing = self.store().run_owners(run_id)
        except (SageError, TypeError) as exc:
            self._report(f"Could not resume {run_id}", exc)
            return None
        if playing:  # another process (a terminal, another window, another machine) is playing it now
            self._show_problems([f"run {run_id} is being played by {playing[0].describe()}; resume it once that ends"])
            return None
        return self._launch(spec, run_id=run_id)

    def _launch(self, spec: RunSpec, run_id: str | None) -> str | None:
        from sage_desk.core.session import check_spec

        try:
            if run_id is None:
                check_spec(spec)  # what `sage-desk run` refuses before a run exists, refused here alike
            thread = start_run(self.store(), spec, run_id=run_id, parent=self)  # a child process where it can
        except SageError as exc:  # core refused the run (unknown agent or case, bad judge ...)
            self._show_problems([str(exc).splitlines()[0]])
            return None
        self.problems.hide()
        self.run_thread = thread
        thread.progressed.connect(self._on_progress)
        thread.ended.connect(self._on_ended)
        verb = "Resuming" if run_id else "Running"
        self.panel.start(
            f"{verb} {thread.run_id} · {spec.domain}",
            f"agents {', '.join(spec.agents)} · customer {spec.user} · judges {', '.join(spec.judges) or 'none'}"
            f" · {spec.repeats} repeat(s) · concurrency {spec.concurrency}",
        )
        self._last_broadcast = time.monotonic()
        if isinstance(thread, RunProcess):  # a new run's rows are written in a thread: it is told once they are
            thread.created.connect(self._on_created)
            thread.start()
        else:
            thread.start()
            self._on_created(thread.run_id)
        self.clock.start()
        self._update_buttons()
        self.message.emit(f"{verb} {thread.run_id}")
        return thread.run_id

    def _on_created(self, run_id: str) -> None:
        """The run's rows are in the database: it shows everywhere, picked in the list."""
        if self.run_thread is None or self.run_thread.run_id != run_id:
            return
        self.workspace.runs_changed.emit()  # the new run (or its "running" state) shows everywhere
        self.select_run(run_id)
        self._update_buttons()
        self.run_started.emit(run_id)

    def _on_progress(self, update: RunProgress) -> None:
        if self.run_thread is None or update.run_id != self.run_thread.run_id:
            return  # a late figure from a run already wound up
        self.panel.show_progress(update.progress)
        now = time.monotonic()
        if now - self._last_broadcast >= RUNS_CHANGED_EVERY_S:
            self._last_broadcast = now
            self.workspace.runs_changed.emit()

    def _on_ended(self, outcome: RunOutcome) -> None:
        thread = self.run_thread
        if thread is None or outcome.run_id != thread.run_id:
            return  # already wound up by can_close
        thread.wait()
        self._wind_up(outcome)

    def _wind_up(self, outcome: RunOutcome) -> None:
        thread, self.run_thread = self.run_thread, None
        self.clock.stop()
        if thread is not None:
            thread.deleteLater()
        self.last_outcome = outcome
        if outcome.progress is not None:
            self.panel.show_progress(outcome.progress)
        title, text = self._ending_text(outcome)
        text += self._error_reasons(outcome)
        self.panel.stop(title, text)
        self.message.emit(f"{title}: {text}")
        if outcome.error is not None:
            self._report(f"Run {outcome.run_id} stopped with an error", outcome.error)
        self.workspace.runs_changed.emit()
        self._update_buttons()
        self.run_ended.emit(outcome)

    def _error_reasons(self, outcome: RunOutcome, shown: int = 3) -> str:
        """Why conversations errored, each reason once with its count (an agent nobody could reach ...)."""
        if outcome.progress is None or not outcome.progress.errored:
            return ""
        from sage_desk.core.session import error_reasons

        try:
            reasons = error_reasons(self.store(), outcome.run_id)
        except Exception:  # the reasons are a courtesy; the figures above are already shown
            return ""
        lines = [f"{count}× {reason}" for reason, count in reasons[:shown]]
        if len(reasons) > shown:
            lines.append(f"and {len(reasons) - shown} other reasons (Review lists each conversation's)")
        return "\nErrored: " + "\n".join(lines) if lines else ""

    @staticmethod
    def _ending_text(outcome: RunOutcome) -> tuple[str, str]:
        p = outcome.progress
        figures = (
            (f"{p.done:,} of {p.total:,} conversations, {p.errored:,} errored, ${p.cost_usd:.4f}, {p.elapsed_s:.1f} s")
            if p is not None
            else ""
        )
        if outcome.error is not None:
            return f"Run {outcome.run_id} failed", f"{figures}. It can be resumed once the problem is fixed."
        if outcome.cancelled and p is not None and p.done >= p.total:
            return f"Run {outcome.run_id} cancelled", f"{figures}: every conversation had finished, nothing is left to resume."
        if outcome.cancelled:
            return f"Run {outcome.run_id} cancelled", f"{figures}. Resume it from the list below."
        return f"Run {outcome.run_id} finished", figures

    def cancel(self) -> None:
        """Stop the run cleanly: conversations in flight are cancelled and stay resumable."""
        if self.run_thread is not None:
            self.run_thread.cancel()
            self.panel.cancel_button.setEnabled(False)
            self.panel.detail.setText("Cancelling: conversations in flight are stopped and will resume later…")

    # --- closing ----------------------------------------------------------------------------

    def confirm_stop(self) -> bool:
        """Ask whether to stop the run in progress (tests replace this)."""
        progress = self.panel.progress
        done = f" ({progress.done:,} of {progress.total:,} done)" if progress is not None else ""
        answer = QMessageBox.question(
            self,
            "Stop the run?",
            f"Run {self.live_run_id()} is still playing{done}.\n\nStop it and close? It stays in the list as "
            "resumable: Resume plays the conversations left, the finished ones are kept.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def can_close(self) -> bool:
        """Closing mid-run asks first; a yes cancels the run cleanly and leaves it resumable."""
        thread = self.run_thread
        if thread is None:
            return True
        if not self.confirm_stop():
            return False
        thread.cancel()
        if not thread.wait(STOP_WAIT_MS):
            self._report("The run did not stop in time", f"run {thread.run_id} is still stopping; resume it later")
            return False
        cancelled = self.store().get_run(thread.run_id).status == RunStatus.CANCELLED
        if cancelled:  # not if it finished meanwhile: "interrupted" says the window went, as Ctrl-C does in the CLI
            self.store().set_run_status(thread.run_id, RunStatus.INTERRUPTED)
        self._wind_up(RunOutcome(thread.run_id, self.panel.progress, cancelled=cancelled))
        return True

    def shutdown(self) -> None:
        """Cancel and wait for a run without asking (tests, application exit)."""
        thread = self.run_thread
        if thread is not None:
            thread.cancel()
            thread.wait()
            self._wind_up(RunOutcome(thread.run_id, self.panel.progress, cancelled=True))

    # --- keys, problems, state --------------------------------------------------------------

    def open_keys_dialog(self) -> ApiKeysDialog:
        """Show the API Keys dialog (listing, besides the usual providers, those the form's models need)."""
        known = {p.env_var for p in PROVIDERS}
        extra = []
        for model in self.form.llm_models():
            provider = provider_of(model)
            if provider and provider not in KEYLESS and env_var_for(provider) not in known:
                extra.append(env_var_for(provider))
        dialog = ApiKeysDialog(dict.fromkeys(extra), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.saved.connect(lambda names: self.message.emit(f"Saved in the keyring: {', '.join(names)}"))
        dialog.destroyed.connect(lambda *_: setattr(self, "keys_dialog", None))
        self.keys_dialog = dialog
        dialog.open()
        return dialog

    def _show_problems(self, problems: list[str]) -> None:
        self.problems.setText("\n".join(f"• {p}" for p in problems))
        self.problems.show()
        self.message.emit(problems[0])

    def _report(self, title: str, error: BaseException | str) -> None:
        if self.notifier is not None:
            self.notifier.report(title, error)
        self.message.emit(f"{title}: {error}")

    def save_state(self, settings: QSettings) -> None:
        """Remember the form's choices."""
        self.form.save_state(settings)

    def restore_state(self, settings: QSettings) -> None:
        """Bring back the form's choices."""
        self.form.restore_state(settings)
