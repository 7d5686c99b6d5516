"""Agreement between human reviewers, per criterion: pairwise Cohen's kappa, Krippendorff's alpha, % agreement.

An *item* is a conversation's criterion; each reviewer counts once, with their latest label of it
(whichever verdict source it was written against), as in `store/consensus.py`. Only items that at
least two reviewers labelled enter the figures (`n`).

- percent agreement: the share of those items on which every reviewer gave the same pass/fail;
- Cohen's kappa, for each pair of reviewers over the items both labelled (pass/fail); `kappa` of a
  criterion is that pair's when exactly two reviewers labelled it, else None (read `pairwise`);
- Krippendorff's alpha, any number of reviewers and missing labels: `alpha` on pass/fail (nominal
  distance), `alpha_interval` on 0-1 scores where at least two reviewers gave one. Both are
  1 - D_o / D_e over the pairable values; None when D_e = 0 (every value the same).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from sage_desk.core.calibration.agreement import Confusion, cohen_kappa
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.store.consensus import by_criterion, label_pass, resolve

if TYPE_CHECKING:
    from sage_desk.core.store import Store
    from sage_desk.core.store.records import OverrideRecord


def krippendorff_alpha(units: Iterable[Sequence[Any]], interval: bool = False) -> float | None:
    """Krippendorff's alpha of units (each the values its raters gave); nominal, or interval for numbers."""
    pairable = [list(u) for u in units if len(u) >= 2]
    values = [v for u in pairable for v in u]
    n = len(values)
    if n < 2:
        return None
    observed = sum(_pair_sum(u, interval) / (len(u) - 1) for u in pairable) / n
    expected = _pair_sum(values, interval) / (n * (n - 1))
    return None if expected == 0 else 1 - observed / expected


def _pair_sum(values: Sequence[Any], interval: bool) -> float:
    """The sum of the distances over ordered pairs of distinct positions."""
    n = len(values)
    if interval:
        total, squares = sum(values), sum(v * v for v in values)
        distances: float = 2 * (n * squares - total * total)  # interval units hold numbers
        return distances
    counts: dict[Hashable, int] = defaultdict(int)
    for v in values:
        counts[v] += 1
    return n * n - sum(c * c for c in counts.values())


@dataclass(frozen=True)
class PairAgreement:
    """Two reviewers over the items both labelled."""

    a: str
    b: str
    n: int
    agreement: float | None
    kappa: float | None

    def to_dict(self) -> JsonObject:
        return {"reviewers": [self.a, self.b], "n": self.n, "agreement": self.agreement, "kappa": self.kappa}


@dataclass(frozen=True)
class Disagreement:
    """An item on which reviewers differ, with each one's label and the adjudication if any."""

    conversation_id: str
    criterion: str
    labels: dict[str, bool]
    scores: dict[str, float]
    adjudicated: bool | None
    """The adjudicated pass/fail, or None while unresolved."""

    def to_dict(self) -> JsonObject:
        return {
            "conversation_id": self.conversation_id,
            "criterion": self.criterion,
            "labels": {r: "pass" if p else "fail" for r, p in sorted(self.labels.items())},
            "scores": dict(sorted(self.scores.items())),
            "adjudicated": None if self.adjudicated is None else "pass" if self.adjudicated else "fail",
        }


@dataclass
class CriterionAgreement:
    """Agreement between reviewers on one criterion."""

    criterion: str
    items: dict[str, JsonObject] = field(default_factory=dict)
    """conversation id -> reviewer -> their latest label."""
    adjudicated: dict[str, bool] = field(default_factory=dict)

    @property
    def shared(self) -> dict[str, JsonObject]:
        """The items at least two reviewers labelled."""
        return {cid: labels for cid, labels in self.items.items() if len(labels) >= 2}

    @property
    def reviewers(self) -> list[str]:
        return sorted({r for labels in self.items.values() for r in labels})

    @property
    def n(self) -> int:
        return len(self.shared)

    @property
    def percent_agreement(self) -> float | None:
        shared = self.shared
        agreed = sum(1 for labels in shared.values() if len({label_pass(o) for o in labels.values()}) == 1)
        return agreed / len(shared) if shared else None

    def pairwise(self) -> list[PairAgreement]:
        """Every pair of reviewers with at least one item in common."""
        out = []
        for a, b in combinations(self.reviewers, 2):
            pairs = [
                (bool(label_pass(labels[a])), bool(label_pass(labels[b])))
                for labels in self.items.values()
                if a in labels and b in labels
            ]
            if pairs:
                confusion = Confusion.of(pairs)
                out.append(PairAgreement(a, b, len(pairs), (confusion.tp + confusion.tn) / len(pairs), cohen_kappa(confusion)))
        return out

    @property
    def kappa(self) -> float | None:
        pairs = self.pairwise()
        return pairs[0].kappa if len(self.reviewers) == 2 and len(pairs) == 1 else None

    @property
    def alpha(self) -> float | None:
        return krippendorff_alpha([[label_pass(o) for o in labels.values()] for labels in self.shared.values()])

    @property
    def alpha_interval(self) -> float | None:
        units = [[o.human_score for o in labels.values() if o.human_score is not None] for labels in self.items.values()]
        return krippendorff_alpha(units, interval=True)

    def disagreements(self) -> list[Disagreement]:
        """The items where reviewers differ, by conversation."""
        out = []
        for cid, labels in sorted(self.shared.items()):
            passes = {r: bool(label_pass(o)) for r, o in labels.items()}
            if len(set(passes.values())) > 1:
                scores = {r: float(o.human_score) for r, o in labels.items() if o.human_score is not None}
                out.append(Disagreement(cid, self.criterion, passes, scores, self.adjudicated.get(cid)))
        return out

    def to_dict(self) -> JsonObject:
        found = self.disagreements()
        return {
            "criterion": self.criterion,
            "reviewers": self.reviewers,
            "labelled": len(self.items),
            "n": self.n,
            "percent_agreement": self.percent_agreement,
            "kappa": self.kappa,
            "alpha": self.alpha,
            "alpha_interval": self.alpha_interval,
            "pairwise": [p.to_dict() for p in self.pairwise()],
            "disagreements": len(found),
            "unresolved": sum(1 for d in found if d.adjudicated is None),
        }


@dataclass
class HumanAgreement:
    """Agreement between reviewers over a run or a queue, per criterion."""

    scope: str
    criteria: list[CriterionAgreement] = field(default_factory=list)

    def disagreements(self) -> list[Disagreement]:
        return [d for c in self.criteria for d in c.disagreements()]

    def to_dict(self) -> JsonObject:
        return {
            "scope": self.scope,
            "criteria": [c.to_dict() for c in self.criteria],
            "disagreements": [d.to_dict() for d in self.disagreements()],
        }


def human_agreement(
    overrides: Iterable[OverrideRecord],
    scope: str,
    conversation_ids: set[str] | None = None,
    criteria: Sequence[str] | None = None,
) -> HumanAgreement:
    """Agreement between reviewers from override records (optionally of some conversations and criteria)."""
    from sage_desk.core.calibration.labels import criterion_order

    chosen = [
        o
        for o in overrides
        if (conversation_ids is None or o.conversation_id in conversation_ids) and (not criteria or o.criterion in criteria)
    ]
    resolution = resolve(chosen, key=by_criterion)
    groups: dict[str, CriterionAgreement] = {}
    for (cid, criterion), labels in resolution.reviewers.items():
        groups.setdefault(criterion, CriterionAgreement(criterion)).items[cid] = labels
    for (cid, criterion), label in resolution.labels.items():
        if label.status == "adjudicated" and criterion in groups:
            groups[criterion].adjudicated[cid] = label.human_passed
    ordered = [groups[c] for c in sorted(groups, key=criterion_order)]
    return HumanAgreement(scope, ordered)


def run_agreement(store: Store, run_id: str, criteria: Sequence[str] | None = None) -> HumanAgreement:
    """Agreement between the reviewers of a run."""
    return human_agreement(store.overrides(run_id=run_id), f"run {run_id}", criteria=criteria)
