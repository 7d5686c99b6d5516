"""The live panel of the run in progress: a bar, counts, tokens, cost, elapsed and remaining time."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

IDLE_TITLE = "No run in progress"
IDLE_TEXT = "Choose a domain and agents on the left, then Start. Unfinished runs below resume with Resume."


def clock(seconds: float | None) -> str:
    """1:05 / 1:02:03, or an em dash when unknown."""
    if seconds is None:
        return "—"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressPanel(QWidget):
    """Shows one run's Progress; `cancel_button` is wired by the screen."""

    FIGURES = ("Conversations", "Errored", "Tokens", "Cost so far", "Elapsed", "Remaining")

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("runProgress")
        self.title = QLabel(IDLE_TITLE)
        self.title.setObjectName("panelTitle")
        self.title.setWordWrap(True)
        self.detail = QLabel(IDLE_TEXT)
        self.detail.setObjectName("hint")
        self.detail.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.bar.setFormat("%v / %m")
        self.bar.setTextVisible(False)  # "0 / 1" would mean nothing before a run
        self.cancel_button = QPushButton("Cancel run")
        self.cancel_button.setEnabled(False)
        self.values: dict[str, QLabel] = {}
        self.progress: Any = None
        grid = QGridLayout()
        grid.setHorizontalSpacing(20)
        grid.setVerticalSpacing(2)
        per_row = len(self.FIGURES) // 2
        for number, name in enumerate(self.FIGURES):
            caption = QLabel(name)
            caption.setObjectName("hint")
            value = QLabel("—")
            value.setObjectName("figure")
            row, column = divmod(number, per_row)
            grid.addWidget(caption, row * 3, column)
            grid.addWidget(value, row * 3 + 1, column)
            self.values[name] = value
        grid.setRowMinimumHeight(2, 10)  # air between the two rows of figures
        for column in range(per_row):
            grid.setColumnStretch(column, 1)
        grid.setColumnStretch(per_row, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.addWidget(self.title)
        layout.addWidget(self.detail)
        bar_row = QHBoxLayout()
        bar_row.addWidget(self.bar, 1)
        bar_row.addWidget(self.cancel_button)
        layout.addLayout(bar_row)
        layout.addLayout(grid)

    def start(self, title: str, detail: str) -> None:
        """A run begins (or resumes)."""
        self.title.setText(title)
        self.detail.setText(detail)
        self.bar.setRange(0, 0)  # busy until the first figures arrive
        self.cancel_button.setEnabled(True)
        self.progress = None
        for value in self.values.values():
            value.setText("—")

    def show_progress(self, progress: Any) -> None:
        """New figures from the runner."""
        self.progress = progress
        self.bar.setTextVisible(True)
        self.bar.setRange(0, max(progress.total, 1))
        self.bar.setValue(progress.done)
        self.values["Conversations"].setText(f"{progress.done:,} / {progress.total:,}")
        self.values["Errored"].setText(f"{progress.errored:,}")
        tokens = progress.prompt_tokens + progress.completion_tokens
        self.values["Tokens"].setText(f"{tokens:,}")
        self.values["Tokens"].setToolTip(f"{progress.prompt_tokens:,} in · {progress.completion_tokens:,} out")
        self.values["Cost so far"].setText(f"${progress.cost_usd:,.4f}")
        self.tick()

    def tick(self) -> None:
        """Move the clocks on (called every second while a run goes, figures or not)."""
        if self.progress is None:
            return
        self.values["Elapsed"].setText(clock(self.progress.elapsed_s))
        left = 0.0 if self.progress.done >= self.progress.total else self.progress.eta_s
        self.values["Remaining"].setText(clock(left))

    def stop(self, title: str, detail: str) -> None:
        """The run ended; the last figures stay on show."""
        self.title.setText(title)
        self.detail.setText(detail)
        self.cancel_button.setEnabled(False)
        if self.bar.maximum() == 0:
            self.bar.setRange(0, 1)
        if self.progress is not None:
            self.values["Remaining"].setText("—" if self.progress.done < self.progress.total else clock(0))
            self.progress = None  # clocks stop
