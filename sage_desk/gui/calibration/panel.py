"""The Calibrate form: which LLM judge, where it is served, how many examples; progress and cancel."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.calibration import BASELINE_MESSAGE

EXPLAIN = (
    "Human labels of train cases (half of the cases, by a hash of the case id) become examples in the "
    "judge's prompt, balanced pass and fail. The judge then scores the held-out cases again, so you see "
    "agreement before and after on labels it never saw. This calls the model."
)
MODEL_HINT = "openai/gpt-4o-mini"


class CalibratePanel(QWidget):
    """Asks what to calibrate; the screen runs it and reports back through `set_busy` / `set_progress`."""

    calibrate_requested = Signal()
    cancel_requested = Signal()
    start_enabled = Signal(bool)  # whether Calibrate can start now

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self._ready = True  # the run has labels to calibrate on
        self._baseline: str | None = None  # the run's prompt-less judge, when it has no LLM judge
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model.setMinimumContentsLength(14)
        editor = self.model.lineEdit()
        assert editor is not None  # an editable combo box has one
        editor.setPlaceholderText(f"e.g. {MODEL_HINT}")
        self.model.setToolTip("Any litellm model: openai/…, anthropic/…, ollama/…; keys come from Settings or the environment")
        self.api_base = QLineEdit()
        self.api_base.setPlaceholderText("optional, e.g. http://localhost:11434/v1")
        self.per_class = QSpinBox()
        self.per_class.setRange(1, 5)
        self.per_class.setValue(2)
        self.per_class.setToolTip("Passing and failing examples per criterion (the same number of each)")
        self.seed = QSpinBox()
        self.seed.setRange(0, 9999)
        self.seed.setToolTip("Which train labels become examples; the same seed gives the same examples")
        self.note = QLabel("")
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)
        self.start = QPushButton("Calibrate")
        self.start.setDefault(True)
        self.cancel = QPushButton("Cancel")
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m conversations")
        self._build()
        self.model.currentTextChanged.connect(self._check)
        self.start.clicked.connect(self.calibrate_requested)
        self.cancel.clicked.connect(self.cancel_requested)
        # the app's stylesheet gives the default button no disabled look: a greyed button must read as off
        self.setStyleSheet("QPushButton:disabled { background: #e2e8f0; color: #94a3b8; border-color: #cbd5e1; }")
        self.set_busy(False)

    def _build(self) -> None:
        title = QLabel("Calibrate an LLM judge")
        title.setObjectName("panelTitle")
        explain = QLabel(EXPLAIN)
        explain.setObjectName("hint")
        explain.setWordWrap(True)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow("Judge model", self.model)
        form.addRow("API base", self.api_base)
        numbers = QHBoxLayout()
        numbers.addWidget(self.per_class)
        numbers.addWidget(QLabel("seed"))
        numbers.addWidget(self.seed)
        form.addRow("Examples per class", numbers)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start)
        buttons.addWidget(self.cancel)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(explain)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addLayout(buttons)
        layout.addWidget(self.progress)

    def set_models(self, models: list[str], baseline_only: str | None) -> None:
        """Offer the run's LLM judges; keep what the user typed. `baseline_only` names a prompt-less judge."""
        typed = self.model.currentText()
        self.model.blockSignals(True)
        self.model.clear()
        self.model.addItems(models)
        self.model.setCurrentText(typed or (models[0] if models else ""))
        self.model.blockSignals(False)
        self._baseline = baseline_only
        self._check()

    def problem(self) -> str | None:
        """Why Calibrate cannot start with what is filled in, or None."""
        model = self.model_name()
        if not model:
            base = self._baseline
            return (BASELINE_MESSAGE.format(model=base) if base else "Type an LLM judge model, e.g. " + MODEL_HINT) + "."
        if model.startswith("baseline:"):
            return BASELINE_MESSAGE.format(model=model) + "."
        return None

    def model_name(self) -> str:
        return self.model.currentText().strip()

    def options(self) -> dict[str, Any]:
        """Keyword options for `calibrate_async`."""
        return {"api_base": self.api_base.text().strip() or None, "per_class": self.per_class.value(), "seed": self.seed.value()}

    def _check(self, *_args: Any) -> None:
        problem = self.problem()
        self.note.setText(problem or "")
        self.note.setVisible(bool(problem))
        if not self.cancel.isEnabled():
            self.start.setEnabled(problem is None and self._ready)
        self.start_enabled.emit(self.start.isEnabled())

    def set_ready(self, ready: bool, why: str = "") -> None:
        """Whether the run has labels to calibrate on; `why` explains when not."""
        self._ready = ready
        self.start.setToolTip(why if not ready else "Calibrate the judge and measure it again on held-out labels")
        self._check()

    def set_busy(self, busy: bool) -> None:
        """Between start and end of a calibration: the form locks, Cancel and the progress show."""
        for widget in (self.model, self.api_base, self.per_class, self.seed):
            widget.setEnabled(not busy)
        self.cancel.setEnabled(busy)
        self.cancel.setVisible(busy)
        self.progress.setVisible(busy)
        if busy:
            self.start.setEnabled(False)
            self.start_enabled.emit(False)
            self.progress.setRange(0, 0)
        else:
            self._check()

    def set_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
