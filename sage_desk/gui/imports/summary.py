"""What the import dialog says when an import ends: the summary of a finished import, or why nothing was imported.

Plain functions from core results to the HTML a QTextBrowser shows; everything from a log (ids,
file names, messages) is escaped, since production logs hold arbitrary text.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from sage_desk.core.errors import Problem

if TYPE_CHECKING:
    from sage_desk.core.imports.importer import ImportSummary

LISTED = 12
"""At most this many skipped lines or duplicates are listed; the rest are counted."""
MUTED, FAIL, OK = "#64748b", "#b91c1c", "#15803d"


def where(problem: Problem) -> str:
    """`file.jsonl:4`: the problem's file (its name) and line, as a reader looks them up."""
    return f"{Path(problem.file).name}:{problem.line}"


def _problem_items(problems: Sequence[Problem]) -> str:
    items = [f"<li><code>{escape(where(p))}</code> {escape(p.message)}</li>" for p in problems[:LISTED]]
    if len(problems) > LISTED:
        items.append(f"<li style='color:{MUTED}'>… and {len(problems) - LISTED} more</li>")
    return f"<ul style='margin-top:2px'>{''.join(items)}</ul>"


def _duplicate_items(duplicates: Sequence[tuple[str, str]]) -> str:
    items = [
        f"<li><code>{escape(source)}</code>"
        + (f" <span style='color:{MUTED}'>stored as {escape(earlier)}</span>" if earlier else "")
        + "</li>"
        for source, earlier in duplicates[:LISTED]
    ]
    if len(duplicates) > LISTED:
        items.append(f"<li style='color:{MUTED}'>… and {len(duplicates) - LISTED} more</li>")
    return f"<ul style='margin-top:2px'>{''.join(items)}</ul>"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _masked(summary: ImportSummary, redact: bool) -> str:
    if not redact:
        return "not masked (Mask personal data was off)"
    return "nothing found to mask" if summary.masked in ("", "nothing to mask") else f"masked {escape(summary.masked)}"


def summary_rows(summary: ImportSummary, redact: bool, files: int = 1) -> list[tuple[str, str]]:
    """(what, figure) lines of the summary: read, imported, already imported, skipped, masked, placed, needing a slot."""
    s = summary
    rows = [
        ("Read", f"{_plural(s.read, 'conversation')} from {_plural(files, 'file')}"),
        ("Imported", f"{s.imported}, as run <code>{escape(s.run_id)}</code>" if s.run_id else "nothing new: no run was made"),
        ("Already imported", f"{len(s.duplicates)} with the same content, left out (listed below)" if s.duplicates else "none"),
        ("Skipped lines", f"<span style='color:{FAIL}'>{len(s.skipped)} bad, listed below</span>" if s.skipped else "none"),
        ("Personal data", _masked(s, redact)),
    ]
    if s.run_id:
        rows += [
            ("On one path", f"{s.placed}: placed on one path of the graph, their verdicts scored"),
            (
                "Need a slot",
                f"<b>{s.unplaced}</b>: several paths fit, so some verdicts read <i>needs slot</i> "
                "until you set it in Review's Slots panel"
                if s.unplaced
                else "0",
            ),
        ]
    if s.unknown_tools:  # never silent: what those calls did cannot be read, so their verdicts are unscored
        names = ", ".join(f"{escape(n)} ({c})" for n, c in sorted(s.unknown_tools.items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append(
            (
                "Unknown tools",
                f"<span style='color:{FAIL}'>{len(s.unknown_tools)} tool name"
                f"{'s are not tools' if len(s.unknown_tools) != 1 else ' is not a tool'} of domain "
                f"{escape(s.domain)}: {names}</span>; every verdict of the {s.unknown_in} conversation(s) "
                "calling them is unscored",
            )
        )
    if s.provisional:
        rows.append(
            (
                "Provisional",
                f"{s.provisional}: some verdicts rest only on the agent's own tag, shown apart until you set the slot",
            )
        )
    return rows


def summary_html(summary: ImportSummary, redact: bool, files: int = 1) -> str:
    """The summary of an import that ran, as a table of figures, then the skipped lines and the duplicates."""
    head = (
        f"<p style='color:{OK}'><b>Imported {summary.imported} conversations.</b></p>"
        if summary.run_id
        else "<p><b>Nothing new to import.</b></p>"
    )
    cells = "".join(
        f"<tr><td style='color:{MUTED}; padding:2px 14px 2px 0'>{what}</td><td style='padding:2px 0'>{figure}</td></tr>"
        for what, figure in summary_rows(summary, redact, files)
    )
    parts = [head, f"<table cellspacing='0'>{cells}</table>"]
    if summary.skipped:
        parts.append(
            f"<p style='color:{FAIL}'><b>Skipped {_plural(len(summary.skipped), 'bad line')}:</b></p>"
            + _problem_items(summary.skipped)
        )
    if summary.duplicates:
        parts.append(
            f"<p><b>{len(summary.duplicates)} already imported</b> (the same content), left out:</p>"
            + _duplicate_items(summary.duplicates)
        )
    return "".join(parts)


def problems_html(problems: Sequence[Problem], in_files: bool = True) -> str:
    """Why nothing was imported: every bad line (or every problem of the domain), and what to do about it."""
    count = len(problems)
    if not in_files:
        return (
            f"<p style='color:{FAIL}'><b>Nothing imported: the domain cannot be read.</b></p>"
            + _problem_items(problems)
            + "<p>Pick another domain, or fix its folder.</p>"
        )
    return (
        f"<p style='color:{FAIL}'><b>Nothing imported: {count} bad line{'s' if count != 1 else ''}.</b></p>"
        + _problem_items(problems)
        + "<p>Fix these lines, or tick <b>Skip bad lines</b> to import the rest.</p>"
    )
