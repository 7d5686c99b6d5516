"""The first-run tour: one card per screen, low in a corner of it (its navigation entry highlighted), that switches to it.

Shown once, the first time the app opens a window (the `tour/seen` setting), never for
`--screenshot`; Help > Take the Tour opens it again. Next / Back walk the five screens (arrow
keys too), Skip or Esc closes it; closing it any way marks it seen.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QGraphicsDropShadowEffect,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

SEEN_KEY = "tour/seen"
CARD_WIDTH = 400
ARROW = 10  # how far the pointer sticks out towards the navigation item
MARGIN = 12
WALK_KEYS = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Escape)
TEXT_INPUTS = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)


@dataclass(frozen=True)
class TourStep:
    """One stop of the tour: the screen it shows and what to say about it."""

    screen: str
    title: str
    text: str
    corner: str = "right"
    """Which bottom corner of the screen the card sits in: the one where it hides the least of what it describes."""


STEPS: tuple[TourStep, ...] = (
    TourStep(
        "sop-editor",
        "SOP Editor",
        "Draw a Standard Operating Procedure as a graph: the decisions, the actions the agent must take and how "
        "each ticket should end. Every start-to-end path becomes test cases; problems show on the nodes as you edit.",
    ),
    TourStep(
        "runs",
        "Runs",
        "Play the test cases against agents (the offline baselines or any model through litellm) with a simulated "
        "customer. Runs work in the background with live counts and cost; API keys stay in the system keyring.",
    ),
    TourStep(
        "review",
        "Review",
        "Read each conversation beside its tool calls and verdicts, and see the path the agent took on the graph. "
        "Override a judge's verdict from the keyboard when it is wrong.",
        corner="left",
    ),
    TourStep(
        "calibration",
        "Calibration",
        "See how often the judge agrees with your reviewers, criterion by criterion, then re-judge with their "
        "corrections as examples and export calibration sets.",
    ),
    TourStep(
        "leaderboard",
        "Leaderboard",
        "Compare models on separate metrics, never one score: over-escalation, unsafe actions, escalation accuracy "
        "and more, with charts you can save. Help > Documentation explains each metric.",
    ),
    TourStep(
        "compare-runs",
        "Compare Runs",
        "Changed a prompt, a model or the SOP? Pick the run before and the run after: each metric's difference with "
        "its interval says whether the change is real, and every flipped case opens both conversations side by side.",
    ),
)
CARD_STYLE = """
QLabel#tourCounter { color: #7c3aed; font-weight: 600; font-size: 9pt; }
QLabel#tourTitle { color: #0f172a; font-size: 14pt; font-weight: 600; }
QLabel#tourWelcome { color: #0f172a; }
QLabel#tourText { color: #334155; }
QPushButton { padding: 5px 14px; border: 1px solid #cbd5e1; border-radius: 6px; background: #ffffff; color: #1e293b; }
QPushButton:hover { background: #f1f5f9; }
QPushButton:disabled { color: #94a3b8; border-color: #e2e8f0; }
QPushButton#tourNext { background: #7c3aed; border-color: #7c3aed; color: #ffffff; font-weight: 600; }
QPushButton#tourNext:hover { background: #6d28d9; }
QPushButton#tourSkip { border: none; color: #64748b; padding-left: 0; }
"""
WELCOME = "Welcome to SAGE Desk. It opened on sample runs made offline, so every screen has something to show."
WELCOME_OWN = "Welcome to SAGE Desk. It opened on your own runs (sage-desk --db sample opens the sample runs made offline)."


def opened_on_sample(window) -> bool:
    """Whether the window's screens show the shipped sample runs (the tour said so even on a person's own runs)."""
    from sage_desk.core.locations import user_data_dir
    from sage_desk.core.store.engine import DB_FILENAME

    workspace = getattr(window, "workspace", None)
    if workspace is None:
        return True
    if workspace.is_open:
        database = str(getattr(workspace.store().url, "database", "") or "")
        name = database.rsplit("/", 1)[-1]
        return name.startswith(("sample-runs", "sample-")) or name.endswith("sample.db")  # copies, migrated copies
    if workspace.db_url:
        return workspace.db_url.strip() == "sample" or workspace.db_url.endswith("sample.db")
    return not (user_data_dir() / DB_FILENAME).is_file()  # no database of one's own yet: the screens open the samples


class TourCard(QWidget):
    """A card floating in a bottom corner of the current screen, whose navigation item is the highlighted one."""

    finished = Signal()

    def __init__(self, window, steps: tuple[TourStep, ...] = STEPS):
        super().__init__(window)
        self.window_ = window
        self.steps = tuple(s for s in steps if s.screen in window.screens)
        self.index = 0
        self.setObjectName("tourCard")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        window.installEventFilter(self)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)  # the arrows walk the tour wherever the focus is
        self.show_step(0)

    def _build(self) -> None:
        self.counter = QLabel()
        self.heading = QLabel()
        self.welcome = QLabel(WELCOME if opened_on_sample(self.window_) else WELCOME_OWN, wordWrap=True)
        self.body = QLabel(wordWrap=True)
        self.skip_button = QPushButton("Skip tour")
        self.back_button = QPushButton("Back")
        self.next_button = QPushButton("Next")
        # the stylesheet finds these by name (the stubs take no objectName= in the constructors)
        for widget, name in (
            (self.counter, "tourCounter"),
            (self.heading, "tourTitle"),
            (self.welcome, "tourWelcome"),
            (self.body, "tourText"),
            (self.skip_button, "tourSkip"),
            (self.next_button, "tourNext"),
        ):
            widget.setObjectName(name)
        self.next_button.setDefault(True)
        self.skip_button.clicked.connect(self.finish)
        self.back_button.clicked.connect(self.back)
        self.next_button.clicked.connect(self.next)
        for button in (self.skip_button, self.back_button, self.next_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
        buttons = QHBoxLayout()
        buttons.addWidget(self.skip_button)
        buttons.addStretch(1)
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(ARROW + 18, 16, 18, 14)
        layout.setSpacing(6)
        for widget in (self.counter, self.heading, self.welcome, self.body):
            layout.addWidget(widget)
        layout.addSpacing(6)
        layout.addLayout(buttons)
        self.setFixedWidth(CARD_WIDTH)
        self.setStyleSheet(CARD_STYLE)
        shadow = QGraphicsDropShadowEffect(self, blurRadius=24, offset=QPointF(0, 4), color=QColor(15, 23, 42, 60))
        self.setGraphicsEffect(shadow)

    # --- walking ----------------------------------------------------------------------------

    @property
    def step(self) -> TourStep:
        """The step on show."""
        return self.steps[self.index]

    def show_step(self, index: int) -> None:
        """Show step `index`: switch the window to its screen and point at it."""
        self.index = max(0, min(index, len(self.steps) - 1))
        step = self.step
        self.window_.show_screen(step.screen)
        self.counter.setText(f"{self.index + 1} of {len(self.steps)}")
        self.heading.setText(step.title)
        self.body.setText(step.text)
        self.welcome.setVisible(self.index == 0)
        self.back_button.setEnabled(self.index > 0)
        self.skip_button.setVisible(self.index < len(self.steps) - 1)  # on the last step Done says it
        self.next_button.setText("Done" if self.index == len(self.steps) - 1 else "Next")
        self.adjustSize()
        self._place()
        self.raise_()
        self.setFocus()

    def next(self) -> None:
        """The next screen, or close after the last."""
        if self.index == len(self.steps) - 1:
            self.finish()
        else:
            self.show_step(self.index + 1)

    def back(self) -> None:
        """The previous screen."""
        self.show_step(self.index - 1)

    def finish(self) -> None:
        """Close the tour and remember it was seen."""
        self.window_.settings.setValue(SEEN_KEY, True)
        self.window_.settings.sync()
        self.window_.removeEventFilter(self)
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        self.finished.emit()
        self.close()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt API
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.finish()
        elif key in (Qt.Key.Key_Right, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.next()
        elif key == Qt.Key.Key_Left:
            self.back()
        else:
            super().keyPressEvent(event)

    # --- placing and drawing ------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt API
        if watched is self.window_ and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self._place()
        elif event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and self._walks_on(watched, event):
            self.keyPressEvent(event)
            return True
        return False

    def _walks_on(self, target: QObject, event: QKeyEvent) -> bool:
        """Whether a key pressed anywhere in the window walks the tour: the arrows and Esc, unless a text
        field has the focus (the screen a step shows takes the focus, so the card alone would rarely see them)."""
        if event.key() not in WALK_KEYS or event.modifiers() not in (
            Qt.KeyboardModifier.NoModifier,
            Qt.KeyboardModifier.KeypadModifier,
        ):
            return False
        if QApplication.activeModalWidget() is not None or QApplication.activePopupWidget() is not None:
            return False
        focus = target if isinstance(target, QWidget) else None  # a key goes to the widget with the focus
        if focus is None or focus is self or self.isAncestorOf(focus):
            return False  # the card's own keyPressEvent gets it
        if focus.window() is not self.window_ or isinstance(focus, TEXT_INPUTS):
            return False
        return not (isinstance(focus, QComboBox) and focus.isEditable())

    def _place(self) -> None:
        """In a bottom corner of the screen on show (its navigation item is the highlighted one), never over
        the top of the screen, where what the card describes is."""
        stack = self.window_.stack
        area = stack.geometry().translated(
            stack.parentWidget().mapTo(self.window_, stack.geometry().topLeft()) - stack.geometry().topLeft()
        )
        x = area.left() + MARGIN if self.step.corner == "left" else area.right() - self.width() - MARGIN
        y = area.bottom() - self.height() - MARGIN
        self.move(max(area.left(), x), max(area.top() + MARGIN, y))
        self._arrow_y = None

    def paintEvent(self, _event) -> None:  # Qt API
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        body = QRectF(self.rect()).adjusted(ARROW + 0.5, 0.5, -0.5, -0.5)
        path = QPainterPath()
        path.addRoundedRect(body, 10, 10)
        arrow_y = getattr(self, "_arrow_y", None)
        if arrow_y is not None:
            tip_y = max(18.0, min(float(arrow_y), body.bottom() - 18))
            arrow = QPainterPath()
            arrow.moveTo(QPointF(body.left() + 1, tip_y - ARROW))
            arrow.lineTo(QPointF(0.5, tip_y))
            arrow.lineTo(QPointF(body.left() + 1, tip_y + ARROW))
            path = path.united(arrow)
        painter.fillPath(path, QColor("#ffffff"))
        painter.setPen(QPen(QColor("#7c3aed"), 1.5))
        painter.drawPath(path)


class _TourStarter(QObject):
    """Keeps the running tour of a window, so Help > Take the Tour never opens two."""

    def __init__(self, window: QObject):
        super().__init__(window)
        self.card: TourCard | None = None


def start_tour(window) -> TourCard:
    """Open the tour on `window` at its first step (or bring the open one back to it)."""
    starter = window.findChild(_TourStarter) or _TourStarter(window)
    if starter.card is not None:
        starter.card.show_step(0)
        return starter.card
    card = TourCard(window)
    starter.card = card
    card.finished.connect(lambda: setattr(starter, "card", None))  # closed, deleted later: never reused
    card.show()
    return card


def tour_seen(window) -> bool:
    """Whether the tour was already shown (and closed) once."""
    value = window.settings.value(SEEN_KEY, False)
    return value is True or str(value).lower() == "true"


def offer_tour(window) -> TourCard | None:
    """On the first start only: open the tour."""
    return None if tour_seen(window) else start_tour(window)
