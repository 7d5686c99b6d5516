"""Helpers shared by the sub-commands: problem printing, exit codes and the width to print at."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable

from sage_desk.core.errors import Problem, SageError

OK, PROBLEMS, USAGE = 0, 1, 2
"""0 done; 1 problems found, a run failed, or an input file that is missing or cannot be read; 2 a usage error."""
NARROW = 100
"""The width tables fit when neither `COLUMNS` nor a terminal says otherwise (a pipe, a file, CI logs)."""


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


def fail_error(exc: SageError) -> int:
    """`fail` with a SageError's message: a name nobody registered (an agent, judge, customer or
    tactic) is a usage error, exit 2; anything else exit 1."""
    from sage_desk.core.registry import UnknownNameError

    return fail(str(exc), USAGE if isinstance(exc, UnknownNameError) else PROBLEMS)


def output_width(default: int = NARROW) -> int:
    """The width to fit: `COLUMNS` when set, else the terminal's when printing to one, else `default`."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) >= 40:
        return int(columns)
    if sys.stdout.isatty():
        return max(40, shutil.get_terminal_size((default, 24)).columns)
    return default
