"""The store's error: a database that cannot be opened, or a request it cannot honour."""

from __future__ import annotations

from sage_desk.core.errors import SageError


class StoreError(SageError):
    """The run database could not do what was asked; the message says what to do about it."""
