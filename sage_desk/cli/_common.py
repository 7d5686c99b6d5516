"""Helpers shared by the sub-commands: problem printing and exit codes."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from sage_desk.core.errors import Problem

OK, PROBLEMS, USAGE = 0, 1, 2


def print_problems(problems: Iterable[Problem]) -> int:
    """Print problems as FILE:LINE:COL: message on stdout; return how many."""
    count = 0
    for problem in problems:
        print(problem)
        count += 1
    return count


def fail(message: str, code: int = PROBLEMS) -> int:
    """Print an error for the user (no traceback) and return the exit code."""
    print(f"sage-desk: {message}", file=sys.stderr)
    return code
