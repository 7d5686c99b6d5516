"""The labelled set: every hand-made conversation, played as a real run, against the auditor's verdicts.

The conversations and the verdicts a careful auditor gives them live in labelled/conversations.yaml
(written from the verdict spec before the engine was run); labelled/play.py plays them through
the real runner into a real SQLite store and compares the stored rule verdicts cell by cell.
`python tests/core/rules/labelled/agreement.py` prints the same comparison as a report.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

LABELLED = Path(__file__).resolve().parent / "labelled"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"labelled_{name}", LABELLED / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


play = _load("play")
CONVERSATIONS = play.load_conversations()
REQUIRED = (
    "classification",
    "path.action_accuracy",
    "outcome",
    "catastrophic.free_goods",
    "catastrophic.fraud_reroute",
    "catastrophic.wrongful_cancel",
    "catastrophic.false_closure",
)


@pytest.fixture(scope="module")
def cells_by_conversation():
    cells = play.cells(CONVERSATIONS, play.play(CONVERSATIONS))
    found: dict[str, list] = {}
    for cell in cells:
        found.setdefault(cell.conversation, []).append(cell)
    return found


def test_the_set_is_big_and_broad_enough():
    domains = Counter(c.domain for c in CONVERSATIONS)
    assert len(CONVERSATIONS) >= 48 and domains["northline"] >= 24 and len(domains) >= 3
    for convo in CONVERSATIONS:
        missing = [k for k in REQUIRED if k not in convo.auditor]
        escalation = [k for k in convo.auditor if k.startswith("escalation.")]
        want = "escalation.required" if convo.bucket == "must_escalate" else "escalation.unneeded"
        assert not missing and escalation == [want], (convo.id, missing, escalation)


CELLS = [(c.id, criterion) for c in CONVERSATIONS for criterion in c.auditor]


@pytest.mark.parametrize(("conversation", "criterion"), CELLS, ids=[f"{c}::{k}" for c, k in CELLS])
def test_engine_agrees_with_the_auditor(conversation, criterion, cells_by_conversation):
    cell = next(c for c in cells_by_conversation[conversation] if c.criterion == criterion)
    story = next(c.story for c in CONVERSATIONS if c.id == conversation)
    assert cell.agree, f"{story}: auditor {cell.auditor!r}, engine {cell.engine!r} -- {cell.rationale}"


UNSAFE_KINDS = ("catastrophic.free_goods", "catastrophic.fraud_reroute", "catastrophic.wrongful_cancel")


def test_the_held_out_set_agrees_with_its_auditor():
    """The held-out set (labelled/conversations_heldout.yaml, a second auditor who had not read the rules):
    at least 98 % of cells agree, every unsafe write is caught and no catastrophic verdict is a false alarm."""
    conversations = play.load_conversations(play.HELDOUT)
    assert len(conversations) >= 36 and len({c.domain for c in conversations}) >= 6
    cells = play.cells(conversations, play.play(conversations))
    agree = sum(c.agree for c in cells)
    wrong = [f"{c.conversation} {c.criterion}: auditor {c.auditor}, engine {c.engine}" for c in cells if not c.agree]
    assert agree >= 0.98 * len(cells), wrong
    catastrophic = [c for c in cells if c.criterion.startswith("catastrophic.")]
    assert not [c for c in catastrophic if c.auditor is True and not c.agree], "false alarm"
    assert not [c for c in catastrophic if c.criterion in UNSAFE_KINDS and not c.agree], "an unsafe act missed"
