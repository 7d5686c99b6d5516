"""The review list of one run: every conversation with its verdict summary, read in one query.

The Review screen lists up to 100,000 conversations and filters them as the reviewer types, so
the list is read once into parallel columns (plain lists and `array`s, strings interned) and
filtered in Python over precomputed values; nothing is read per row. The verdict summary
is the one stored with each conversation (store/summaries.py: its columns, with each verdict's
latest human override applied), so opening the list is one scan of two tables.

"Failures" are conversations with a failed rule, or an errored one: the judge's opinions are shown
beside, not counted, since the heuristic judge fails something in nearly every conversation.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, select, tuple_
from sqlalchemy.orm import Session

from sage_desk.core.store.schema import ConversationRow, ConversationSummaryRow, EventRow, table_of
from sage_desk.core.store.summaries import SEPARATOR

TEXT_EVENTS = ("customer_message", "agent_message")


@dataclass(frozen=True)
class BrowseFilter:
    """What the reviewer narrowed the list to; None or empty means no narrowing."""

    agent: str | None = None
    bucket: str | None = None
    conflict: str | None = None
    failing: str | None = None
    """A failed criterion (`outcome`), or a family ending in `.*` (`catastrophic.*`)."""
    failures_only: bool = False
    disagree_only: bool = False
    unsettled_only: bool = False
    """Only conversations whose rules are not settled: some verdict unscored or provisional."""
    text: str = ""
    """Case-insensitive text in the conversation id, case id, source id, model or a failed criterion."""
    text_ids: frozenset[str] | None = None
    """Conversations whose transcript matched `text` (from `search_transcripts`): also kept."""


@dataclass
class ConversationTable:
    """One run's conversations as parallel columns, in case, model, repeat order."""

    run_id: str
    domain: str = ""
    ids: list[str] = field(default_factory=list)
    case_ids: list[str] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    repeats: array = field(default_factory=lambda: array("i"))
    buckets: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    endings: list[str] = field(default_factory=list)
    """How it ended: the termination reason (`closed`, `handed_over` ...), else the status."""
    rules_failed: array = field(default_factory=lambda: array("i"))
    """Failed rule verdicts; -1 when the conversation has no verdicts at all."""
    judge_mean: array = field(default_factory=lambda: array("d"))
    """Mean judge score; nan when no judge scored."""
    failing: list[tuple[str, ...]] = field(default_factory=list)
    overridden: array = field(default_factory=lambda: array("i"))
    disagree: array = field(default_factory=lambda: array("i"))
    source_ids: list[str] = field(default_factory=list)
    """An imported conversation's id in its own log ("" for simulated ones)."""
    tau_rewards: array = field(default_factory=lambda: array("d"))
    """tau-bench/tau2's own reward of an imported conversation; nan for none."""
    rules_states: list[str] = field(default_factory=list)
    """"" when every rule verdict is settled; else `unscored`, `provisional` or both joined by '+'."""
    _haystack: list[str] = field(default_factory=list, repr=False)
    _row_of: dict[str, int] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    def row_of(self, conversation_id: str) -> int | None:
        """The row of a conversation, or None when it is not in this run."""
        if len(self._row_of) != len(self.ids):
            self._row_of = {cid: i for i, cid in enumerate(self.ids)}
        return self._row_of.get(conversation_id)

    def judge_score(self, row: int) -> float | None:
        """The mean judge score of a row, or None when no judge scored it."""
        value = self.judge_mean[row]
        return None if math.isnan(value) else value

    def judge_failed(self, row: int) -> int:
        """How many judge criteria failed (several judges failing one criterion count once)."""
        return sum(1 for c in self.failing[row] if c.startswith("judge"))

    def tau_reward(self, row: int) -> float | None:
        """tau's own reward of a row, or None when it has none."""
        value = self.tau_rewards[row] if row < len(self.tau_rewards) else math.nan
        return None if math.isnan(value) else value

    def unsettled(self, row: int) -> str:
        """'' when the row's rule verdicts are settled; else `unscored`, `provisional` or both joined by '+'."""
        return self.rules_states[row] if row < len(self.rules_states) else ""

    def has_tau(self) -> bool:
        """Whether any row carries a tau reward (the list then shows its column)."""
        return any(not math.isnan(v) for v in self.tau_rewards)

    def outcome_passed(self, row: int) -> bool | None:
        """Whether the `outcome` rule passed; None before any verdict."""
        return None if self.rules_failed[row] < 0 else "outcome" not in self.failing[row]

    def is_failure(self, row: int) -> bool:
        """A failed rule, or an errored conversation."""
        return self.rules_failed[row] > 0 or self.statuses[row] == "errored"

    def choices(self) -> dict[str, list[str]]:
        """The values each filter can take in this run (models, buckets, conflicts, failed criteria)."""
        failing = sorted({c for row in self.failing for c in row})
        families = sorted({c.rsplit(".", 1)[0] + ".*" for c in failing if "." in c})
        return {
            "agent": sorted(set(self.agents)),
            "bucket": sorted({b for b in self.buckets if b}),
            "conflict": _conflict_order({c for c in self.conflicts if c}),
            "failing": families + failing,
        }

    def filter(self, spec: BrowseFilter, rows: Iterable[int] | None = None) -> list[int]:
        """The rows `spec` keeps, in order."""
        keep: list[int] = list(range(len(self.ids))) if rows is None else list(rows)
        for column, value in ((self.agents, spec.agent), (self.buckets, spec.bucket), (self.conflicts, spec.conflict)):
            if value:
                keep = [i for i in keep if column[i] == value]
        if spec.failing:
            test = _criterion_test(spec.failing)
            wanted = frozenset(c for c in {c for row in self.failing for c in row} if test(c))
            failing = self.failing
            keep = [i for i in keep if not wanted.isdisjoint(failing[i])]
        if spec.failures_only:
            failed, statuses = self.rules_failed, self.statuses
            keep = [i for i in keep if failed[i] > 0 or statuses[i] == "errored"]
        if spec.disagree_only:
            disagree = self.disagree
            keep = [i for i in keep if disagree[i] > 0]
        if spec.unsettled_only:
            keep = [i for i in keep if self.unsettled(i)]
        if spec.text.strip():
            keep = self._search(keep, spec.text.strip().lower(), spec.text_ids or frozenset())
        return keep

    def _search(self, keep: list[int], needle: str, also: frozenset[str]) -> list[int]:
        if len(self._haystack) != len(self.ids):
            sources = self.source_ids if len(self.source_ids) == len(self.ids) else [""] * len(self.ids)
            self._haystack = [
                "\t".join((cid, case_id, agent, source, *failing)).lower()
                for cid, case_id, agent, source, failing in zip(
                    self.ids, self.case_ids, self.agents, sources, self.failing, strict=True
                )
            ]
        hay, ids = self._haystack, self.ids
        return [i for i in keep if needle in hay[i] or ids[i] in also]

    def sort_key(self, column: str) -> Callable[[int], Any]:
        """A key for sorting rows by a column name (missing judge scores last)."""
        if column == "judge_mean":
            return lambda i: (math.isnan(self.judge_mean[i]), self.judge_mean[i])
        if column == "conflict":
            order = {c: n for n, c in enumerate(_conflict_order(set(self.conflicts)))}
            return lambda i: order.get(self.conflicts[i], 99)
        values = getattr(self, column)
        return lambda i: values[i]

    def last_key(self) -> ListKey | None:
        """The last row's place in the list's order: where the next page starts (None when empty)."""
        if not self.ids:
            return None
        return self.case_ids[-1], self.agents[-1], self.repeats[-1], self.ids[-1]

    def extend(self, page: ConversationTable) -> None:
        """Append the next page of the same run (read with `conversation_table(after=self.last_key())`)."""
        for name in _COLUMNS:
            getattr(self, name).extend(getattr(page, name))
        self.domain = self.domain or page.domain

    def replace_row(self, row: int, other: ConversationTable) -> None:
        """Take the summary of `other`'s single row (re-read after an override) into `row`."""
        for name in _COLUMNS:
            getattr(self, name)[row] = getattr(other, name)[0]
        self._haystack = []


_COLUMNS = (
    "ids",
    "case_ids",
    "agents",
    "repeats",
    "buckets",
    "conflicts",
    "statuses",
    "endings",
    "rules_failed",
    "judge_mean",
    "failing",
    "overridden",
    "disagree",
    "source_ids",
    "tau_rewards",
    "rules_states",
)
_CONFLICT_ORDER = ("zero", "weak", "strong")


def _conflict_order(values: set[str]) -> list[str]:
    return [c for c in _CONFLICT_ORDER if c in values] + sorted(values - set(_CONFLICT_ORDER))


def _criterion_test(wanted: str) -> Callable[[str], bool]:
    if wanted.endswith(".*"):
        prefix = wanted[:-1]
        return lambda c: c.startswith(prefix)
    return lambda c: c == wanted


# --- the query ---------------------------------------------------------------------------------


def _rows_query(run_id: str, conversation_ids: Sequence[str] | None) -> Select[Any]:
    """Conversations with their stored summaries, in the list's order (case, model, repeat, id).

    The order is the `ix_conversations_run_list` index's (0008): SQLite walks it rather than
    sorting the run, so a page that starts after a given row costs only its own rows.
    """
    c, s = table_of(ConversationRow), table_of(ConversationSummaryRow)
    query = (
        select(
            c.c.id,
            c.c.case_id,
            c.c.agent,
            c.c.repeat,
            c.c.bucket,
            c.c.conflict,
            c.c.status,
            c.c.termination,
            s.c.rules_failed,
            s.c.judge_mean,
            s.c.failing,
            s.c.overridden,
            s.c.disagree,
            c.c.domain,
            c.c.source_id,
            c.c.tau_reward,
            c.c.rules_state,
        )
        .select_from(c.outerjoin(s, s.c.conversation_id == c.c.id))
        .where(c.c.run_id == run_id)
        .order_by(c.c.case_id, c.c.agent, c.c.repeat, c.c.id)
    )
    if conversation_ids is not None:
        query = query.where(c.c.id.in_(list(conversation_ids)))
    return query


ListKey = tuple[str, str, int, str]
"""A row's place in the list's order: (case id, model, repeat, conversation id)."""


def conversation_table(
    session: Session,
    run_id: str,
    conversation_ids: Sequence[str] | None = None,
    after: ListKey | None = None,
    limit: int | None = None,
) -> ConversationTable:
    """The run's conversations (or just the ones named) with their verdict summaries.

    `after` and `limit` read one page of the list: the rows that follow `after` (the previous
    page's `last_key()`), at most `limit` of them. Keyset pages, not offsets: each is one short
    walk of the list's index wherever it starts (offsets made the millionth row cost a walk past
    the 999,999 before it). The Review screen shows the first page at once and reads the rest
    behind it (`ConversationTable.extend`).
    """
    query = _rows_query(run_id, conversation_ids)
    if after is not None:
        c = table_of(ConversationRow)
        query = query.where(tuple_(c.c.case_id, c.c.agent, c.c.repeat, c.c.id) > tuple_(*after))
    if limit is not None:
        query = query.limit(limit)
    return _table(run_id, list(session.execute(query).all()))


def _table(run_id: str, rows: list[Any]) -> ConversationTable:
    table = ConversationTable(run_id)
    if not rows:
        return table
    intern = _NAMES.setdefault  # one string object per distinct model, bucket, criterion ...
    criteria = _CriteriaCache(intern)
    (
        ids,
        case_ids,
        agents,
        repeats,
        buckets,
        conflicts,
        statuses,
        terminations,
        failed,
        judged,
        failing,
        overridden,
        disagree,
        domains,
        sources,
        rewards,
        states,
    ) = zip(*rows, strict=True)
    # column by column: list comprehensions over 100,000 values beat appending row by row
    table.domain = domains[0]
    table.ids, table.case_ids = list(ids), list(case_ids)
    table.agents = [intern(a, a) for a in agents]
    table.repeats = array("i", repeats)
    table.buckets = [intern(b, b) for b in (b or "" for b in buckets)]
    table.conflicts = [intern(c, c) for c in (c or "" for c in conflicts)]
    table.statuses = [intern(s, s) for s in statuses]
    table.endings = [intern(e, e) for e in (t or s for t, s in zip(terminations, table.statuses, strict=True))]
    table.rules_failed = array("i", [-1 if f is None else f for f in failed])
    table.judge_mean = array("d", [math.nan if j is None else j for j in judged])
    table.failing = [criteria(f) for f in failing]
    table.overridden = array("i", [o or 0 for o in overridden])
    table.disagree = array("i", [d or 0 for d in disagree])
    table.source_ids = [s or "" for s in sources]
    table.tau_rewards = array("d", [math.nan if r is None else r for r in rewards])
    table.rules_states = [intern(s, s) for s in (s or "" for s in states)]
    return table


_NAMES: dict[str, str] = {}
"""Interned model, bucket, status and criterion names, shared by every page read (a few hundred strings)."""


class _CriteriaCache:
    """Failed-criteria strings to tuples; rows of one case and model mostly repeat the same string."""

    def __init__(self, intern: Callable[[str, str], str]):
        self.intern = intern
        self.seen: dict[str, tuple[str, ...]] = {}

    def __call__(self, joined: str | None) -> tuple[str, ...]:
        if not joined:
            return ()
        found = self.seen.get(joined)
        if found is None:
            found = self.seen[joined] = tuple(dict.fromkeys(self.intern(f, f) for f in joined.split(SEPARATOR)))
        return found


def search_transcripts(session: Session, run_id: str, text: str, limit: int = 100_000) -> set[str]:
    """Conversations of the run where a customer or agent message contains `text` (any case)."""
    if not text.strip():
        return set()
    e, c = table_of(EventRow), table_of(ConversationRow)
    pattern = "%" + text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    message = e.c.data["text"].as_string()
    query = (
        select(e.c.conversation_id)
        .distinct()
        .where(e.c.conversation_id.in_(select(c.c.id).where(c.c.run_id == run_id)))
        .where(e.c.type.in_(TEXT_EVENTS), message.ilike(pattern, escape="\\"))
        .limit(limit)
    )
    return set(session.scalars(query))


def empty_table(run_id: str = "") -> ConversationTable:
    """A table with no rows (before a run is chosen)."""
    return ConversationTable(run_id)
