"""Judge-versus-human agreement on pass/fail labels: confusion matrix, accuracy, Cohen's kappa, rates.

The human is the reference. With "pass" as the positive class:

  true pass (tp)  judge pass, human pass        false pass (fp)  judge pass, human fail
  false fail (fn) judge fail, human pass        true fail (tn)   judge fail, human fail

- accuracy = (tp + tn) / n
- true-pass rate = tp / (tp + fn): of what humans passed, how much the judge passed too
- true-fail rate = tn / (tn + fp): of what humans failed, how much the judge failed too
- Cohen's kappa = (p_o - p_e) / (1 - p_e), p_o the observed agreement and p_e the agreement two
  raters with these pass rates would reach by chance. It is *undefined* (None) when p_e = 1: both
  judge and humans gave every item one and the same class, so chance explains all agreement.

Figures from few labels mislead: `MIN_LABELS` labels, and both classes among the human labels, are
needed before `warning` stays empty.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sage_desk.core.jsonsafe import JsonObject

MIN_LABELS = 20


@dataclass(frozen=True)
class Confusion:
    """Counts of (judge, human) pairs; the human is the reference, "pass" the positive class."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @classmethod
    def of(cls, pairs: Iterable[tuple[bool, bool]]) -> Confusion:
        """Count (judge passed, human passed) pairs."""
        counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
        for judge, human in pairs:
            counts[(bool(judge), bool(human))] += 1
        return cls(tp=counts[(True, True)], fp=counts[(True, False)], fn=counts[(False, True)], tn=counts[(False, False)])

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def human_passes(self) -> int:
        return self.tp + self.fn

    @property
    def human_fails(self) -> int:
        return self.fp + self.tn

    def as_rows(self) -> list[list[int]]:
        """[[tp, fn], [fp, tn]]: rows are the human's label (pass, fail), columns the judge's."""
        return [[self.tp, self.fn], [self.fp, self.tn]]


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def cohen_kappa(c: Confusion) -> float | None:
    """Cohen's kappa of a 2x2 confusion matrix; None when undefined (no items, or p_e = 1).

    Computed in integers, n^2 * (p_o - p_e) / n^2 * (1 - p_e), so p_e = 1 is detected exactly.
    """
    n = c.n
    chance = (c.tp + c.fp) * (c.tp + c.fn) + (c.fn + c.tn) * (c.fp + c.tn)  # n^2 * p_e
    denominator = n * n - chance
    if n == 0 or denominator == 0:
        return None
    return (n * (c.tp + c.tn) - chance) / denominator


@dataclass(frozen=True)
class Agreement:
    """Agreement figures of one judge on one criterion (or any set of labelled items)."""

    confusion: Confusion

    @classmethod
    def of(cls, pairs: Iterable[tuple[bool, bool]]) -> Agreement:
        """From (judge passed, human passed) pairs."""
        return cls(Confusion.of(pairs))

    @property
    def n(self) -> int:
        """How many labelled items the figures rest on."""
        return self.confusion.n

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.confusion.tp + self.confusion.tn, self.n)

    @property
    def kappa(self) -> float | None:
        return cohen_kappa(self.confusion)

    @property
    def true_pass_rate(self) -> float | None:
        return _ratio(self.confusion.tp, self.confusion.human_passes)

    @property
    def true_fail_rate(self) -> float | None:
        return _ratio(self.confusion.tn, self.confusion.human_fails)

    @property
    def warning(self) -> str | None:
        """Why the figures cannot be trusted yet, or None when they can."""
        c = self.confusion
        if self.n == 0:
            return "no labels"
        if self.n < MIN_LABELS:
            return f"too few labels: {self.n} of the {MIN_LABELS} needed"
        if c.human_fails == 0:
            return f"too few labels: humans passed all {self.n}; label some failing conversations"
        if c.human_passes == 0:
            return f"too few labels: humans failed all {self.n}; label some passing conversations"
        return None

    @property
    def reliable(self) -> bool:
        """Enough labels of both classes to read the figures."""
        return self.warning is None

    def to_dict(self) -> JsonObject:
        """Plain figures for JSON."""
        c = self.confusion
        return {
            "n": self.n,
            "accuracy": self.accuracy,
            "kappa": self.kappa,
            "true_pass_rate": self.true_pass_rate,
            "true_fail_rate": self.true_fail_rate,
            "confusion": {"tp": c.tp, "fp": c.fp, "fn": c.fn, "tn": c.tn},
            "reliable": self.reliable,
            "warning": self.warning,
        }
