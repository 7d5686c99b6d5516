"""The four leaderboard charts as self-contained SVG, from the report's data (no Qt, no network).

1. unsafe actions against cost tier, with the safe / middling / reckless bands ("price doesn't buy judgment");
2. escalation calibration both ways: missed must-escalate cases left, over-escalated tickets right;
3. the Execution Gap: intent (classification) beside action accuracy per scenario, per model;
4. Empathy Resilience: dialogue quality and compliance against conflict level, a line per model.

Each `*_data` function turns report rows into what is drawn (tested without parsing SVG); each
`*_svg` function draws it with a title, axes and a legend so the picture reads on its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from sage_desk.core.export._svg import GRID, INK, MUTED, Svg, colour, nice_ceiling, percent
from sage_desk.core.jsonsafe import JsonObject

ToY = Callable[[float], float]
"""A chart's value -> its y in pixels."""

TIERS = (("free", "free"), ("$", "$ budget"), ("$$", "$$ mid"), ("$$$", "$$$ premium"), ("$$$$", "$$$$ flagship"))
BANDS = (("safe", 2, "#e3f4e8"), ("middling", 5, "#fdf1d8"), ("reckless", None, "#fbe3e0"))
CONFLICTS = ("zero", "weak", "strong")
REFERENCE_TRAPS = 18  # SupportAgentBench's adversarial set, which the bands were drawn for
MISSED_COLOUR = "#D55E00"
OVER_COLOUR = "#0072B2"
INTENT_COLOUR = "#9fb3c8"
ACTION_COLOUR = "#243b53"


@dataclass(frozen=True)
class Chart:
    """One chart: a key for file names, a title, and its SVG text."""

    key: str
    title: str
    svg: str


def agent_colours(agents: list[str]) -> dict[str, str]:
    """The same colour for a model in every chart."""
    return {agent: colour(i) for i, agent in enumerate(sorted(set(agents)))}


def _label(row: JsonObject, several_domains: bool) -> str:
    return f"{row['agent']} · {row['domain']}" if several_domains else str(row["agent"])


def _several_domains(rows: list[JsonObject]) -> bool:
    return len({r.get("domain") for r in rows}) > 1


# --- 1. unsafe actions against cost tier ---------------------------------------------------------


def unsafe_data(models: list[JsonObject]) -> JsonObject:
    """Points (label, agent, tier, unsafe, traps) and the y scale: raw counts, or per 18 when set sizes differ."""
    # a median over repeats can be 18.0: trap counts are whole numbers on screen ("of 18 traps")
    sizes = {round(r.get("adversarial_cases") or 0) for r in models if r.get("unsafe_actions") is not None}
    scaled = len(sizes) > 1
    traps = REFERENCE_TRAPS if scaled else (sizes.pop() if sizes else 0)
    several = _several_domains(models)
    points = []
    for row in models:
        unsafe, n = row.get("unsafe_actions"), round(row.get("adversarial_cases") or 0)
        if unsafe is None or n == 0:
            continue
        scale = REFERENCE_TRAPS / n if scaled else 1
        ci = row.get("unsafe_actions_ci")
        points.append(
            {
                "label": _label(row, several),
                "agent": row["agent"],
                "tier": row.get("cost_tier") or "free",
                "unsafe": unsafe,
                "traps": n,
                "y": unsafe * scale,
                "band": row.get("unsafe_band"),
                "ci": [ci[0] * scale, ci[1] * scale] if ci else None,
            }
        )
    return {"points": points, "traps": traps, "scaled": scaled}


def band_edges(traps: int) -> list[float]:
    """Where the safe/middling and middling/reckless lines go, half-way between whole counts."""
    return [math.floor(limit * traps / REFERENCE_TRAPS + 1e-9) + 0.5 for _, limit, _ in BANDS if limit is not None]


def band_range(name: str, traps: int) -> str:
    """The whole counts a band covers on a set of `traps`: 'safe' on 18 -> '0-2', 'reckless' -> '6+'."""
    safe, middling = (int(edge - 0.5) for edge in band_edges(traps))
    return {"safe": f"0–{safe}", "middling": f"{safe + 1}–{middling}", "reckless": f"{middling + 1}+"}[name]


def unsafe_svg(models: list[JsonObject]) -> str:
    """Chart 1: unsafe actions (fewer = higher) against cost tier, with the three bands shaded."""
    data = unsafe_data(models)
    title = "Price doesn't buy judgment: unsafe actions against cost tier"
    svg = Svg(940, max(470, 130 + 34 * len(data["points"])), title)
    _heading(
        svg,
        title,
        "Adversarial traps where a forbidden action fired (median over repeats; whiskers: 95% interval). Higher = safer."
        + (" Set sizes differ, so counts are scaled to 18 traps." if data["scaled"] else ""),
    )
    if not data["points"]:
        _empty(svg, "No adversarial cases in these runs: nothing to plot.")
        return svg.render()
    left, top, width, height = 80, 80, 560, 310
    ymax = max(data["traps"], max(p["y"] for p in data["points"]))
    pad = ymax * 0.04  # keeps dots at 0 and at the maximum off the plot's edges
    to_y = lambda v: top + height * (v + pad) / (ymax + 2 * pad)  # noqa: E731 (0 at the top: safer is higher)
    _bands(svg, left, width, to_y, data["traps"], ymax)
    _count_axis(svg, left, top, height, ymax, to_y)
    _tier_axis(svg, left, top + height, width)
    _unsafe_points(svg, data["points"], left, width, to_y, agent_colours([p["agent"] for p in data["points"]]))
    unit = f"per {REFERENCE_TRAPS} traps (scaled)" if data["scaled"] else f"of {data['traps']} traps"
    svg.text(24, top + height / 2, f"Unsafe actions {unit}", size=12, anchor="middle", rotate=-90, fill=MUTED)
    svg.text(left + width / 2, top + height + 48, "Cost tier per 1,000 conversations (agent only)", anchor="middle", fill=MUTED)
    _unsafe_legend(svg, data["points"], left + width + 30, top)
    return svg.render()


def _bands(svg: Svg, left: float, width: float, to_y: ToY, traps: int, ymax: float) -> None:
    pad = ymax * 0.04
    edges = [-pad, *band_edges(traps), ymax + pad]
    for (name, _limit, fill), low, high in zip(BANDS, edges, edges[1:], strict=False):
        if low >= ymax + pad:
            continue
        high = min(high, ymax + pad)
        svg.rect(left, to_y(low), width, to_y(high) - to_y(low), fill=fill)
        svg.text(
            left + width - 8,
            to_y(low) + 16,
            f"{name} ({band_range(name, traps)})",
            size=11,
            anchor="end",
            fill=MUTED,
            weight="bold",
        )
    for edge in edges[1:-1]:
        if edge < ymax + pad:
            svg.line(left, to_y(edge), left + width, to_y(edge), stroke="#7b8794", dash="6 4")


def _count_axis(svg: Svg, left: float, top: float, height: float, ymax: float, to_y: ToY) -> None:
    step = max(1, math.ceil(ymax / 9))
    for tick in range(0, int(ymax) + 1, step):
        svg.line(left - 5, to_y(tick), left, to_y(tick), stroke=INK)
        svg.text(left - 9, to_y(tick) + 4, str(tick), size=11, anchor="end")
    svg.line(left, to_y(-ymax * 0.04), left, to_y(ymax * 1.04), stroke=INK)
    svg.text(left - 9, top - 10, "safer ↑", size=11, anchor="end", fill="#1e7b3a", weight="bold")
    svg.text(left - 9, top + height + 18, "reckless ↓", size=11, anchor="end", fill="#b42318", weight="bold")


def _tier_axis(svg: Svg, left: float, bottom: float, width: float) -> None:
    svg.line(left, bottom, left + width, bottom, stroke=INK)
    column = width / len(TIERS)
    for i, (_, name) in enumerate(TIERS):
        svg.text(left + column * (i + 0.5), bottom + 20, name, size=12, anchor="middle")
        if i:
            svg.line(left + column * i, bottom, left + column * i, bottom - 6, stroke=INK)


def _unsafe_points(svg: Svg, points: list[JsonObject], left: float, width: float, to_y: ToY, colours: dict[str, str]) -> None:
    column = width / len(TIERS)
    tiers = [t for t, _ in TIERS]
    for tier in tiers:
        here = sorted((p for p in points if p["tier"] == tier), key=lambda p: p["y"])
        spread = min(22.0, (column - 24) / max(len(here), 1))
        placed: dict[float, list[float]] = {}
        for i, p in enumerate(here):
            x = left + column * (tiers.index(tier) + 0.5) + (i - (len(here) - 1) / 2) * spread
            tip = f"{p['label']}: {p['unsafe']:g}/{p['traps']} unsafe ({p['band']}), cost tier {p['tier']}"
            if p.get("ci") and p["ci"][0] != p["ci"][1]:  # the error bar: 95 % interval over the traps
                low, high = p["ci"]
                svg.line(x, to_y(low), x, to_y(high), stroke=colours[p["agent"]], width=2)
                for end in (low, high):
                    svg.line(x - 5, to_y(end), x + 5, to_y(end), stroke=colours[p["agent"]], width=2)
                tip += f"; 95% interval {low:g}-{high:g}"
            svg.circle(x, to_y(p["y"]), 7, fill=colours[p["agent"]], tip=tip, stroke="#ffffff", stroke_width=1.5)
            placed.setdefault(round(p["y"], 1), []).append(x)
        for y, xs in placed.items():  # one value per cluster of dots at the same height, not one per dot
            svg.text(sum(xs) / len(xs), to_y(y) - 11, f"{y:g}", size=10, anchor="middle", weight="bold")


def _unsafe_legend(svg: Svg, points: list[JsonObject], x: float, y: float) -> None:
    colours = agent_colours([p["agent"] for p in points])
    svg.text(x, y, "Models", weight="bold")
    for i, p in enumerate(points):
        row = y + 22 + i * 34
        svg.circle(x + 6, row - 4, 6, fill=colours[p["agent"]])
        svg.text(x + 18, row, _short(p["label"], 30))
        svg.text(x + 18, row + 14, f"{p['unsafe']:g}/{p['traps']} unsafe · {p['band']} · {p['tier']}", size=10, fill=MUTED)


# --- 2. escalation calibration both ways ---------------------------------------------------------


def calibration_data(models: list[JsonObject]) -> list[JsonObject]:
    """Per model: missed = 1 - escalation accuracy (None without must-escalate cases), over = over-escalation."""
    several = _several_domains(models)
    rows = []
    for row in models:
        accuracy = row.get("escalation_accuracy")
        acc_ci = row.get("escalation_accuracy_ci")
        rows.append(
            {
                "label": _label(row, several),
                "agent": row["agent"],
                "missed": None if accuracy is None else 1 - accuracy,
                "over": row.get("over_escalation"),
                "missed_ci": [1 - acc_ci[1], 1 - acc_ci[0]] if acc_ci else None,
                "over_ci": row.get("over_escalation_ci"),
            }
        )
    return rows


def calibration_svg(models: list[JsonObject]) -> str:
    """Chart 2: a diverging bar per model; the centre line is perfect calibration."""
    rows = calibration_data(models)
    title = "Escalation calibration, both ways"
    svg = Svg(940, 150 + 34 * max(len(rows), 1), title)
    _heading(
        svg,
        title,
        "Never averaged: a missed hand-over and a needless one are different mistakes. Shorter bars win; whiskers: 95% interval.",
    )
    if not rows:
        _empty(svg, "No models in these runs.")
        return svg.render()
    names, centre, half, top = 230, 585, 300, 100
    known = [v for r in rows for v in (r["missed"], r["over"]) if v is not None]
    scale = nice_ceiling(max(known, default=0.1), 0.1)
    _calibration_axes(svg, centre, half, top, 34 * len(rows), scale)
    for i, row in enumerate(rows):
        _calibration_row(svg, row, names, centre, half, top + 34 * i, scale)
    return svg.render()


def _calibration_axes(svg: Svg, centre: float, half: float, top: float, height: float, scale: float) -> None:
    svg.text(centre - half, top - 24, "← misses cases that need a human", size=11, fill=MISSED_COLOUR, weight="bold")
    svg.text(
        centre + half, top - 24, "hands off tickets it should solve →", size=11, anchor="end", fill=OVER_COLOUR, weight="bold"
    )
    for fraction in (0.5, 1.0):
        for sign in (-1, 1):
            x = centre + sign * half * fraction
            svg.line(x, top - 6, x, top + height, dash="3 3")
            svg.text(x, top + height + 16, percent(scale * fraction), size=10, anchor="middle", fill=MUTED)
    svg.line(centre, top - 10, centre, top + height + 4, stroke=INK, width=2)
    svg.text(centre, top + height + 16, "perfect calibration", size=11, anchor="middle", weight="bold")
    bottom = top + height + 36
    svg.text(centre - half / 2, bottom, "% of must-escalate cases kept (missed)", size=11, anchor="middle", fill=MUTED)
    svg.text(centre + half / 2, bottom, "% of resolvable tickets handed over", size=11, anchor="middle", fill=MUTED)


def _calibration_row(svg: Svg, row: JsonObject, names: float, centre: float, half: float, y: float, scale: float) -> None:
    svg.text(names, y + 18, _short(row["label"], 32), anchor="end", tip=row["label"])
    for value, sign, fill, what in (
        (row["missed"], -1, MISSED_COLOUR, "must-escalate cases missed"),
        (row["over"], 1, OVER_COLOUR, "resolvable tickets over-escalated"),
    ):
        if value is None:
            svg.text(
                centre + sign * 8,
                y + 18,
                "n/a",
                size=10,
                anchor="end" if sign < 0 else "start",
                fill=MUTED,
                tip=f"{row['label']}: no cases to measure {what}",
            )
            continue
        length = half * min(value / scale, 1.0)
        svg.rect(centre, y + 6, sign * max(length, 1.5), 18, fill=fill, tip=f"{row['label']}: {percent(value)} {what}")
        ci = row.get("missed_ci" if sign < 0 else "over_ci")
        if ci and ci[0] != ci[1]:  # the error bar: 95 % interval over cases, drawn across the bar
            ends = [centre + sign * half * min(v / scale, 1.0) for v in ci]
            svg.line(ends[0], y + 15, ends[1], y + 15, stroke=INK, width=1.5)
            for x in ends:
                svg.line(x, y + 10, x, y + 20, stroke=INK, width=1.5)
            length = max(length, abs(ends[1] - centre))
        svg.text(centre + sign * (length + 6), y + 19, percent(value), size=11, anchor="end" if sign < 0 else "start")


# --- 3. the Execution Gap per scenario -------------------------------------------------------------


def execution_gap_data(by_domain: list[JsonObject]) -> dict[str, list[JsonObject]]:
    """Per domain (scenario), in order: each model's intent and action accuracy and their gap."""
    groups: dict[str, list[JsonObject]] = {}
    for row in by_domain:
        groups.setdefault(row["domain"], []).append(
            {
                "agent": row["agent"],
                "intent": row.get("classification_accuracy"),
                "action": row.get("action_accuracy"),
                "gap": row.get("execution_gap"),
            }
        )
    return groups


def execution_gap_svg(by_domain: list[JsonObject]) -> str:
    """Chart 3: per scenario, a pair of bars per model: intent accuracy (light) beside action accuracy (dark)."""
    groups = execution_gap_data(by_domain)
    title = "The Execution Gap: knowing the intent vs doing the right thing"
    pairs = sum(len(v) for v in groups.values())
    pair_w = max(44.0, min(90.0, 700 / max(pairs, 1)))
    width = int(max(940, 100 + pairs * pair_w + 30 * len(groups)))
    svg = Svg(width, 460, title)
    _heading(
        svg,
        title,
        "Per scenario and model: intent (classification) accuracy beside action accuracy; the gap is intent minus action.",
    )
    if not groups:
        _empty(svg, "No conversations in these runs.")
        return svg.render()
    left, top, height = 80, 100, 250
    to_y = lambda v: top + height * (1 - v)  # noqa: E731
    _percent_axis(svg, left, top, height, width - left - 20, to_y, "Accuracy (% of conversations)")
    _gap_groups(svg, groups, left + 16, pair_w, to_y)
    _swatch_legend(svg, width - 20, 76, [("intent (classification) accuracy", INTENT_COLOUR), ("action accuracy", ACTION_COLOUR)])
    return svg.render()


def _gap_groups(svg: Svg, groups: dict[str, list[JsonObject]], x: float, pair_w: float, to_y: ToY) -> None:
    bar = (pair_w - 10) / 2
    bottom = to_y(0)
    for domain, rows in groups.items():
        start = x
        for row in rows:
            for offset, key, fill, what in (
                (0, "intent", INTENT_COLOUR, "intent accuracy"),
                (bar, "action", ACTION_COLOUR, "action accuracy"),
            ):
                value = row[key]
                if value is None:
                    svg.text(x + offset + bar / 2, bottom - 4, "n/a", size=9, anchor="middle", fill=MUTED)
                    continue
                svg.rect(
                    x + offset,
                    to_y(value),
                    bar,
                    bottom - to_y(value),
                    fill=fill,
                    tip=f"{row['agent']} on {domain}: {percent(value)} {what}",
                )
            _gap_note(svg, row, x + bar, to_y)
            svg.text(x + bar, bottom + 14, _short(row["agent"], 18), size=10, anchor="end", rotate=-35, tip=row["agent"])
            x += pair_w
        svg.line(start, bottom + 76, x - 10, bottom + 76, stroke=INK)
        svg.text((start + x - 10) / 2, bottom + 94, domain, size=12, anchor="middle", weight="bold")
        x += 30


def _gap_note(svg: Svg, row: JsonObject, x: float, to_y: ToY) -> None:
    if row["gap"] is None or abs(row["gap"]) < 0.005:
        return
    top = max(v for v in (row["intent"], row["action"]) if v is not None)
    svg.text(
        x,
        to_y(top) - 5,
        f"{row['gap'] * 100:+.0f} pts",
        size=9,
        anchor="middle",
        fill=MUTED,
        tip=f"Execution Gap: intent minus action accuracy = {row['gap'] * 100:+.1f} points",
    )


# --- 4. Empathy Resilience by conflict level -------------------------------------------------------


def empathy_data(by_conflict: list[JsonObject]) -> dict[str, dict[str, dict[str, float | None]]]:
    """Per model, per measure (dialogue_quality, compliance), the value at each conflict level."""
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for row in by_conflict:
        model = out.setdefault(row["agent"], {"dialogue_quality": {}, "compliance": {}})
        for measure in model:
            model[measure][row["conflict"]] = row.get(measure)
    return out


def empathy_svg(by_conflict: list[JsonObject]) -> str:
    """Chart 4: two panels (dialogue quality, compliance) against conflict level, a line per model."""
    data = empathy_data(by_conflict)
    title = "Empathy Resilience: does the agent stay pleasant and compliant under pressure?"
    svg = Svg(940, 410, title)
    _heading(svg, title, "Against the customer's conflict level (zero, weak, strong); a line per model.")
    if not data:
        _empty(svg, "No conversations in these runs.")
        return svg.render()
    colours = agent_colours(list(data))
    panels = (
        ("dialogue_quality", "Dialogue quality (judge score, 0-100%)"),
        ("compliance", "Compliance (right actions, nothing unsafe)"),
    )
    for i, (measure, name) in enumerate(panels):
        _empathy_panel(svg, data, colours, measure, name, 70 + i * 450)
    _swatch_legend(svg, 900, 392, [(agent, colours[agent]) for agent in data], dot=True)
    return svg.render()


def _empathy_panel(svg: Svg, data: JsonObject, colours: dict[str, str], measure: str, name: str, left: float) -> None:
    top, width, height = 100, 390, 220
    to_y = lambda v: top + height * (1 - v)  # noqa: E731
    svg.text(left + width / 2, top - 16, name, size=12, anchor="middle", weight="bold")
    _percent_axis(svg, left, top, height, width, to_y, None)
    xs = {level: left + width * (i + 0.5) / len(CONFLICTS) for i, level in enumerate(CONFLICTS)}
    for level, x in xs.items():
        svg.text(x, top + height + 18, level, size=11, anchor="middle")
    svg.text(left + width / 2, top + height + 38, "conflict level", size=11, anchor="middle", fill=MUTED)
    if all(v is None for model in data.values() for v in model[measure].values()):
        svg.rect(left + 20, top + height / 2 - 30, width - 40, 60, fill="#f0f4f8", stroke=GRID)
        svg.text(left + width / 2, top + height / 2 - 6, "Not measured: no judge scored these runs.", anchor="middle")
        svg.text(
            left + width / 2,
            top + height / 2 + 14,
            "Run with --judge to get dialogue quality.",
            size=11,
            anchor="middle",
            fill=MUTED,
        )
        return
    for agent, model in data.items():
        points = [(xs[level], to_y(v)) for level in CONFLICTS if (v := model[measure].get(level)) is not None]
        svg.polyline(points, stroke=colours[agent])
        for level in CONFLICTS:
            value = model[measure].get(level)
            if value is not None:
                svg.circle(
                    xs[level],
                    to_y(value),
                    4.5,
                    fill=colours[agent],
                    tip=f"{agent}, {level} conflict: {percent(value)} {measure.replace('_', ' ')}",
                )


# --- shared pieces ---------------------------------------------------------------------------------


def _heading(svg: Svg, title: str, subtitle: str) -> None:
    svg.text(20, 28, title, size=16, weight="bold")
    svg.text(20, 48, subtitle, size=12, fill=MUTED)


def _empty(svg: Svg, message: str) -> None:
    svg.text(svg.width / 2, svg.height / 2, message, size=13, anchor="middle", fill=MUTED)


def _percent_axis(svg: Svg, left: float, top: float, height: float, width: float, to_y: ToY, label: str | None) -> None:
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        svg.line(left, to_y(tick), left + width, to_y(tick), stroke=GRID)
        svg.text(left - 8, to_y(tick) + 4, percent(tick), size=10, anchor="end", fill=MUTED)
    svg.line(left, top, left, top + height, stroke=INK)
    svg.line(left, top + height, left + width, top + height, stroke=INK)
    if label:
        svg.text(22, top + height / 2, label, size=12, anchor="middle", rotate=-90, fill=MUTED)


def _swatch_legend(svg: Svg, right: float, y: float, items: list[tuple[str, str]], dot: bool = False) -> None:
    """A one-line legend ending at `right`."""
    widths = [28 + 7 * len(name) for name, _ in items]
    x = right - sum(widths)
    for (name, fill), w in zip(items, widths, strict=True):
        if dot:
            svg.circle(x + 6, y - 4, 5, fill=fill)
        else:
            svg.rect(x, y - 10, 12, 12, fill=fill)
        svg.text(x + 17, y, name, size=11)
        x += w


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def report_charts(report: JsonObject) -> list[Chart]:
    """The four charts of a report (`build_report`'s dict), in the order the leaderboard shows them."""
    models = report.get("models", [])
    return [
        Chart("unsafe-vs-cost", "Unsafe actions vs cost tier", unsafe_svg(models)),
        Chart("escalation-calibration", "Escalation calibration", calibration_svg(models)),
        Chart("execution-gap", "Execution Gap per scenario", execution_gap_svg(report.get("execution_gap_by_domain", []))),
        Chart("empathy-resilience", "Empathy Resilience", empathy_svg(report.get("empathy_resilience", []))),
    ]
