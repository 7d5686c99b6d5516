"""The SOP graph each run was played with (issue 35), so a later edit never changes how an old run reads.

A run created by the engine stores the graph it loaded, as text (`sop.io.dumps_graph`, node
positions included), in `sop_snapshots` under its SHA-256; `runs.sop_snapshot` names it. Runs of an
unchanged graph share one row. Review draws a run on this graph and says when today's differs.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from sage_desk.core.store.schema import RunRow, SopSnapshotRow


def snapshot_hash(text: str) -> str:
    """The key a graph text is kept under."""
    return hashlib.sha256(text.encode()).hexdigest()


def keep(session: Session, run_id: str, domain: str, text: str) -> str:
    """Keep `text` (once) and point the run at it; returns its hash. Safe when another process keeps the same text."""
    key = snapshot_hash(text)
    dialect = session.get_bind().dialect.name
    values = {"hash": key, "domain": domain, "graph": text}
    if dialect in ("sqlite", "postgresql"):
        module = sqlite if dialect == "sqlite" else postgresql
        session.execute(module.insert(SopSnapshotRow).values(values).on_conflict_do_nothing(index_elements=["hash"]))
    elif session.get(SopSnapshotRow, key) is None:
        session.add(SopSnapshotRow(**values))
        session.flush()
    run = session.get(RunRow, run_id)
    if run is not None:
        run.sop_snapshot = key
    return key


def read(session: Session, run_id: str) -> tuple[str, str] | None:
    """(hash, graph text) of the run's snapshot, or None when the run has none (made before 0012, imported)."""
    row = session.execute(
        select(SopSnapshotRow.hash, SopSnapshotRow.graph)
        .join(RunRow, RunRow.sop_snapshot == SopSnapshotRow.hash)
        .where(RunRow.id == run_id)
    ).first()
    return (row[0], row[1]) if row is not None else None
