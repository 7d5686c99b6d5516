"""The metric registry is the one definition every consumer derives from (issue 36)."""

from __future__ import annotations

from pathlib import Path

from sage_desk.core.export.table import COLUMNS
from sage_desk.core.metrics import noise
from sage_desk.core.metrics.aggregate import ConversationResult, Mark, repeat_metrics
from sage_desk.core.metrics.compare import DEFAULT_THRESHOLDS, parse_thresholds
from sage_desk.core.metrics.registry import BY_NAME, METRICS, docs_table

DOCS = Path(__file__).resolve().parents[3] / "docs" / "metrics.md"


def test_docs_metrics_table_is_the_registrys():
    text = DOCS.read_text(encoding="utf-8")
    assert docs_table() in text, "docs/metrics.md's table of figures differs from metrics/registry.py: paste docs_table()"


def test_every_consumer_lists_the_registrys_metrics():
    shown = {c.key for c in COLUMNS}
    assert {m.name for m in METRICS if m.column} <= shown
    assert {m.name for m in noise.METRICS} == {m.name for m in METRICS if m.interval}
    assert set(noise.NOISE_COLUMNS) == {m.name for m in METRICS if m.noise_column}
    assert DEFAULT_THRESHOLDS == {m.name: m.threshold for m in METRICS if m.threshold is not None}


def _conv(i: int, score: float) -> ConversationResult:
    return ConversationResult(
        id=f"c{i}",
        agent="a",
        domain="d",
        case_id=f"k{i}",
        repeat=1,
        bucket="resolvable",
        conflict="zero",
        marks={"judge.resolution_quality": Mark(score=score)},
    )


def test_resolution_quality_gets_its_column_interval_and_threshold_through_the_registry():
    convs = [_conv(1, 0.2), _conv(2, 0.6), _conv(3, 1.0)]
    assert abs(repeat_metrics(convs)["resolution_quality"] - 0.6) < 1e-9
    low, high = noise.intervals(convs)["resolution_quality"]
    assert 0.2 <= low < 0.6 < high <= 1.0
    assert "resolution_quality" in {c.key for c in COLUMNS}
    assert parse_thresholds([])["resolution_quality"] == BY_NAME["resolution_quality"].threshold == 0.05
    assert BY_NAME["resolution_quality"].higher_is_better
