"""The run database: SQLite by default, any SQLAlchemy URL with `--db`.

`Store` is the one entry point; it implements the engine's `Recorder` and hands out pydantic
records. Opening a store migrates its database to the current schema (alembic, in code).
"""

from sage_desk.core.store.errors import StoreError
from sage_desk.core.store.records import (
    ConversationRecord,
    ConversationStatus,
    JudgeExample,
    OverrideRecord,
    RunRecord,
    RunStatus,
    StoredVerdict,
)
from sage_desk.core.store.store import Store, new_run_id, scrub_config

__all__ = [
    "ConversationRecord",
    "ConversationStatus",
    "JudgeExample",
    "OverrideRecord",
    "RunRecord",
    "RunStatus",
    "Store",
    "StoreError",
    "StoredVerdict",
    "new_run_id",
    "scrub_config",
]
