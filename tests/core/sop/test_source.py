"""Splitting a prose SOP into sections and finding the sentence a model quoted."""

from __future__ import annotations

from pathlib import Path

import pytest

from sage_desk.core.sop.source import Section, heading_blocks, locate, sentences, split_sections, unwrap

NORTHLINE_POLICY = (Path(__file__).resolve().parents[3] / "sops" / "northline" / "policy.md").read_text(encoding="utf-8")

DOC = """Preamble line.

# One
First rule. Second rule.

Setext title
------------
Body of the setext section.

## Two
### Two point one
Nested body.
"""


def test_a_short_document_is_one_section() -> None:
    assert split_sections(NORTHLINE_POLICY) == [
        Section("# Northline Customer Support Policy".lstrip("# "), 0, len(NORTHLINE_POLICY))
    ]
    assert split_sections("   \n") == []


def test_heading_blocks_cut_before_each_heading_and_keep_offsets() -> None:
    blocks = heading_blocks(DOC)
    assert [b.title for b in blocks] == ["Preamble line.", "One", "Setext title", "Two"]
    assert "".join(b.text(DOC) for b in blocks) == DOC  # nothing lost, nothing doubled
    # a heading with no text of its own (## Two) goes with its sub-heading
    assert blocks[-1].text(DOC).startswith("## Two\n### Two point one\nNested body.")


def test_a_long_document_packs_heading_blocks_up_to_the_limit() -> None:
    sections = split_sections(NORTHLINE_POLICY, 1500)
    assert all(s.end - s.start <= 1500 for s in sections)
    assert [s.start for s in sections][0] == 0 and sections[-1].end == len(NORTHLINE_POLICY)
    assert all(a.end == b.start for a, b in zip(sections, sections[1:], strict=False))
    assert [s.title for s in sections] == [
        "Northline Customer Support Policy",
        "1. Before anything else",
        "2. Where is my order?",
        "4. Damaged or wrong items",
        "7. Faults, warranty and wear and tear",
    ]


def test_a_block_longer_than_the_limit_is_cut_at_paragraphs_then_lines() -> None:
    text = "# Big\n" + "\n\n".join(f"Paragraph {i} " + "word " * 30 for i in range(10))
    sections = split_sections(text, 400)
    assert len(sections) > 3 and all(s.end - s.start <= 400 for s in sections)
    assert "".join(s.text(text) for s in sections) == text
    assert all(s.text(text).rstrip().endswith("word") for s in sections)  # never mid-paragraph
    wall = "x" * 1000
    assert [s.end - s.start for s in split_sections(wall, 400)] == [400, 400, 200]
    with pytest.raises(ValueError):
        split_sections(text, 0)


def test_sentences_split_at_ends_list_items_and_headings_not_after_list_numbers() -> None:
    text = "## 1. Title here\n1. First. Second one\n   wraps here.\n- item: Next\n"
    assert [s.text(text) for s in sentences(text)] == [
        "## 1. Title here",
        "First.",
        "Second one\n   wraps here.",
        "item:",
        "Next",
    ]


def test_locate_verbatim_loosely_and_by_similarity() -> None:
    text = NORTHLINE_POLICY
    exact = locate("Do not reship a delivered order yourself.", text)
    assert exact is not None and exact.exact and "**" not in exact.text(text)
    # the model dropped the Markdown and re-wrapped the line
    loose = locate("open a carrier trace with open_carrier_trace and tell the customer we will contact them", text)
    assert loose is not None and loose.text(text).startswith("Open a\n  carrier trace with `open_carrier_trace`")
    assert loose.text(text).endswith("we will contact them")
    similar = locate("No photo, no replacement - ask for one and close the ticket as info requested.", text)
    assert similar is not None and not similar.exact
    assert similar.text(text) == "No photo, no replacement: ask for one and close the ticket as `info_requested`."
    assert locate("The moon is made of cheese.", text) is None
    assert locate("", text) is None


def test_locate_looks_inside_a_range_first() -> None:
    text = "Say hello. Other part. Say hello."
    span = locate("Say hello.", text, 11)
    assert span is not None and span.start == 23


def test_unwrap_joins_wrapped_lines_and_maps_every_offset() -> None:
    text = "# Title\nnot joined to the heading\n\n1. A list item that\n   wraps here.\n2. Next item\n| a | b |\n| c | d |\n"
    shown, positions = unwrap(text)
    assert shown == "# Title\nnot joined to the heading\n\n1. A list item that wraps here.\n2. Next item\n| a | b |\n| c | d |\n"
    assert len(positions) == len(text) + 1 and positions[-1] == len(shown)
    start, end = text.index("that"), text.index("here.") + 5
    assert shown[positions[start] : positions[end]] == "that wraps here."
    assert all(shown[positions[i]] == ch for i, ch in enumerate(text) if not ch.isspace())
