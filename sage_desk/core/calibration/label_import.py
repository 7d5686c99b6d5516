"""Human labels in bulk from a CSV file, through the store's override path (append-only).

Columns (a header row, any order, extra columns ignored): `conversation`, `criterion`, `value`,
`reason`, `author`, and optionally `source` (which judge's verdict; by default every verdict of
that criterion in the conversation gets the label), `tags` (failure modes from the domain's
`failure_modes` list, separated by `;`), `corrected_reply` (what the agent should have said) and
`kind` (`label`, the default, or `adjudication`: the final word where reviewers disagree, which
needs a reason).
Every label needs an author: the row's, else the default the command passes (`--author` or the
reviewer profile); a row with neither is refused, never filled in with the login name. A value is `pass`/`fail` (also yes/no,
true/false), a score from 0 to 1 (`0.8`) or out of ten (`7/10`); a score also sets pass/fail at
the rubric's threshold (0.6), so the metrics and the calibration read the same label.

Every row is checked before anything is written, then all are written in one transaction: a bad
row names its line and problem and nothing is imported.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sage_desk.core.calibration.labels import word_pass
from sage_desk.core.errors import InputError, Problem
from sage_desk.core.judge.rubric import PASS_THRESHOLD
from sage_desk.core.store.consensus import ADJUDICATION, KINDS, LABEL
from sage_desk.core.store.reviews import NewOverride

if TYPE_CHECKING:
    from sage_desk.core.store import Store

REQUIRED = ("conversation", "criterion", "value")
OPTIONAL = ("reason", "author", "source", "tags", "corrected_reply", "kind")
TAG_SEPARATOR = ";"
NO_AUTHOR = "no author: fill the author column, pass --author NAME, or choose a name with `sage-desk reviewer set NAME`"
_OUT_OF_TEN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*/\s*10\s*$")


def parse_value(text: str) -> tuple[bool | None, float | None]:
    """(passed, score) of a label value; ValueError with the reason when it cannot be read."""
    passed = word_pass(text)
    if passed is not None:
        return passed, None
    match = _OUT_OF_TEN.match(text)
    try:
        score = float(match.group(1)) / 10 if match else float(text)
    except ValueError:
        raise ValueError(f"value {text!r} is not pass/fail, a score from 0 to 1 or one out of 10 (7/10)") from None
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score {text!r} is outside 0-1 (write 7/10 for a score out of ten)")
    return score >= PASS_THRESHOLD, round(score, 4)


def _rows(path: Path, problems: list[Problem]) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line of the record, row) for each non-blank record; header problems go to `problems`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(Problem(str(path), 1, 1, f"not UTF-8 text ({exc.reason} at byte {exc.start})"))
        return
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip().lower() for h in next(reader, [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        problems.append(
            Problem(
                str(path),
                1,
                1,
                f"missing column(s) {', '.join(missing)}; a header row needs "
                f"{', '.join(REQUIRED + OPTIONAL[:2])} (source optional)",
            )
        )
        return
    line = reader.line_num + 1
    for record in reader:
        if any(cell.strip() for cell in record):
            if len(record) > len(header):
                problems.append(Problem(str(path), line, 1, f"{len(record)} cells but the header has {len(header)} columns"))
            yield line, {h: (record[i].strip() if i < len(record) else "") for i, h in enumerate(header)}
        line = reader.line_num + 1


class _Checker:
    """Checks rows against the run: the conversation is in it and has a verdict for the criterion."""

    def __init__(self, store: Store, run_id: str):
        self.store, self.run_id = store, run_id
        self.in_run = {c.id for c in store.conversations(run_id=run_id)}
        self.failure_modes = run_failure_modes(store, run_id)
        found: dict[str, dict[str, set[str]]] = {}
        for mark in store.effective_marks(run_id):  # every verdict of the run, in one query
            found.setdefault(mark.conversation_id, {}).setdefault(mark.criterion, set()).add(mark.source)
        self._sources = {cid: {k: sorted(v) for k, v in by.items()} for cid, by in found.items()}

    def sources(self, conversation_id: str) -> dict[str, list[str]]:
        """criterion -> the sources that gave it a verdict in this conversation."""
        return self._sources.get(conversation_id, {})

    def targets(self, row: dict[str, str]) -> list[str]:
        """The verdict sources the row's label goes to; ValueError with the reason when none fits."""
        cid, criterion, wanted = row["conversation"], row["criterion"], row.get("source", "")
        if not cid or not criterion:
            raise ValueError("conversation and criterion must not be empty")
        if cid not in self.in_run:
            raise ValueError(f"no conversation {cid!r} in run {self.run_id}")
        known = self.sources(cid)
        if criterion not in known:
            family = criterion.split(".")[0] + "."
            alike = sorted(k for k in known if k.startswith(family)) or sorted(known)
            names = ", ".join(alike[:8]) + (", ..." if len(alike) > 8 else "") or "none"
            raise ValueError(f"conversation {cid} has no verdict for criterion {criterion!r} (it has: {names})")
        if wanted and wanted not in known[criterion]:
            raise ValueError(f"no {criterion!r} verdict from source {wanted!r} in {cid} (sources: {', '.join(known[criterion])})")
        return [wanted] if wanted else known[criterion]

    def tags(self, text: str) -> tuple[str, ...]:
        """The row's failure-mode tags; ValueError naming the domain's list when one is not on it."""
        tags = tuple(dict.fromkeys(t.strip() for t in text.split(TAG_SEPARATOR) if t.strip()))
        if not tags or self.failure_modes is None:
            return tags
        unknown = [t for t in tags if t not in self.failure_modes]
        if unknown:
            known = ", ".join(self.failure_modes) or "none (add a failure_modes: list to domain.yaml)"
            raise ValueError(f"unknown failure mode(s) {', '.join(unknown)}; the domain's: {known}")
        return tags


def run_failure_modes(store: Store, run_id: str) -> list[str] | None:
    """The failure-mode tags the run's domain declares, or None when its domain cannot be loaded."""
    from sage_desk.core.domain import load_domain
    from sage_desk.core.errors import SageError

    try:
        return list(load_domain(store.get_run(run_id).domain).domain.failure_modes)
    except (SageError, OSError):
        return None


def read_labels(path: str | Path, store: Store, run_id: str, default_author: str = "") -> list[NewOverride]:
    """Every label of the file as overrides to append; InputError listing every bad row."""
    path = Path(path)
    if not path.is_file():
        raise InputError.single(path, "no such file")
    problems: list[Problem] = []
    checker = _Checker(store, run_id)
    overrides: list[NewOverride] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, row in _rows(path, problems):
        try:
            passed, score = parse_value(row["value"])
            targets = checker.targets(row)
            tags = checker.tags(row.get("tags", ""))
            author = row.get("author", "") or default_author
            if not author:
                raise ValueError(NO_AUTHOR)
            kind = (row.get("kind") or LABEL).lower()
            if kind not in KINDS:
                raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
            if kind == ADJUDICATION and not row.get("reason"):
                raise ValueError("an adjudication needs a reason")
        except ValueError as exc:
            problems.append(Problem(str(path), line, 1, str(exc)))
            continue
        for source in targets:
            key = (row["conversation"], row["criterion"], source)
            if key in seen:
                problems.append(
                    Problem(
                        str(path),
                        line,
                        1,
                        f"{row['conversation']} {row['criterion']} is labelled twice (first on line {seen[key]})",
                    )
                )
                break
            seen[key] = line
            overrides.append(
                NewOverride(
                    row["conversation"],
                    row["criterion"],
                    source,
                    human_passed=passed,
                    human_score=score,
                    reason=row.get("reason", ""),
                    author=author,
                    tags=tags,
                    corrected_reply=row.get("corrected_reply") or None,
                    kind=kind,
                )
            )
    if not problems and not overrides:
        problems.append(Problem(str(path), 1, 1, "no labels in the file (only a header, or empty)"))
    if problems:
        raise InputError(problems)
    return overrides


def import_labels(path: str | Path, store: Store, run_id: str, default_author: str = "") -> int:
    """Check the whole file, then append every label in one transaction; returns how many overrides."""
    overrides = read_labels(path, store, run_id, default_author)
    store.add_overrides(overrides)
    return len(overrides)
