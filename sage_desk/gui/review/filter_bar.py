"""The bar above the conversation list: which run, and what to narrow its conversations to."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from sage_desk.core.review.session import BrowseFilter

SEARCH_DELAY_MS = 350
"""Typing pauses this long before the transcripts are searched (the list itself filters at once)."""
NO_QUEUE = "No queue"
_ALL = {"agent": "All models", "bucket": "All buckets", "conflict": "Any conflict", "failing": "Any verdict"}


def run_text(run: Any) -> str:
    """'r-20261120-f286ae · northline · 1,458 conv. · finished'."""
    return f"{run.id} · {run.domain} · {run.total:,} conv. · {run.status.value}"


class FilterBar(QWidget):
    """Run picker, filters and search; emits the filter whenever one changes."""

    run_chosen = Signal(str)
    queue_chosen = Signal(object)  # a review queue's name, or None: the run's conversations
    changed = Signal()
    transcript_search = Signal(str)  # the search text after a pause (empty: cleared)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("reviewFilters")
        self.run = QComboBox()
        self.run.setMinimumWidth(260)
        self.run.setToolTip("The run whose conversations are listed")
        self.queue = QComboBox()
        self.queue.setObjectName("queuePicker")
        self.queue.setMinimumWidth(150)
        self.queue.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.queue.setToolTip(
            "Review a queue: its conversations in order, your next item, progress, skip and flag "
            "(make one with `sage-desk queue create`)"
        )
        self.queue.addItem(NO_QUEUE, None)
        self.combos = {key: QComboBox() for key in _ALL}
        self.failures = QCheckBox("Failures only")
        self.failures.setToolTip("Conversations with a failed rule verdict, or an error")
        self.disagree = QCheckBox("Judge ≠ human")
        self.disagree.setToolTip("Conversations where a reviewer's override disagrees with the rule or judge")
        self.unsettled = QCheckBox("Unsettled")
        self.unsettled.setObjectName("unsettledOnly")
        self.unsettled.setToolTip(
            "Imported conversations whose rule verdicts are not settled: some unscored (a slot "
            "nobody set, a tool the domain does not know) or provisional (resting on the agent's own tag)"
        )
        self.search = QLineEdit()
        self.search.setPlaceholderText(
            "Search case, conversation or source id, model, failed verdict, transcript text…  (Ctrl+F)"
        )
        self.search.setClearButtonEnabled(True)
        self.in_transcripts = QCheckBox("in transcripts")
        self.in_transcripts.setChecked(True)
        self.in_transcripts.setToolTip("Also match what the customer and the agent wrote (searched after a short pause)")
        self.count = QLabel("")
        self.count.setObjectName("countLabel")
        self.count.setMinimumWidth(110)
        self.count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.clear = QPushButton("Clear filters")
        self.text_ids: frozenset[str] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self._search_now)
        self._build()

    def _build(self) -> None:
        self.run.currentIndexChanged.connect(self._on_run)
        self.queue.currentIndexChanged.connect(lambda _index: self.queue_chosen.emit(self.queue.currentData()))
        for combo in self.combos.values():
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            combo.setMinimumWidth(110)
            combo.currentIndexChanged.connect(self.changed)
        self.combos["failing"].setToolTip(
            "Only conversations where this rule or judge criterion failed (x.* = any of the family)"
        )
        self.failures.toggled.connect(self.changed)
        self.disagree.toggled.connect(self.changed)
        self.unsettled.toggled.connect(self.changed)
        self.search.textChanged.connect(self._on_text)
        self.in_transcripts.toggled.connect(lambda _on: self._on_text(self.search.text()))
        self.clear.clicked.connect(self.clear_filters)
        grid = QGridLayout(self)
        grid.setContentsMargins(10, 8, 10, 4)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(6)
        grid.addWidget(QLabel("Run"), 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.run)
        top.addSpacing(8)
        top.addWidget(QLabel("Queue"))
        top.addWidget(self.queue)
        top.addSpacing(12)
        top.addWidget(self.search, 1)
        top.addWidget(self.in_transcripts)
        top.addWidget(self.count)
        grid.addLayout(top, 0, 1)
        grid.addWidget(QLabel("Show"), 1, 0)
        row = QHBoxLayout()
        for combo in self.combos.values():
            row.addWidget(combo)
        row.addSpacing(8)
        row.addWidget(self.failures)
        row.addWidget(self.disagree)
        row.addWidget(self.unsettled)
        row.addStretch(1)
        row.addWidget(self.clear)
        grid.addLayout(row, 1, 1)

    # --- runs -------------------------------------------------------------------------------

    def set_runs(self, runs: list[Any], keep: str | None) -> None:
        """List the runs (newest first) and keep `keep` chosen when it is still there."""
        self.run.blockSignals(True)
        self.run.clear()
        for run in runs:
            self.run.addItem(run_text(run), run.id)
            self.run.setItemData(
                self.run.count() - 1,
                f"{run.id}: {run.domain}, agents {', '.join(run.config.get('agents', []))}",
                Qt.ItemDataRole.ToolTipRole,
            )
        index = self.run.findData(keep) if keep else -1
        self.run.setCurrentIndex(index if index >= 0 else 0 if runs else -1)
        self.run.blockSignals(False)

    def run_id(self) -> str | None:
        """The chosen run."""
        return self.run.currentData()

    def choose_run(self, run_id: str) -> bool:
        """Pick a run (emits run_chosen when it changes); False when it is not listed."""
        index = self.run.findData(run_id)
        if index < 0:
            return False
        self.run.setCurrentIndex(index)
        return True

    # --- review queues ----------------------------------------------------------------------

    def set_queues(self, queues: list[Any], keep: str | None) -> None:
        """Offer the review queues (newest first), keeping `keep` chosen; no signal."""
        self.queue.blockSignals(True)
        self.queue.clear()
        self.queue.addItem(NO_QUEUE, None)
        for q in queues:
            self.queue.addItem(f"{q.name} · {q.size} items" + (" · blind" if q.blind else ""), q.name)
            self.queue.setItemData(
                self.queue.count() - 1,
                f"{q.name}: {q.size} conversations, {q.reviews_per_item} review(s) "
                f"each, reviewers: {', '.join(q.reviewers) or 'anyone'}",
                Qt.ItemDataRole.ToolTipRole,
            )
        self.queue.setCurrentIndex(max(self.queue.findData(keep), 0) if keep else 0)
        self.queue.blockSignals(False)

    def queue_name(self) -> str | None:
        """The chosen review queue (None: the run's conversations)."""
        return self.queue.currentData()

    def choose_queue(self, name: str | None) -> None:
        """Show a queue as chosen without saying so (the screen has already acted on it)."""
        self.queue.blockSignals(True)
        self.queue.setCurrentIndex(max(self.queue.findData(name), 0) if name else 0)
        self.queue.blockSignals(False)

    def set_queue_mode(self, active: bool, blind: bool, run_id: str | None) -> None:
        """In a queue the run list rests (on the queue's run when it has one); a blind queue turns off what
        reads the judge or other reviewers (the failed-criterion list, Judge ≠ human, the search over them)."""
        if run_id:
            self.run.blockSignals(True)
            self.run.setCurrentIndex(max(self.run.findData(run_id), 0))
            self.run.blockSignals(False)
        self.run.setEnabled(not active)
        self.run.setToolTip(
            "A queue lists its own conversations: choose No queue for a run's"
            if active
            else "The run whose conversations are listed"
        )
        if blind:
            self.combos["failing"].setCurrentIndex(0)
            self.disagree.setChecked(False)
            self.search.clear()
        for widget in (self.combos["failing"], self.disagree, self.search, self.in_transcripts):
            widget.setEnabled(not blind)

    def _on_run(self, _index: int) -> None:
        if self.run_id():
            self.run_chosen.emit(self.run_id())

    # --- filters ----------------------------------------------------------------------------

    def set_choices(self, choices: dict[str, list[str]], agent_names: dict[str, str] | None = None) -> None:
        """Fill the filter lists with the values of the current run (keeping what is chosen); agents by display name."""
        names = agent_names or {}
        for key, combo in self.combos.items():
            current = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(_ALL[key], None)
            for value in choices.get(key, []):
                label = f"{value[:-2]} (any)" if key == "failing" and value.endswith(".*") else value
                label = names.get(value, label) if key == "agent" else label
                combo.addItem(("failed: " if key == "failing" else "") + label, value)
            index = combo.findData(current) if current else 0
            combo.setCurrentIndex(max(index, 0))
            combo.blockSignals(False)

    def spec(self) -> BrowseFilter:
        """The filter the bar shows."""
        return BrowseFilter(
            agent=self.combos["agent"].currentData(),
            bucket=self.combos["bucket"].currentData(),
            conflict=self.combos["conflict"].currentData(),
            failing=self.combos["failing"].currentData(),
            failures_only=self.failures.isChecked(),
            disagree_only=self.disagree.isChecked(),
            unsettled_only=self.unsettled.isChecked(),
            text=self.search.text(),
            text_ids=self.text_ids,
        )

    def set_value(self, key: str, value: str | None) -> None:
        """Choose a value in one of the lists (agent, bucket, conflict, failing)."""
        combo = self.combos[key]
        combo.setCurrentIndex(max(combo.findData(value), 0) if value else 0)

    def clear_filters(self) -> None:
        """Show every conversation of the run."""
        self.blockSignals(True)
        for combo in self.combos.values():
            combo.setCurrentIndex(0)
        self.failures.setChecked(False)
        self.disagree.setChecked(False)
        self.unsettled.setChecked(False)
        self.search.clear()
        self.text_ids = None
        self.blockSignals(False)
        self.changed.emit()

    def set_count(self, shown: int, total: int, loading: bool = False) -> None:
        """'312 of 1,458 shown'; while a big run is still being read, how much is in so far."""
        text = f"{shown:,} of {total:,}" if shown != total else f"{total:,} conversations"
        self.count.setText(f"{text} (reading more…)" if loading else text)

    def _on_text(self, text: str) -> None:
        self.text_ids = None
        self.changed.emit()
        if self.in_transcripts.isChecked() and len(text.strip()) >= 3:
            self._timer.start()
        else:
            self._timer.stop()

    def _search_now(self) -> None:
        self.transcript_search.emit(self.search.text())

    def set_text_ids(self, text: str, ids: frozenset[str]) -> None:
        """Transcript matches for `text` (ignored when the search moved on meanwhile)."""
        if text == self.search.text():
            self.text_ids = ids
            self.changed.emit()
