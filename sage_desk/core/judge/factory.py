"""Judges from their names: `baseline:heuristic`, or any litellm model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sage_desk.core.errors import JudgeError


def make_judges(names: Sequence[str], api_base: str | None = None, **options: Any) -> list[Any]:
    """One judge per name; `none` is skipped."""
    judges: list[Any] = []
    for name in names:
        if name in ("", "none"):
            continue
        if name == "baseline:heuristic":
            from sage_desk.core.judge.heuristic import HeuristicJudge

            judges.append(HeuristicJudge())
        elif name.startswith("baseline:"):
            raise JudgeError(f"unknown baseline judge {name!r} (known: baseline:heuristic)")
        else:
            from sage_desk.core.judge.llm_judge import LlmJudge

            judges.append(LlmJudge(name, api_base=api_base, **options))
    return judges
