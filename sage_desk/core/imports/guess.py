"""Which log format a file is in, from its name and its first line, for the import dialog's default.

A guess, never a decision: the reader of the chosen format still checks every line, and an
unreadable or ambiguous file gives None (the user picks).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

PEEK_BYTES = 64 * 1024
"""Read at most this much of a file to guess: a tau2 results file can be hundreds of megabytes."""


def _first_line(path: Path) -> str:
    with path.open("rb") as handle:
        head = handle.read(PEEK_BYTES).decode("utf-8", errors="replace")
    return next((line for line in head.splitlines() if line.strip()), "")


def guess_format(path: str | Path) -> str | None:
    """`openai`, `tau-bench`, `tau2` or `events` for a file that looks like one; None when it cannot tell."""
    path = Path(path)
    try:
        if not path.is_file():
            return None
        line = _first_line(path)
    except OSError:
        return None
    if line.lstrip("\ufeff \t").startswith("["):
        return "tau-bench"  # a JSON list: tau-bench's trajectories (one item per conversation)
    if '"simulations"' in line or (path.suffix.lower() == ".json" and line.strip() == "{"):
        return "tau2"  # tau2 writes one indented object; its first line is "{" alone
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return "tau2" if path.suffix.lower() == ".json" else None
    if not isinstance(record, dict):
        return None
    if isinstance(record.get("simulations"), list):
        return "tau2"
    if isinstance(record.get("events"), list):
        return "events"
    if isinstance(record.get("messages"), list):
        return "openai"
    return None


def guess_formats(paths: Sequence[str | Path]) -> str | None:
    """The one format every file guesses to; None when they differ or none can be told."""
    found = {guess_format(p) for p in paths}
    found.discard(None)
    return found.pop() if len(found) == 1 else None
