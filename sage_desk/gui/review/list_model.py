"""The conversation list: a QAbstractTableModel over a `ConversationTable`, filtered and sorted in Python.

The model keeps the table (parallel columns read once from the store) and the list of row numbers
the current filter keeps, in the current sort order. `data()` indexes straight into the columns,
so showing a row costs the same on 100 or 100,000 conversations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from sage_desk.core.judge.rubric import PASS_THRESHOLD
from sage_desk.core.review.session import BrowseFilter, ConversationTable, empty_table

Index = QModelIndex | QPersistentModelIndex
FAIL = QColor("#b91c1c")
PASS = QColor("#15803d")
MUTED = QColor("#64748b")
HUMAN = QColor("#7c3aed")
CONVERSATION_ID_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True)
class ListColumn:
    """One column of the list: its key, header, width and what hovering the header says."""

    key: str
    header: str
    width: int
    help: str
    sort: str


COLUMNS = (
    ListColumn(
        "case",
        "Case",
        52,
        "The case the conversation played (its domain prefix left out; hover for the full id); "
        "an imported conversation's id in its log",
        "case_ids",
    ),
    ListColumn("agent", "Model", 70, "The agent model under test (hover for its full name)", "agents"),
    ListColumn("repeat", "Rep", 30, "Which repeat of the case (runs play each case several times)", "repeats"),
    ListColumn("bucket", "Bucket", 76, "resolvable, (must) escalate or adversarial", "buckets"),
    ListColumn("conflict", "Conflict", 56, "SAGE's conflict level: zero, weak or strong", "conflict"),
    ListColumn("ending", "Ending", 66, "How it ended (closed, handed over ...); red when the outcome rule failed", "endings"),
    ListColumn(
        "rules",
        "Rules",
        42,
        "Failed rule verdicts: ✓ none, ✗ n failed, ⚠ n failed with a catastrophic one; "
        "? none failed but some are unscored, ≈ none failed but some are provisional (resting on the agent's own "
        "tag): never a tick until every rule verdict is settled",
        "rules_failed",
    ),
    ListColumn(
        "tau",
        "tau",
        34,
        "tau-bench/tau2's own reward for an imported conversation (1 passed, 0 failed); shown only for runs imported from tau",
        "tau_rewards",
    ),
    ListColumn("judge", "Judge", 42, "Mean judge score, 0–1 (amber below the pass mark)", "judge_mean"),
    ListColumn("human", "Human", 52, "✎ n verdicts a human overrode; ≠ the human disagreed with the machine", "overridden"),
)


def short_model(agent: str) -> str:
    """`oracle` for `baseline:oracle`, `gpt-4o-mini` for `openai/gpt-4o-mini`."""
    return agent.removeprefix("baseline:").rsplit("/", 1)[-1]


_BUCKETS = {"must_escalate": "escalate"}


def ending_words(ending: str) -> str:
    """An ending in the words every command and file uses (`handed_over` -> "handed over"; core/events.TerminationReason)."""
    return ending.replace("_", " ")


class ConversationListModel(QAbstractTableModel):
    """The rows of one run that the filter keeps, one conversation per row."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.table: ConversationTable = empty_table()
        self.rows: list[int] = []
        self.spec = BrowseFilter()
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._prefix = ""  # the domain name that starts synthesized case ids ("airline-"), not repeated on every row
        self._bold = QFont()
        self._bold.setBold(True)
        self.queue_cells: dict[str, tuple[str, str]] | None = None  # queue mode: the Human column's (text, tooltip)
        self.hidden: frozenset[str] = frozenset()  # a blind queue's items whose judge score the reviewer may not see yet
        self.agent_names: dict[str, str] = {}  # spec -> display name (core/agents/display.py), set with the run

    # --- contents ---------------------------------------------------------------------------

    def set_table(self, table: ConversationTable) -> None:
        """Show a newly read run (the filter and sort order stay)."""
        self.beginResetModel()
        self.table = table
        self.rows = self._visible()
        self._prefix = f"{table.domain}-" if table.domain else ""
        self.endResetModel()

    def append_table(self, page: ConversationTable) -> None:
        """Append the next page of the run being read (`table_loader`): its rows the filter keeps
        go at the end, or, under a sort, every row is sorted again."""
        start = len(self.table)
        self.table.extend(page)
        if self._sort is not None:
            self.layoutAboutToBeChanged.emit()
            kept = [self.table.ids[r] for r in self.rows]
            self.rows = self._visible()
            self._move_persistent(kept)
            self.layoutChanged.emit()
            return
        new = self.table.filter(self.spec, range(start, len(self.table)))
        if new:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(new) - 1)
            self.rows.extend(new)
            self.endInsertRows()

    def _move_persistent(self, old_ids: list[str]) -> None:
        """After re-sorting: the selection (a persistent index) follows its conversation."""
        for index in self.persistentIndexList():
            if not 0 <= index.row() < len(old_ids):
                continue
            position = self.position_of(old_ids[index.row()])
            target = self.index(position, index.column()) if position is not None else QModelIndex()
            self.changePersistentIndex(index, target)

    def set_filter(self, spec: BrowseFilter) -> None:
        """Keep only the rows `spec` allows."""
        self.beginResetModel()
        self.spec = spec
        self.rows = self._visible()
        self.endResetModel()

    def replace_summary(self, conversation_id: str, summary: ConversationTable) -> None:
        """Take a conversation's re-read summary (a one-row table) into its row and repaint it."""
        row = self.table.row_of(conversation_id)
        if row is not None:
            self.table.replace_row(row, summary)
            self.refresh_rows([row])

    def refresh_rows(self, table_rows: list[int]) -> None:
        """Repaint these table rows (after their summary was re-read)."""
        wanted = set(table_rows)
        for position, row in enumerate(self.rows):
            if row in wanted:
                self.dataChanged.emit(self.index(position, 0), self.index(position, len(COLUMNS) - 1))

    def set_queue_view(self, cells: dict[str, tuple[str, str]] | None, hidden: frozenset[str]) -> None:
        """Queue mode: each item's review state in the Human column, and the items whose judge score is hidden."""
        self.queue_cells, self.hidden = cells, hidden
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(COLUMNS) - 1))

    def _visible(self) -> list[int]:
        rows = self.table.filter(self.spec)
        if self._sort is not None:
            column, order = self._sort
            rows.sort(key=self._sort_key(COLUMNS[column].sort), reverse=order == Qt.SortOrder.DescendingOrder)
        return rows

    def _sort_key(self, name: str) -> Any:
        sources = self.table.source_ids
        if name == "case_ids" and any(sources):  # imported rows show (and sort by) their source id
            cases = self.table.case_ids
            return lambda i: sources[i] or cases[i]
        if name in ("judge_mean", "overridden") and self.hidden:  # a blind queue: the order must not tell the score
            ids, hidden, key = self.table.ids, self.hidden, self.table.sort_key(name)
            return lambda i: (ids[i] in hidden, 0 if ids[i] in hidden else key(i))
        return self.table.sort_key(name)

    def conversation_id(self, position: int) -> str | None:
        """The conversation shown at a list position."""
        return self.table.ids[self.rows[position]] if 0 <= position < len(self.rows) else None

    def position_of(self, conversation_id: str) -> int | None:
        """Where a conversation is in the list, or None when the filter hides it."""
        row = self.table.row_of(conversation_id)
        if row is None:
            return None
        try:
            return self.rows.index(row)
        except ValueError:
            return None

    def column_of(self, key: str) -> int:
        """The column number of a column key."""
        return [c.key for c in COLUMNS].index(key)

    # --- Qt model API -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row, key = self.rows[index.row()], COLUMNS[index.column()].key
        if key in ("judge", "human") and (self.queue_cells is not None or self.hidden) and role != CONVERSATION_ID_ROLE:
            return self._queue_data(row, key, role)
        if role == Qt.ItemDataRole.FontRole and key == "rules" and self._catastrophic(row):
            return self._bold
        if role == CONVERSATION_ID_ROLE:
            return self.table.ids[row]
        return self._plain(row, key, role)

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # Qt API
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].header
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section].help
        return None

    def unsort(self) -> None:
        """Back to the table's order: case, model, repeat."""
        self.beginResetModel()
        self._sort = None
        self.rows = self._visible()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the visible rows by a column (ties keep case, model, repeat order)."""
        if not 0 <= column < len(COLUMNS):
            return
        self.layoutAboutToBeChanged.emit()
        before = self.rows
        self._sort = (column, Qt.SortOrder(order))
        self.rows = self._visible()
        self._follow_rows(before)
        self.layoutChanged.emit()

    def _follow_rows(self, before: list[int]) -> None:
        # the selection (and with it the conversation the reviewer acts on) is a set of persistent
        # indexes: move each to where its conversation went, or it stays on the old row number
        # and J, the value keys and Save & next act on whatever conversation sorted into it
        position = {row: number for number, row in enumerate(self.rows)}
        old = self.persistentIndexList()
        new = []
        for index in old:
            moved = position.get(before[index.row()]) if 0 <= index.row() < len(before) else None
            new.append(QModelIndex() if moved is None else self.index(moved, index.column()))
        self.changePersistentIndexList(old, new)

    # --- cells ------------------------------------------------------------------------------

    def _queue_data(self, row: int, key: str, role: int) -> Any:
        """Queue mode's Judge and Human cells: the judge's score unless blind hides it, the item's review state."""
        cid = self.table.ids[row]
        if key == "judge" and cid in self.hidden:
            texts = {
                Qt.ItemDataRole.DisplayRole: "?",
                Qt.ItemDataRole.ForegroundRole: QBrush(MUTED),
                Qt.ItemDataRole.ToolTipRole: "Hidden until you label it (blind queue)",
                Qt.ItemDataRole.TextAlignmentRole: int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
            }
            return texts.get(Qt.ItemDataRole(role))
        if key == "judge":
            return self._plain(row, key, role)
        text, tip = (self.queue_cells or {}).get(cid, ("", ""))
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip or None
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(HUMAN)
        return None

    def _plain(self, row: int, key: str, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, key)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._colour(row, key)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, key)
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ("repeat", "judge"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _source_id(self, row: int) -> str:
        sources = self.table.source_ids
        return sources[row] if row < len(sources) else ""

    def _catastrophic(self, row: int) -> bool:
        return any(c.startswith("catastrophic.") for c in self.table.failing[row])

    def _text(self, row: int, key: str) -> str:
        t = self.table
        if key == "case":
            if self._source_id(row):  # an imported conversation: its log's id says more than the case the import made
                return self._source_id(row)
            case_id = t.case_ids[row]
            return case_id[len(self._prefix) :] if self._prefix and case_id.startswith(self._prefix) else case_id
        if key == "agent":
            return self.agent_names.get(t.agents[row]) or short_model(t.agents[row])
        if key == "repeat":
            return str(t.repeats[row])
        if key == "bucket":
            return _BUCKETS.get(t.buckets[row], t.buckets[row])
        if key == "conflict":
            return t.conflicts[row]
        if key == "ending":
            return ending_words(t.endings[row])
        if key == "rules":
            failed = t.rules_failed[row]
            if failed < 0:
                return "—"
            if failed == 0 and t.unsettled(row):  # never a tick on verdicts that are not settled
                return "?" if "unscored" in t.unsettled(row) else "≈"
            return f"⚠ {failed}" if self._catastrophic(row) else f"✗ {failed}" if failed else "✓"
        if key == "tau":
            reward = t.tau_reward(row)
            return "" if reward is None else f"{reward:g}"
        if key == "judge":
            score = t.judge_score(row)
            return "—" if score is None else f"{score:.2f}"
        over, dis = t.overridden[row], t.disagree[row]
        return "" if not over else f"✎{over}" + (" ≠" if dis else "")

    def _colour(self, row: int, key: str) -> QBrush | None:
        t = self.table
        if key == "rules" and t.rules_failed[row] != 0:
            return QBrush(FAIL if t.rules_failed[row] > 0 else MUTED)
        if key == "rules":
            return QBrush(MUTED if t.unsettled(row) else PASS)
        if key == "tau":
            reward = t.tau_reward(row)
            return None if reward is None else QBrush(PASS if reward >= 1 else FAIL)
        if key == "ending" and (t.outcome_passed(row) is False or t.statuses[row] == "errored"):
            return QBrush(FAIL)
        if key == "judge":
            score = t.judge_score(row)
            return QBrush(MUTED if score is None else QColor("#b45309") if score < PASS_THRESHOLD else QColor("#0f172a"))
        if key == "human":
            return QBrush(HUMAN)
        return None

    def _tooltip(self, row: int, key: str) -> str | None:
        t = self.table
        if key in ("rules", "judge"):
            judge = key == "judge"
            failing = [c for c in t.failing[row] if c.startswith("judge") == judge]
            what = "judge criteria" if judge else "rules"
            text = f"Failed {what}:\n" + "\n".join(failing) if failing else f"No failed {what}"
            state = "" if judge else t.unsettled(row)
            return text + (f"\nNot settled: some rule verdicts are {state.replace('+', ' and ')}" if state else "")
        if key == "tau":
            reward = t.tau_reward(row)
            return None if reward is None else f"tau's own reward: {reward:g} ({'passed' if reward >= 1 else 'failed'} by tau)"
        if key == "ending":
            outcome = t.outcome_passed(row)
            verdict = "" if outcome is None else " — outcome as expected" if outcome else " — not the expected outcome"
            return f"{t.endings[row]} ({t.statuses[row]}){verdict}"
        if key == "human" and t.overridden[row]:
            return f"{t.overridden[row]} verdict(s) overridden by a reviewer" + (
                f"; {t.disagree[row]} disagree with the machine" if t.disagree[row] else ""
            )
        if key == "case":
            source = f" — source id {self._source_id(row)}" if self._source_id(row) else ""
            return f"{t.case_ids[row]} — conversation {t.ids[row]}{source}"
        if key == "agent":
            name = self.agent_names.get(t.agents[row])
            return f"{name} = {t.agents[row]}" if name and name != t.agents[row] else t.agents[row]
        return None
