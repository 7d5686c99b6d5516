"""A self-contained HTML page for `sage-desk compare`: what differs, metric deltas with intervals, flips."""

from __future__ import annotations

from html import escape

from sage_desk.core.export.html_report import CSS
from sage_desk.core.jsonsafe import Json, JsonObject

_VERDICT_COLOURS = {"REGRESSION": "#c62828", "worse": "#b26a00", "better": "#2e7d32", "within noise": "#52606d"}


def fmt(value: Json) -> str:
    """A figure as the compare page and table print it."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}" if value == int(value) else f"{value:.3f}"
    return str(value)


def delta_text(value: float | None) -> str:
    """A difference with its sign."""
    return "-" if value is None else f"{value:+.3f}"


def interval_text(interval: list[float] | None) -> str:
    """`[-0.125, -0.033]` -> '-0.125 .. -0.033'."""
    return "-" if not interval else f"{interval[0]:+.3f} .. {interval[1]:+.3f}"


def render_compare_html(data: JsonObject) -> str:
    """The whole page for `compare_runs`' dict."""
    a, b = escape(data["a"]["run"]), escape(data["b"]["run"])
    differences = "".join(f"<li>{escape(t)}</li>" for t in data["stamp_differences"]) or "<li>nothing: same inputs</li>"
    sections = "\n".join(_pair(p, data) for p in data["pairs"])
    gate = (
        "<p><b style='color:#c62828'>Regressions:</b> " + escape(", ".join(data["regressions"])) + "</p>"
        if data["regressions"]
        else "<p>No metric got worse beyond its interval and threshold.</p>"
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>SAGE Desk: {a} vs {b}</title>
<style>{CSS}</style>
</head>
<body><main>
<h1>Run {a} (before) vs run {b} (after)</h1>
<p class="lead">Differences are after - before over the cases both runs played, with a paired bootstrap
{int(data["confidence"] * 100)}% interval ({data["resamples"]} resamples of cases, seed {data["seed"]}).</p>
{gate}
<h2>What differs between the runs</h2>
<ul>{differences}</ul>
{sections}
</main></body>
</html>
"""


def _pair(pair: JsonObject, data: JsonObject) -> str:
    rows = "".join(
        f"<tr><td class='text'>{escape(m['metric'])}</td><td>{fmt(m['a'])}</td><td>{fmt(m['b'])}</td>"
        f"<td>{delta_text(m['delta'])}</td>"
        f"<td>{interval_text(m['interval'])}</td><td>{fmt(m['threshold'])}</td>"
        f"<td class='text' style='color:{_VERDICT_COLOURS.get(m['verdict'], '#1f2933')}'>{escape(m['verdict'])}</td></tr>"
        for m in pair["metrics"]
    )
    flips = "".join(
        f"<tr><td class='text'>{escape(f['case_id'])}</td><td class='text'>{escape(f['kind'])}"
        f"{(' (' + escape(', '.join(f['catastrophic'])) + ')') if f['catastrophic'] else ''}</td>"
        f"<td class='text'>{escape(f['bucket'])}</td><td>{escape(f['a_passed'])}</td><td>{escape(f['b_passed'])}</td>"
        f"<td class='text'>{escape(' '.join(f['a_conversations']))}</td><td class='text'>{escape(' '.join(f['b_conversations']))}</td></tr>"
        for f in pair["flips"]
    )
    rates = f"cases flipping across repeats: before {_pct(pair['flip_rate_a'])}, after {_pct(pair['flip_rate_b'])}"
    return f"""<h2>{escape(pair["agent_a"])} -> {escape(pair["agent_b"])} ({pair["cases"]} cases)</h2>
<p class="note">{rates}</p>
<div class="table-wrap"><table>
<tr><th class="text">metric</th><th>before</th><th>after</th><th>difference</th><th>interval</th><th>threshold</th><th class="text">verdict</th></tr>
{rows}</table></div>
<h2>Flipped cases ({len(pair["flips"])})</h2>
<p class="note">Open a conversation with <code>sage-desk show ID</code>, or both in Review's compare.</p>
<div class="table-wrap"><table>
<tr><th class="text">case</th><th class="text">flip</th><th class="text">bucket</th><th>before passed</th><th>after passed</th>
<th class="text">before conversations</th><th class="text">after conversations</th></tr>
{flips}</table></div>"""


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"
