"""The prose side of text->graph drafting: splitting a long SOP into sections, and finding spans.

A document is drafted in one piece when it is short. A long one is cut into sections by its
headings (Markdown `#` lines and underlined `===`/`---` titles); consecutive heading blocks are
packed together up to `max_chars`, so a policy of many short chapters still takes few requests.
A single block longer than `max_chars` is cut at blank lines, then at line ends. Offsets always
refer to the original text, so a node's source sentence can be highlighted in it.

`locate` finds the sentence a model quoted: verbatim first, then ignoring whitespace and Markdown
emphasis (models drop `**` and re-wrap lines), then the most similar sentence of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

DEFAULT_SECTION_CHARS = 8000
"""Documents up to this size are drafted in one request (Northline's policy is about 5,000)."""

MIN_SIMILARITY = 0.6
"""How alike a quote and a sentence must be for the sentence to count as the quote's source."""

_ATX = re.compile(r"^ {0,3}#{1,6}\s+\S")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
# a sentence ends at . ! ? : ; before a capital (not after a list number like "1."), at a blank
# line, before a list item, and around a heading line
_SENTENCE_END = re.compile(r"(?<=[^\d\s][.!?:;])\s+(?=[A-Z0-9\"'(*`])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)|\n(?=\s*#)")
_LIST_MARKER = re.compile(r"(?:[-*+]|\d+[.)])[ \t]+")
_IGNORED = re.compile(r"[\s*_`>#]+")


@dataclass(frozen=True)
class Section:
    """A piece of the document: its title (first heading, or '') and its offsets in the text."""

    title: str
    start: int
    end: int

    def text(self, document: str) -> str:
        """The section's text."""
        return document[self.start : self.end]


@dataclass(frozen=True)
class Span:
    """Where a node's source sentence is in the document; `exact` when it was quoted verbatim."""

    start: int
    end: int
    exact: bool = True

    def text(self, document: str) -> str:
        """The sentence itself."""
        return document[self.start : self.end]


def _line_starts(text: str) -> list[int]:
    starts, pos = [], 0
    for line in text.splitlines(keepends=True):
        starts.append(pos)
        pos += len(line)
    return starts


def heading_blocks(text: str) -> list[Section]:
    """The document cut before each heading (the text before the first heading joins the first block)."""
    lines = text.splitlines(keepends=True)
    starts = _line_starts(text)
    cuts = [0]
    for i, line in enumerate(lines):
        if _ATX.match(line) and starts[i] > 0:
            cuts.append(starts[i])
        elif i > 0 and _SETEXT.match(line) and lines[i - 1].strip() and starts[i - 1] > 0:
            cuts.append(starts[i - 1])
    cuts = sorted(set(cuts)) + [len(text)]
    blocks = [Section(_title(text[a:b]), a, b) for a, b in zip(cuts, cuts[1:], strict=False) if text[a:b].strip()]
    return _absorb_bare_headings(blocks, text)


def _absorb_bare_headings(blocks: list[Section], text: str) -> list[Section]:
    """A heading directly followed by a sub-heading (no text of its own) goes with what follows."""
    out: list[Section] = []
    carry: Section | None = None
    for block in blocks:
        if carry is not None:
            block = Section(carry.title, carry.start, block.end)
            carry = None
        body = [ln for ln in block.text(text).splitlines() if ln.strip()]
        if len(body) == 1 and _ATX.match(body[0]):
            carry = block
            continue
        out.append(block)
    if carry is not None:
        if out:
            out[-1] = Section(out[-1].title, out[-1].start, carry.end)
        else:
            out.append(carry)
    return out


def _title(block: str) -> str:
    for line in block.splitlines():
        if line.strip() and not _SETEXT.match(line):
            return line.strip().lstrip("#").strip()
    return ""


def split_sections(text: str, max_chars: int = DEFAULT_SECTION_CHARS) -> list[Section]:
    """The sections to draft, in document order: whole heading blocks packed up to `max_chars`."""
    if max_chars <= 0:
        raise ValueError("max_chars must be positive")
    if len(text) <= max_chars:
        return [Section(_title(text), 0, len(text))] if text.strip() else []
    pieces: list[Section] = []
    for block in heading_blocks(text):
        pieces += _cut(text, block, max_chars)
    packed: list[Section] = []
    for piece in pieces:
        last = packed[-1] if packed else None
        if last is not None and piece.end - last.start <= max_chars:
            packed[-1] = Section(last.title, last.start, piece.end)
        else:
            packed.append(piece)
    return packed


def _cut(text: str, block: Section, max_chars: int) -> list[Section]:
    """A block no longer than `max_chars`: itself; else cut at blank lines, then at line ends, then hard."""
    if block.end - block.start <= max_chars:
        return [block]
    body = block.text(text)
    for separator in (re.compile(r"\n\s*\n"), re.compile(r"\n")):
        bounds = [m.end() for m in separator.finditer(body)]
        if bounds:
            return _pack_at(block, bounds, max_chars)
    return [Section(block.title, s, min(s + max_chars, block.end)) for s in range(block.start, block.end, max_chars)]


def _pack_at(block: Section, bounds: list[int], max_chars: int) -> list[Section]:
    out: list[Section] = []
    start = block.start
    last_cut = start
    for bound in [block.start + b for b in bounds] + [block.end]:
        if bound - start > max_chars and last_cut > start:
            out.append(Section(block.title, start, last_cut))
            start = last_cut
        last_cut = bound
    out.append(Section(block.title, start, block.end))
    final: list[Section] = []
    for piece in out:  # a single paragraph longer than the limit is cut hard
        final += (
            [piece]
            if piece.end - piece.start <= max_chars
            else [Section(piece.title, s, min(s + max_chars, piece.end)) for s in range(piece.start, piece.end, max_chars)]
        )
    return final


def sentences(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The sentences (and list items) of `text[start:end]`, as spans of `text`, without blank edges."""
    end = len(text) if end is None else end
    spans = []
    pos = start
    for match in _SENTENCE_END.finditer(text, start, end):
        spans.append(_trimmed(text, pos, match.start()))
        pos = match.end()
    spans.append(_trimmed(text, pos, end))
    out = []
    for span in spans:
        newline = text.find("\n", span.start, span.end)
        if text.startswith("#", span.start) and newline > 0:  # a heading line is a sentence of its own
            out += [_trimmed(text, span.start, newline), _trimmed(text, newline, span.end)]
        else:
            out.append(span)
    return [s for s in out if s.end > s.start]


def _trimmed(text: str, start: int, end: int) -> Span:
    while start < end and text[start] in " \t\r\n":
        start += 1
    marker = _LIST_MARKER.match(text, start, end)
    if marker:
        start = marker.end()
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return Span(start, end)


def _normalised(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """`text[start:end]` lower-cased with whitespace and Markdown marks dropped, and each char's offset."""
    chars, offsets = [], []
    for i in range(start, end):
        ch = text[i]
        if _IGNORED.fullmatch(ch):
            continue
        chars.append(ch.lower())
        offsets.append(i)
    return "".join(chars), offsets


def locate(quote: str, text: str, start: int = 0, end: int | None = None) -> Span | None:
    """Where `quote` is in `text[start:end]`: verbatim, loosely (whitespace/Markdown), or the most similar sentence."""
    end = len(text) if end is None else end
    quote = quote.strip()
    if not quote:
        return None
    found = text.find(quote, start, end)
    if found >= 0:
        return Span(found, found + len(quote))
    wanted, _ = _normalised(quote, 0, len(quote))
    haystack, offsets = _normalised(text, start, end)
    if wanted and (found := haystack.find(wanted)) >= 0:
        return Span(offsets[found], offsets[found + len(wanted) - 1] + 1)
    return _most_similar(wanted, text, start, end)


def _most_similar(wanted: str, text: str, start: int, end: int) -> Span | None:
    best, best_ratio = None, MIN_SIMILARITY
    for span in sentences(text, start, end):
        candidate, _ = _normalised(text, span.start, span.end)
        matcher = SequenceMatcher(None, wanted, candidate, autojunk=False)
        if matcher.real_quick_ratio() < best_ratio or matcher.quick_ratio() < best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = Span(span.start, span.end, exact=False), ratio
    return best


_ENDS_HARD = re.compile(r"\s*(?:$|#|\||```)")  # a line whose own break stays
_STARTS_BLOCK = re.compile(r"\s*(?:$|#|\||[-*+]\s|\d+[.)]\s|>|```)")  # a line that starts a new block


def unwrap(text: str) -> tuple[str, list[int]]:
    """`text` with hard-wrapped lines joined into paragraphs (for a narrow view), and where each char went.

    A line break stays when the line is blank or a heading, or the next line is blank or starts a
    heading, list item, table row, quote or code fence; otherwise the break and the next line's
    indentation become one space. `positions[i]` is where `text[i]` is in the result, and
    `positions[len(text)]` is its length, so spans of `text` can be shown in it.
    """
    out: list[str] = []
    positions: list[int] = []
    lines = text.splitlines(keepends=True)
    joined = False  # the previous line's break became a space: skip this line's indentation
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        indent = len(body) - len(body.lstrip(" \t")) if joined else 0
        positions += [len(out)] * indent
        for ch in body[indent:]:
            positions.append(len(out))
            out.append(ch)
        joined = (
            line != body
            and i + 1 < len(lines)
            and body.strip() != ""
            and not _ENDS_HARD.match(body)
            and not _STARTS_BLOCK.match(lines[i + 1])
        )
        if joined:
            positions += [len(out)] * (len(line) - len(body))
            out.append(" ")
        else:
            for ch in line[len(body) :]:
                positions.append(len(out))
                out.append(ch)
    positions.append(len(out))
    return "".join(out), positions
