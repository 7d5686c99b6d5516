"""Alembic environment of the run database; `sage_desk.core.store.migrate` drives it in code."""
