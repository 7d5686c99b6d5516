"""The store's error: a database that cannot be opened, or a request it cannot honour."""

from __future__ import annotations

from sage_desk.core.errors import SageError


class StoreError(SageError):
    """The run database could not do what was asked; the message says what to do about it."""


def plain_database_error(exc: BaseException) -> str | None:
    """One plain line for a database failure (no SQL, no parameters: those go to the log); None when
    `exc` is not one. Only looks when SQLAlchemy is already loaded (it is whenever a store was opened)."""
    import sys

    sa_exc = sys.modules.get("sqlalchemy.exc")
    if sa_exc is None or not isinstance(exc, sa_exc.SQLAlchemyError):
        return None
    import logging

    logging.getLogger("sage_desk.store").warning("database failure: %s", exc)  # the statement and its parameters
    orig = getattr(exc, "orig", None)
    reason = (str(orig if orig is not None else type(exc).__name__).strip().splitlines() or ["unknown"])[0][:200]
    text = reason.lower()
    if "disk is full" in text or "no space" in text:
        return f"the database's disk is full ({reason}); free some space, then finish with --resume if a run stopped"
    if "locked" in text or "busy" in text:
        return f"another process held the database's write lock too long ({reason}); try again when it is done"
    if "malformed" in text or "not a database" in text or "disk i/o" in text:
        return f"the database file is damaged or unreadable ({reason}); `sage-desk doctor` checks it"
    if "readonly" in text or "read-only" in text:
        return f"the database cannot be written ({reason}): it is read-only here"
    return f"the database failed: {reason}"
