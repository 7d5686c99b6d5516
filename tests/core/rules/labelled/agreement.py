"""Agreement between the careful auditor's labels and the rule engine, per criterion and overall.

Run it from the repository root: `python tests/core/rules/labelled/agreement.py [FILE ...]`. It plays
every labelled conversation of each file (default: conversations.yaml, then the held-out
conversations_heldout.yaml; see play.py), then prints per file the agreement per criterion family,
overall (cells agreeing / cells labelled), every disagreement with the engine's rationale, and the
judgement calls written in the labels.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[2]


def _family(criterion: str) -> str:
    """path.step.lookup -> path.step.*; catastrophic.free_goods stays whole."""
    parts = criterion.split(".")
    if parts[0] == "path" and len(parts) > 2:
        return f"path.{parts[1]}.*"
    if parts[0] == "classification" and len(parts) > 1:
        return "classification.*"
    return criterion


def _pct(agree: int, total: int) -> str:
    return f"{agree}/{total} ({100.0 * agree / total:.1f}%)" if total else "0/0"


def report(conversations, cells) -> str:
    """The agreement report as text."""
    by_family: dict[str, list] = defaultdict(list)
    for cell in cells:
        by_family[_family(cell.criterion)].append(cell)
    lines = [f"{len(conversations)} labelled conversations, {len(cells)} labelled cells", "", "agreement per criterion:"]
    width = max(len(f) for f in by_family)
    for family in sorted(by_family):
        group = by_family[family]
        lines.append(f"  {family:<{width}}  {_pct(sum(c.agree for c in group), len(group))}")
    lines += ["", f"overall: {_pct(sum(c.agree for c in cells), len(cells))}", ""]
    wrong = [c for c in cells if not c.agree]
    lines.append(f"disagreements ({len(wrong)}):")
    for c in wrong:
        lines.append(f"  {c.conversation}  {c.criterion}: auditor {c.auditor!r}, engine {c.engine!r} -- {c.rationale}")
    notes = [(c.id, n) for c in conversations for n in c.judgements]
    lines += ["", f"judgement calls ({len(notes)}):"]
    lines += [f"  {cid}: {note}" for cid, note in notes]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(TESTS))  # the `fakes` package, as pytest's conftest provides it
    sys.path.insert(0, str(HERE))
    from play import CONVERSATIONS, HELDOUT, play_all

    files = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or [CONVERSATIONS, HELDOUT]
    for path in files:
        conversations, cells = play_all(path)
        print(f"== {path.name}")
        print(report(conversations, cells))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
