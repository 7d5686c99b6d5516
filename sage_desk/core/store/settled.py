"""Whether an imported conversation's rule verdicts are settled (`conversations.rules_state`, 0011).

The import writes the state with the verdicts: `unscored` when some rule verdict could not be
decided, `provisional` when some rests only on the agent's own tag, both joined by '+'. A reviewer's
label on such a verdict settles it, so after overrides the state is worked out again from the
newest rule verdicts and the overrides on them; the Review list then shows the conversation's tick.
Only conversations with an unsettled state are read: a simulated run's overrides cost one query.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from sage_desk.core.rules.verdict import RULES_SOURCE
from sage_desk.core.store.schema import ConversationRow, OverrideRow, VerdictRow, table_of

_CHUNK = 500  # under SQLite's bound-parameter limit


def settle(connection: Connection, conversation_ids: Sequence[str]) -> None:
    """Work out again the rules' state of the unsettled conversations among these (after overrides)."""
    c = table_of(ConversationRow)
    ids = sorted(set(conversation_ids))
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        open_ = dict(
            connection.execute(select(c.c.id, c.c.rules_state).where(c.c.id.in_(chunk), c.c.rules_state.is_not(None))).all()
        )
        if not open_:
            continue
        for cid, state in _states(connection, sorted(open_)).items():
            if state != open_[cid]:
                connection.execute(update(c).where(c.c.id == cid).values(rules_state=state))


def _states(connection: Connection, ids: list[str]) -> dict[str, str | None]:
    v, o = table_of(VerdictRow), table_of(OverrideRow)
    latest: dict[tuple[str, str], tuple[bool, bool]] = {}
    query = (
        select(v.c.conversation_id, v.c.criterion, v.c.unscored, v.c.details)
        .where(v.c.conversation_id.in_(ids), v.c.source == RULES_SOURCE)
        .order_by(v.c.id)
    )
    for cid, criterion, unscored, details in connection.execute(query):
        latest[(cid, criterion)] = (bool(unscored), bool(isinstance(details, dict) and details.get("provisional")))
    labelled = set(
        connection.execute(
            select(o.c.conversation_id, o.c.criterion).where(o.c.conversation_id.in_(ids), o.c.source == RULES_SOURCE)
        ).all()
    )
    found: dict[str, set[str]] = {cid: set() for cid in ids}
    for key, (unscored, provisional) in latest.items():
        if key in labelled:
            continue  # a reviewer's word on it
        if unscored:
            found[key[0]].add("unscored")
        if provisional:
            found[key[0]].add("provisional")
    return {cid: "+".join(s for s in ("unscored", "provisional") if s in states) or None for cid, states in found.items()}
