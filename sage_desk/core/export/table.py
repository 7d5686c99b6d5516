"""The leaderboard table as plain data: its columns, cell text, spreads and sort orders (no composite)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sage_desk.core.domain.unsafe import UnsafeKind, kinds_for
from sage_desk.core.jsonsafe import Json, JsonObject
from sage_desk.core.metrics.ranking import ORDER_TEXT, RankKey, rank_key, ranked
from sage_desk.core.metrics.registry import BY_NAME, METRICS, Metric


@dataclass(frozen=True)
class Column:
    """One metric column: the row key, a short header and what it means.

    The Leaderboard, the HTML report and `sage-desk report` all read this one list; `short` is the
    terminal table's header, and columns with `terminal=False` are printed under that table instead
    (per-kind catastrophic counts and pass^k, which would not fit beside the rest).
    """

    key: str
    header: str
    help: str
    kind: str = "rate"  # rate (0-1 shown as %), count, number, money, text
    short: str = ""  # the terminal table's header; the header in lower case when empty
    terminal: bool = True

    @property
    def terminal_header(self) -> str:
        return self.short or self.header.lower()


def _of_metric(metric: Metric) -> Column:
    return Column(metric.name, metric.header, metric.help, metric.kind, short=metric.short, terminal=metric.terminal)


def _metric_columns() -> list[Column]:
    """The registry's metric columns (metrics/registry.py), pass^k before the cost (it is no registry metric)."""
    found = [_of_metric(m) for m in METRICS if m.column]
    at = next((i for i, c in enumerate(found) if c.key == "cost_per_1k_usd"), len(found))
    pass_k = Column(
        "pass_k",
        "pass^k",
        "Chance that all k repeats of a case succeed, for k = the run's repeats (tau-bench's estimator); hover for every k",
        terminal=False,
    )
    return [*found[:at], pass_k, *found[at:]]


COLUMNS = (
    Column("agent", "Model", "The agent under test", "text", short="agent"),
    Column("domain", "Domain", "The scenario (SOP domain) it ran", "text"),
    Column("conversations", "Convs", "Conversations over all repeats", "count"),
    Column(
        "errored",
        "Errored",
        "Conversations a provider or harness error ended: counted here, left out of every rate (a resume plays them again)",
        "count",
        short="err",
    ),
    *_metric_columns(),
    Column(
        "cost_tier",
        "Tier",
        "$ budget, $$ mid, $$$ premium, $$$$ flagship; free when it spent nothing "
        "(a model without a known price shows as unpriced)",
        "text",
    ),
)
SAGE_COLUMN = _of_metric(BY_NAME["sage_score"])
BAND_COLOURS = {"safe": "#1e7b3a", "middling": "#b7791f", "reckless": "#b42318"}
BAND_FILLS = {"safe": "#e3f4e8", "middling": "#fdf1d8", "reckless": "#fbe3e0"}


def report_kinds(rows: Sequence[JsonObject]) -> tuple[UnsafeKind, ...]:
    """The unsafe-act kinds of a report's rows: their domains' kinds (core/domain/unsafe.py), in order."""
    return kinds_for(
        {str(r.get("domain")) for r in rows}, (f"catastrophic.{k}" for r in rows for k in r.get("catastrophic") or {})
    )


def catastrophic_headers(rows: Sequence[JsonObject]) -> dict[str, str]:
    """Kind -> column header, for the kinds of a report's rows."""
    return {k.name: k.header for k in report_kinds(rows)}


def columns(sage_view: bool = False, rows: Sequence[JsonObject] | None = None) -> list[Column]:
    """The table's columns; SAGE's weighted score only as a labelled extra in the sage view. Given a
    report's `rows`, one catastrophic column per kind of their domains (else the default kinds)."""
    chosen = list(COLUMNS)
    if rows is not None:
        kinds = [Column(k.criterion, k.header, k.help, "count", terminal=False) for k in report_kinds(rows)]
        at = next(i for i, c in enumerate(chosen) if c.key.startswith("catastrophic."))
        chosen = [c for c in chosen if not c.key.startswith("catastrophic.")]
        chosen[at:at] = kinds
    return [*chosen, SAGE_COLUMN] if sage_view else chosen


def column_value(column: Column, row: JsonObject) -> Json:
    """A cell's value: `catastrophic.<kind>` reads the per-kind counts, `pass_k` pass^k at the largest k."""
    if column.key.startswith("catastrophic."):
        return (row.get("catastrophic") or {}).get(column.key.split(".", 1)[1])
    if column.key == "pass_k":
        by_k = row.get("pass_k") or {}
        return by_k[max(by_k, key=_k_of)] if by_k else None
    if column.key == "cost_tier" and row.get("cost_tier") == "free" and _unpriced(row):
        return "unpriced"
    return row.get(column.key)


def _k_of(name: str) -> int:
    return int(name.rsplit("^", 1)[-1]) if name.rsplit("^", 1)[-1].isdigit() else 0


def _unpriced(row: JsonObject) -> bool:
    # it spent nothing, but it used tokens: nobody knows its price (a local or unknown model), it is not free
    return bool(row.get("tokens_per_1k")) and not row.get("cost_per_1k_usd")


def cell_text(column: Column, row: JsonObject) -> str:
    """What a cell shows: rates as %, unsafe as `n/of`, counts without a trailing .0, missing values as an en dash."""
    value = column_value(column, row)
    if value is None:
        return "–"
    if column.key == "unsafe_actions":
        if not row.get("adversarial_cases"):  # no traps (an imported run): the kinds' counts say what fired
            return "–"
        return f"{value:g}/{row.get('adversarial_cases') or 0:g}"
    if column.key == "pass_k":
        k = max(row["pass_k"], key=_k_of).removeprefix("pass^")
        return f"{value * 100:.1f}% (k={k})"
    return _format(column.kind, value)


def _format(kind: str, value: Json) -> str:
    if kind == "rate":
        return f"{value * 100:.1f}%"
    if kind == "count":
        return f"{value:g}"
    if kind == "number":
        return f"{value:.1f}"
    if kind == "money":
        return f"${value:,.2f}"
    return str(value)


def spread_bounds(column: Column, row: JsonObject) -> tuple[str, str] | None:
    """The min and max over repeats as cell text, or None when there is no spread."""
    spread = row.get(f"{column.key}_range")
    if not spread or column.kind == "text" or spread[0] == spread[1]:
        return None
    low, high = spread
    if column.key == "unsafe_actions":
        return f"{low:g}", f"{high:g}"
    return _format(column.kind, low), _format(column.kind, high)


def spread_text(column: Column, row: JsonObject) -> str | None:
    """'Header: median x, min a, max b over N repeats', or None when every repeat agreed."""
    bounds = spread_bounds(column, row)
    if bounds is None:
        return None
    over = f" over {row['repeats']} repeats" if row.get("repeats") else " over repeats"
    return f"{column.header}: median {cell_text(column, row)}, min {bounds[0]}, max {bounds[1]}{over}"


def _missing_last(value: Json, descending: bool = False) -> tuple[int, Json]:
    if value is None:
        return (1, 0)
    if isinstance(value, int | float):
        return (0, -value if descending else value)
    return (0, str(value).lower())


def default_sort_key(row: JsonObject) -> RankKey:
    """The default order, defined once in core (metrics/ranking.py): see `ORDER_TEXT`."""
    return rank_key(row)


def default_sorted(rows: list[JsonObject]) -> list[JsonObject]:
    """Rows in the leaderboard's default order."""
    return ranked(rows)


def sort_rows(rows: list[JsonObject], key: str, descending: bool = False) -> list[JsonObject]:
    """Rows by one column (missing values last either way), ties kept in the default order."""
    ordered = default_sorted(rows)
    present = [r for r in ordered if r.get(key) is not None]
    missing = [r for r in ordered if r.get(key) is None]
    present.sort(key=lambda r: _missing_last(r.get(key))[1], reverse=descending)
    return present + missing


__all__ = [
    "COLUMNS",
    "ORDER_TEXT",
    "cell_text",
    "column_value",
    "columns",
    "default_sort_key",
    "default_sorted",
    "sort_rows",
    "spread_text",
]
