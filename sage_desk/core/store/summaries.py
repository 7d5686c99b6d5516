"""Each conversation's verdict summary, stored beside it so the Review list reads one row per conversation.

Aggregating ~17 verdicts per conversation every time the list opened took 1.75 s on 100,000
conversations; the summary is instead written whenever verdicts or overrides change, in the same
transaction (`reviews.save_verdicts*`, `reviews.add_override*`), and migration 0007 fills it for
runs recorded before. A conversation without verdicts has no summary row.

Columns, per conversation, each verdict's latest human override applied:
- rules_failed: rule verdicts (source `rules`) that failed;
- judge_mean: the mean judge score (every non-rule source, unscored left out);
- failing: the failed criteria of every source (`catastrophic.free_goods`, `judge.empathy` ...),
  joined by `SEPARATOR`;
- overridden: verdicts with a human override; disagree: those where the human's pass/fail differs
  from the machine's, or the score moved by `DISAGREE_SCORE` or more;
- marks (0009): what metrics read, as JSON (`_as_json`): each verdict with its
  effective human label applied (the label rule of `consensus.py`, disputes left at the machine's
  value), then the sources of a criterion put to a vote (`vote`). The report reads one row per
  conversation instead of every verdict (a million on 50,000 conversations took 10 s).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, and_, bindparam, case, delete, false, func, insert, literal, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from sage_desk.core.rules.verdict import RULES_SOURCE
from sage_desk.core.store.consensus import EffectiveLabel, resolve
from sage_desk.core.store.records import MarkedConversation
from sage_desk.core.store.schema import ConversationRow, ConversationSummaryRow, OverrideRow, VerdictRow, table_of

DISAGREE_SCORE = 0.25
"""A human score this far from the machine's counts as a disagreement even when pass/fail agree."""
SEPARATOR = "\x1f"
"""Joins failed criteria in the `failing` column; no criterion contains it."""
_CHUNK = 500  # conversation ids per statement: under SQLite's bound-parameter limit


def refresh(connection: Connection, conversation_ids: Sequence[str]) -> None:
    """Rewrite the summaries of these conversations from their verdicts and overrides as stored now.

    Two reviewers labelling the same conversation at once on PostgreSQL would each delete the
    summary row and insert their own, and the second insert would break the primary key; so the
    conversations' rows are locked first, in id order (no deadlock between two such writers), and
    the second writer waits, then rewrites from both labels. SQLite has one writer at a time and
    ignores the lock clause.
    """
    ids, conversations = sorted(set(conversation_ids)), table_of(ConversationRow)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        which = select(conversations.c.id).where(conversations.c.id.in_(chunk))
        # FOR NO KEY UPDATE: the overrides and verdicts just inserted hold KEY SHARE locks on these
        # rows (their foreign keys), which a plain FOR UPDATE would wait on: a deadlock between two.
        connection.execute(which.order_by(conversations.c.id).with_for_update(key_share=True))
        write(connection, which)


def write(connection: Connection, which: Select[Any], marks: bool = True) -> None:
    """Replace the summaries of the conversations `which` selects (a one-column select of ids).

    `marks=False` leaves the `marks` column out: migration 0007 writes summaries before 0009 adds it.

    The override join is made only for conversations a human has corrected: on a big run that is
    a few hundred of 100,000, and the join costs a pass over every verdict it touches.
    """
    table = table_of(ConversationSummaryRow)
    connection.execute(delete(table).where(table.c.conversation_id.in_(which)))
    connection.execute(insert(table).from_select(_COLUMNS, _summary(which, with_overrides=False)))
    o = table_of(OverrideRow)
    corrected = select(o.c.conversation_id).distinct().where(o.c.conversation_id.in_(which))
    connection.execute(delete(table).where(table.c.conversation_id.in_(corrected)))
    connection.execute(insert(table).from_select(_COLUMNS, _summary(corrected, with_overrides=True)))
    if marks:
        write_marks(connection, which)


_COLUMNS = ("conversation_id", "rules_failed", "judge_mean", "failing", "overridden", "disagree")


def _latest_overrides() -> Any:
    """Each (conversation, criterion, source)'s newest override: the one in effect."""
    o = table_of(OverrideRow)
    newest = select(func.max(o.c.id).label("id")).group_by(o.c.conversation_id, o.c.criterion, o.c.source).subquery()
    return (
        select(
            o.c.conversation_id,
            o.c.criterion,
            o.c.source,
            o.c.human_passed,
            o.c.human_score,
            o.c.original_passed,
            o.c.original_score,
        )
        .join(newest, newest.c.id == o.c.id)
        .subquery("latest")
    )


def _summary(conversations: Select[Any], with_overrides: bool) -> Select[Any]:
    """Per conversation with verdicts: the summary columns, in `_COLUMNS` order.

    FILTER clauses rather than CASE: cheaper in SQLite, and standard SQL (PostgreSQL has them).
    """
    v = table_of(VerdictRow)
    is_rule = v.c.source == RULES_SOURCE
    if not with_overrides:
        scored: Any = v.c.unscored == false()
        failed = and_(scored, v.c.passed == false())
        score: Any = v.c.score
        extra = [literal(0).label("overridden"), literal(0).label("disagree")]
        joined: Any = v
    else:
        lo = _latest_overrides()
        passed = case((lo.c.human_passed.is_not(None), lo.c.human_passed), else_=v.c.passed)
        scored = or_(v.c.unscored == false(), lo.c.conversation_id.is_not(None))
        failed = and_(scored, passed == false())
        score = func.coalesce(lo.c.human_score, v.c.score)
        moved = or_(
            and_(lo.c.human_passed.is_not(None), or_(lo.c.original_passed.is_(None), lo.c.human_passed != lo.c.original_passed)),
            and_(
                lo.c.human_score.is_not(None),
                or_(lo.c.original_score.is_(None), func.abs(lo.c.human_score - lo.c.original_score) >= DISAGREE_SCORE),
            ),
        )
        extra = [func.count(lo.c.conversation_id).label("overridden"), func.count().filter(moved).label("disagree")]
        joined = v.outerjoin(
            lo, and_(lo.c.conversation_id == v.c.conversation_id, lo.c.criterion == v.c.criterion, lo.c.source == v.c.source)
        )
    return (
        select(
            v.c.conversation_id,
            func.count().filter(and_(is_rule, failed)).label("rules_failed"),
            func.avg(score).filter(and_(~is_rule, scored)).label("judge_mean"),
            func.aggregate_strings(v.c.criterion, SEPARATOR).filter(failed).label("failing"),
            *extra,
        )
        .select_from(joined)
        .where(v.c.conversation_id.in_(conversations))
        .group_by(v.c.conversation_id)
    )


Vote = tuple[bool | None, float | None]
"""A criterion's effective (passed, score): (None, None) when every verdict of it is unscored."""


def overridden(
    passed: bool | None, score: float | None, unscored: bool, label: EffectiveLabel | None
) -> tuple[bool | None, float | None, bool]:
    """A verdict's pass, score and unscored flag once its effective human label (if any) is applied."""
    if label is None:
        return passed, score, unscored
    return (
        label.human_passed if label.human_passed is not None else passed,
        label.human_score if label.human_score is not None else score,
        False,
    )


def vote(verdicts: Sequence[tuple[bool | None, float | None, bool]]) -> Vote:
    """One criterion's (passed, score) from its verdicts (passed, score, unscored) in the order given.

    When several sources scored it, their scores are averaged; pass/fail follows the majority, a
    tie going the way of the first. A rule verdict has one source, so it passes through.
    """
    scored = [(p, s) for p, s, unscored in verdicts if not unscored]
    if not scored:
        return None, None
    scores = [s for _, s in scored if s is not None]
    passes = [p for p, _ in scored if p is not None]
    passed = None if not passes else sum(passes) * 2 > len(passes) or (sum(passes) * 2 == len(passes) and passes[0])
    return passed, sum(scores) / len(scores) if scores else None


def write_marks(connection: Connection, which: Select[Any]) -> None:
    """Fill the `marks` column of the summaries of the conversations `which` selects (rows written just before)."""
    ids = list(connection.execute(which).scalars())
    table = table_of(ConversationSummaryRow)
    statement = update(table).where(table.c.conversation_id == bindparam("cid")).values(marks=bindparam("marks"))
    for start in range(0, len(ids), _CHUNK):
        found = marks_of(connection, ids[start : start + _CHUNK])
        if found:
            connection.execute(statement, [{"cid": cid, "marks": _as_json(m)} for cid, m in found.items()])


def _as_json(marks: dict[str, Vote]) -> str:
    """`{"passed": {criterion: passed}, "score": {criterion: score}}`: every criterion in `passed`, the
    scored ones in `score`. Two flat objects, not a pair per criterion: a report decodes a run's marks
    in half the time (the pairs were a million small lists for the garbage collector to walk)."""
    return json.dumps(
        {
            "passed": {k: passed for k, (passed, _) in marks.items()},
            "score": {k: score for k, (_, score) in marks.items() if score is not None},
        }
    )


def marks_of(connection: Connection, conversation_ids: Sequence[str]) -> dict[str, dict[str, Vote]]:
    """conversation -> criterion -> its vote, from the verdicts (in insertion order) and the overrides."""
    v, o = table_of(VerdictRow), table_of(OverrideRow)
    rows = connection.execute(
        select(v.c.conversation_id, v.c.criterion, v.c.source, v.c.passed, v.c.score, v.c.unscored)
        .where(v.c.conversation_id.in_(conversation_ids))
        .order_by(v.c.conversation_id, v.c.id)
    ).all()
    labels = resolve(connection.execute(select(*o.columns).where(o.c.conversation_id.in_(conversation_ids)))).labels
    grouped: dict[str, dict[str, list[tuple[bool | None, float | None, bool]]]] = defaultdict(lambda: defaultdict(list))
    for cid, criterion, source, passed, score, unscored in rows:  # written with every verdict: kept tight
        label = labels.get((cid, criterion, source)) if labels else None
        verdict = (passed, score, bool(unscored))
        grouped[cid][criterion].append(verdict if label is None else overridden(*verdict, label))
    return {cid: {criterion: vote(found) for criterion, found in by_criterion.items()} for cid, by_criterion in grouped.items()}


def conversation_marks(session: Session, run_id: str) -> list[MarkedConversation]:
    """A run's finished and errored conversations in list order (case, model, repeat, id): the columns
    metrics read, each with its summary's `marks` (None for a conversation without verdicts).

    Two queries joined here: SQLite's join looked each summary up through its key's index, then
    the row, and took half as long again.
    """
    c, s = table_of(ConversationRow), table_of(ConversationSummaryRow)
    which = (c.c.run_id == run_id, c.c.status.in_(("finished", "errored")))
    query = (
        select(
            c.c.id,
            c.c.agent,
            c.c.domain,
            c.c.case_id,
            c.c.repeat,
            c.c.bucket,
            c.c.conflict,
            c.c.status,
            c.c.agent_turns,
            c.c.agent_tokens,
            c.c.agent_cost_usd,
        )
        .where(*which)
        .order_by(c.c.case_id, c.c.agent, c.c.repeat, c.c.id)
    )
    conversations = session.execute(query).all()
    found = session.execute(select(s.c.conversation_id, s.c.marks).where(s.c.conversation_id.in_(select(c.c.id).where(*which))))
    marks = {cid: text for cid, text in found}
    return [MarkedConversation(*row, marks.get(row.id)) for row in conversations]
