"""The runs table: every run of the database, newest first, with where it stands and whether it resumes."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from sage_desk.core.store.records import ConversationStatus, RunStatus

UNFINISHED = (ConversationStatus.PENDING, ConversationStatus.RUNNING, ConversationStatus.CANCELLED)
COLUMNS = ("Run", "Started", "Domain", "Agents", "Done", "Status")
RESUMABLE_COLOUR = QColor("#b45309")
LIVE_COLOUR = QColor("#5b21b6")
Index = QModelIndex | QPersistentModelIndex


def unfinished(run: Any) -> int:
    """How many conversations of a run a resume would play: the unfinished ones, and the errored
    ones, which a resume plays again (never for an imported run, which has nothing to play)."""
    if isinstance(run.config, dict) and run.config.get("imported"):
        return 0
    return sum(run.counts.get(s.value, 0) for s in (*UNFINISHED, ConversationStatus.ERRORED))


def is_resumable(run: Any, live: bool = False) -> bool:
    """A run not being played here that still has conversations to play."""
    return not live and unfinished(run) > 0


def run_state(run: Any, live: bool = False) -> str:
    """What the Status column says: running, finished, or why it stopped and that it resumes."""
    if live:
        return "running"
    if unfinished(run) == 0:
        return run.status.value
    # A run still marked running that nobody is playing was cut off: the window closed or the process died.
    why = "interrupted" if run.status in (RunStatus.RUNNING, RunStatus.INTERRUPTED) else run.status.value
    return f"{why} · resumable"  # how many are left shows in Done and the tooltip


class RunsModel(QAbstractTableModel):
    """Runs as rows; `live` names the run this window is playing (never shown as resumable)."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.runs: list[Any] = []
        self.live: str | None = None
        self.elsewhere: dict[str, list[Any]] = {}  # run id -> the live processes playing it, not this window

    def set_runs(self, runs: list[Any], live: str | None = None, elsewhere: dict[str, list[Any]] | None = None) -> None:
        """Show these runs (newest first) with `live` marked as running, and those other processes play
        (`elsewhere`: run id -> their owners, store/owners.py) as running there."""
        self.beginResetModel()
        self.runs = sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True)
        self.live = live
        self.elsewhere = {k: v for k, v in (elsewhere or {}).items() if k != live and v}
        self.endResetModel()

    def run_at(self, row: int) -> Any:
        """The run shown in `row`."""
        return self.runs[row]

    def row_of(self, run_id: str) -> int:
        """The row of a run, or -1."""
        return next((i for i, r in enumerate(self.runs) if r.id == run_id), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.runs)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.runs):
            return None
        run = self.runs[index.row()]
        live = run.id == self.live
        playing = self.elsewhere.get(run.id, [])
        if role == Qt.ItemDataRole.DisplayRole:
            if playing and index.column() == len(COLUMNS) - 1:
                return "running elsewhere" if len(playing) == 1 else f"running in {len(playing)} processes"
            return self._text(run, index.column(), live)
        if role == Qt.ItemDataRole.ToolTipRole:
            who = [f"played by {o.describe()}" for o in playing]
            return "\n".join([self._tooltip(run, live or bool(playing)), *who])
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == len(COLUMNS) - 1:
            if live or playing:
                return QBrush(LIVE_COLOUR)
            if is_resumable(run):
                return QBrush(RESUMABLE_COLOUR)
        if role == Qt.ItemDataRole.UserRole:
            return run.id
        return None

    @staticmethod
    def _text(run: Any, column: int, live: bool) -> str:
        errored = run.counts.get(ConversationStatus.ERRORED.value, 0)
        done = run.counts.get(ConversationStatus.FINISHED.value, 0) + errored
        values = (
            run.id,
            run.created_at.strftime("%Y-%m-%d %H:%M"),
            run.domain,
            ", ".join(run.config.get("agents", [])),
            f"{done:,} / {run.total:,}" + (f" · {errored:,} errored" if errored else ""),
            run_state(run, live),
        )
        return values[column]

    @staticmethod
    def _tooltip(run: Any, live: bool) -> str:
        config = run.config
        lines = [
            f"{run.id} · {run.domain}",
            f"agents: {', '.join(config.get('agents', []))}",
            f"customer: {config.get('user', 'scripted')} · judges: {', '.join(config.get('judges', [])) or 'none'}",
            f"repeats: {config.get('repeats', 1)} · concurrency: {config.get('concurrency', '?')}",
        ]
        bases = [
            f"{label}: {config[key]}"
            for label, key in (("API base", "api_base"), ("customer's", "user_api_base"), ("judges'", "judge_api_base"))
            if config.get(key)
        ]
        if bases:
            lines.append(" · ".join(bases))
        if is_resumable(run, live):
            lines.append(f"{unfinished(run):,} conversation(s) left: Resume plays them; finished ones are kept.")
        return "\n".join(lines)
