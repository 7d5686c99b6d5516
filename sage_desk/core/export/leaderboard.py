"""The report of runs as one typed model: `sage-desk report` and the Leaderboard build it here.

They used to build it separately (the CLI over the store, the Leaderboard over loaded results
with domains pooled, then un-pooled by the screen) and drifted; both now call `build_report`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.metrics.aggregate import ConversationResult, by_conflict, by_domain, model_metrics
from sage_desk.core.metrics.noise import annotate
from sage_desk.core.metrics.ranking import order_description, ranked
from sage_desk.core.metrics.rows import ModelRow

_SAGE_KEYS = ("sage_score", "sage_score_range")


class Report(BaseModel):
    """Per-model metrics of one or more runs, with the chart views; `report --format json` is its dump."""

    run: str | list[str] | None = None
    """The run id, the run ids of several runs, or None for results not read from named runs."""
    stamp: JsonObject | None = None
    """The run's stamp (versions, models, seeds); for several runs, one per run id."""
    stamp_differences: dict[str, list[str]] | None = None
    """Several runs: what differs between each run's stamp and the first's."""
    order: JsonObject = Field(default_factory=order_description)
    """How `models` is ordered (no composite score)."""
    unjudged: dict[str, int] = Field(default_factory=dict)
    """Per run, finished conversations still missing verdicts (left out of what they lack)."""
    models: list[ModelRow] = Field(default_factory=list)
    """One metrics row per model and domain, ranked, with intervals, flip rates and within-noise marks."""
    execution_gap_by_domain: list[JsonObject] = Field(default_factory=list)
    empathy_resilience: list[JsonObject] = Field(default_factory=list)

    def as_json(self) -> JsonObject:
        """The JSON form: every field given, in declaration order (`stamp` null for a run without one)."""
        return self.model_dump(exclude_unset=True)


def build_report(
    results: list[ConversationResult], run: str | list[str] | None = None, sage_view: bool = False, **extra: Any
) -> Report:
    """The report over `results`; `extra` adds the store's fields (stamp, stamp_differences, unjudged)."""
    models = ranked(annotate(model_metrics(results, sage=sage_view), results))
    if not sage_view:
        models = [ModelRow((k, v) for k, v in row.items() if k not in _SAGE_KEYS) for row in models]
    return Report(
        run=run,
        order=order_description(),
        **extra,
        models=models,
        execution_gap_by_domain=by_domain(results),
        empathy_resilience=by_conflict(results),
    )


def leaderboard_report(results: list[ConversationResult], domain: str | None = None) -> JsonObject:
    """The Leaderboard's report of `domain` (None: every domain, one row per model and domain)."""
    chosen = [r for r in results if domain is None or r.domain == domain]
    return build_report(chosen, sage_view=True).as_json()
