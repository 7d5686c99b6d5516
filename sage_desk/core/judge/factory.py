"""Judges from their names: a registered offline judge (`baseline:heuristic`), or any litellm model.

A judge is anything with a verdict `source` and an async `judge(case, bundle, events)` returning
verdicts; offline judges register a factory under their `baseline:` name, so a name nobody
registered is refused, listing what exists, before a run is created.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sage_desk.core.errors import JudgeError
from sage_desk.core.registry import Registry, UnknownNameError

if TYPE_CHECKING:
    from sage_desk.core.cases.model import Case
    from sage_desk.core.domain.loader import DomainBundle
    from sage_desk.core.events import Event
    from sage_desk.core.rules.verdict import Verdict


class Judge(Protocol):
    """Scores one conversation; its verdicts are stored under `source`."""

    source: str

    async def judge(self, case: Case, bundle: DomainBundle, events: Sequence[Event]) -> list[Verdict]: ...


class UnknownJudgeError(UnknownNameError, JudgeError):
    """A `baseline:` judge name nobody registered."""


def _shipped_judges() -> None:
    import sage_desk.core.judge.heuristic  # noqa: F401  (registers baseline:heuristic)


BASELINE_JUDGES: Registry[Callable[[], Judge]] = Registry("baseline judge", load=_shipped_judges, error=UnknownJudgeError)
NO_JUDGE = ("", "none")


def make_judge(name: str, api_base: str | None = None, **options: Any) -> Judge:
    """The judge a name asks for: a registered `baseline:` judge, else an LLM judge of that model."""
    if name.startswith("baseline:"):
        return BASELINE_JUDGES.get(name)()
    from sage_desk.core.judge.llm_judge import LlmJudge

    return LlmJudge(name, api_base=api_base, **options)


def make_judges(names: Sequence[str], api_base: str | None = None, **options: Any) -> list[Judge]:
    """One judge per name; `none` is skipped."""
    return [make_judge(name, api_base, **options) for name in names if name not in NO_JUDGE]


def judge_source(name: str) -> str:
    """The verdict source a judge name stores under, without building an LLM judge."""
    return BASELINE_JUDGES.get(name)().source if name.startswith("baseline:") else f"judge:{name}"


def check_judge_names(names: Sequence[str]) -> None:
    """Refuse an unknown `baseline:` judge (UnknownJudgeError) before anything is created."""
    for name in names:
        if name.startswith("baseline:"):
            BASELINE_JUDGES.get(name)
