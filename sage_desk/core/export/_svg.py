"""A tiny SVG writer for the report charts: shapes and text appended to a list, escaped once."""

from __future__ import annotations

import math
from html import escape

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
INK = "#1f2933"
MUTED = "#52606d"
GRID = "#d9e2ec"
# Okabe-Ito: distinguishable with the common colour-vision deficiencies (yellow left out: too pale on white)
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C6D31")


def colour(index: int) -> str:
    """The palette colour of the index-th series (cycles)."""
    return PALETTE[index % len(PALETTE)]


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


class Svg:
    """One SVG picture, built shape by shape."""

    def __init__(self, width: int, height: int, title: str):
        self.width = width
        self.height = height
        self.title = title
        self.parts: list[str] = []

    def add(self, tag: str, text: str | None = None, **attrs: object) -> None:
        """Append an element; attribute names use `_` for `-` (`font_size` -> `font-size`)."""
        rendered = " ".join(f'{k.rstrip("_").replace("_", "-")}="{_attr(v)}"' for k, v in attrs.items() if v is not None)
        body = f">{escape(text)}</{tag}>" if text is not None else "/>"
        self.parts.append(f"<{tag} {rendered}{body}")

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 12,
        anchor: str = "start",
        fill: str = INK,
        weight: str | None = None,
        rotate: float | None = None,
        tip: str | None = None,
    ) -> None:
        """A line of text; `rotate` turns it about (x, y); `tip` is a hover title."""
        transform = f"rotate({_num(rotate)} {_num(x)} {_num(y)})" if rotate else None
        attrs = dict(x=x, y=y, font_size=size, text_anchor=anchor, fill=fill, font_weight=weight, transform=transform)
        if tip:
            rendered = " ".join(f'{k.replace("_", "-")}="{_attr(v)}"' for k, v in attrs.items() if v is not None)
            self.parts.append(f"<text {rendered}><title>{escape(tip)}</title>{escape(text)}</text>")
        else:
            self.add("text", text, **attrs)

    def line(
        self, x1: float, y1: float, x2: float, y2: float, stroke: str = GRID, width: float = 1, dash: str | None = None
    ) -> None:
        """A straight line."""
        self.add("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, stroke_width=width, stroke_dasharray=dash)

    def rect(self, x: float, y: float, w: float, h: float, fill: str, tip: str | None = None, **attrs: object) -> None:
        """A rectangle (negative sizes are flipped); `tip` is a hover title."""
        x, w = (x + w, -w) if w < 0 else (x, w)
        y, h = (y + h, -h) if h < 0 else (y, h)
        self._shape("rect", tip, x=x, y=y, width=w, height=h, fill=fill, **attrs)

    def circle(self, cx: float, cy: float, r: float, fill: str, tip: str | None = None, **attrs: object) -> None:
        """A dot; `tip` is a hover title."""
        self._shape("circle", tip, cx=cx, cy=cy, r=r, fill=fill, **attrs)

    def polyline(self, points: list[tuple[float, float]], stroke: str, width: float = 2.5) -> None:
        """An open line through the points."""
        self.add(
            "polyline",
            points=" ".join(f"{_num(x)},{_num(y)}" for x, y in points),
            fill="none",
            stroke=stroke,
            stroke_width=width,
            stroke_linejoin="round",
        )

    def _shape(self, tag: str, tip: str | None, **attrs: object) -> None:
        if not tip:
            self.add(tag, None, **attrs)
            return
        rendered = " ".join(f'{k.replace("_", "-")}="{_attr(v)}"' for k, v in attrs.items() if v is not None)
        self.parts.append(f"<{tag} {rendered}><title>{escape(tip)}</title></{tag}>")

    def render(self) -> str:
        """The whole picture as an SVG document (no XML declaration, so it also inlines in HTML)."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" role="img" aria-label="{escape(self.title)}" '
            f'font-family="{FONT}">'
        )
        background = f'<rect x="0" y="0" width="{self.width}" height="{self.height}" fill="#ffffff"/>'
        return "\n".join([head, f"<title>{escape(self.title)}</title>", background, *self.parts, "</svg>"])


def _attr(value: object) -> str:
    if isinstance(value, float):
        return _num(value)
    return escape(str(value), quote=True)


def nice_ceiling(value: float, minimum: float) -> float:
    """The smallest 1/2/2.5/5 x 10^k at or above `value` (and at least `minimum`), for axis ends."""
    value = max(value, minimum)
    power: float = 10 ** math.floor(math.log10(value))  # an int for k >= 0, as before
    return next(step * power for step in (1, 2, 2.5, 5, 10) if step * power >= value - 1e-12)


def percent(value: float | None) -> str:
    """0.125 -> '12.5%', None -> 'n/a'."""
    if value is None:
        return "n/a"
    text = f"{value * 100:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"
