"""Train/dev/test splits by case, and balanced few-shot examples chosen from the train split.

A conversation's split follows its *case*: the case id is hashed, so every conversation of one case
(other agents, other repeats) lands in the same split, the split never changes when labels are
added, and an example shown to the judge can never be one it is measured on (no leakage, neither
of the conversation nor of its case). Half the cases train, a quarter dev, a quarter test.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sage_desk.core.calibration.labels import HumanLabel, criterion_order
from sage_desk.core.jsonsafe import JsonObject

SPLITS = (("train", 0.5), ("dev", 0.75), ("test", 1.0))  # upper bounds of each split's share
DEFAULT_PER_CLASS = 2


def split_of(case_id: str) -> str:
    """`train`, `dev` or `test` for a case, stable across runs and machines."""
    position = int(hashlib.sha256(case_id.encode("utf-8")).hexdigest()[:12], 16) / 16**12
    return next(name for name, bound in SPLITS if position < bound)


@dataclass(frozen=True)
class Example:
    """One human label chosen as a few-shot example."""

    conversation_id: str
    case_id: str
    criterion: str
    passed: bool
    score: float | None
    reason: str

    def prompt(self, transcript: str) -> JsonObject:
        """The dict `LlmJudge(examples=...)` reads."""
        reason = self.reason or f"a human reviewer marked this {'PASS' if self.passed else 'FAIL'}"
        return {
            "criterion": self.criterion,
            "passed": self.passed,
            "score": self.score,
            "rationale": reason,
            "transcript": transcript,
        }


@dataclass
class Selection:
    """The chosen examples, and why some criteria got none."""

    examples: list[Example] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # criterion -> why it has no examples

    @property
    def criteria(self) -> list[str]:
        return sorted({e.criterion for e in self.examples}, key=criterion_order)


def select_examples(
    labels: Iterable[HumanLabel], case_of: Mapping[str, str], per_class: int = DEFAULT_PER_CLASS, seed: int = 0
) -> Selection:
    """Balanced examples per criterion from the *train* split: the same number of passes and fails.

    For each criterion, `k = min(per_class, passes, fails)` of each class are drawn with a random
    generator seeded by (seed, criterion) from the labels sorted by conversation id, so the choice
    depends on the labels and the seed only, never on the order they were read in.
    """
    by_criterion: dict[str, list[HumanLabel]] = defaultdict(list)
    for label in labels:
        if split_of(case_of[label.conversation_id]) == "train":
            by_criterion[label.criterion].append(label)
    selection = Selection()
    for criterion in sorted(by_criterion, key=criterion_order):
        pool = sorted(by_criterion[criterion], key=lambda lab: lab.conversation_id)
        passes = [lab for lab in pool if lab.passed]
        fails = [lab for lab in pool if not lab.passed]
        k = min(per_class, len(passes), len(fails))
        if k == 0:
            missing = "failing" if passes else "passing"
            selection.skipped[criterion] = f"no {missing} human label in the train split"
            continue
        rng = random.Random(f"{seed}:{criterion}")
        chosen = [x for pair in zip(rng.sample(passes, k), rng.sample(fails, k), strict=True) for x in pair]
        selection.examples += [
            Example(lab.conversation_id, case_of[lab.conversation_id], criterion, lab.passed, lab.score, lab.reason)
            for lab in chosen
        ]
    return selection
