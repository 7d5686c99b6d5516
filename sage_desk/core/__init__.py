"""Pure-Python core of SAGE Desk. Nothing here imports Qt (checked by import-linter)."""
