"""Human labels from the store's overrides, paired with each judge's own value.

What counts as pass:
- a judge verdict passes by its own `passed` flag (the judges set it from the rubric: score >=
  `PASS_THRESHOLD` = 0.6 for the LLM judge); a verdict with only a score passes at >= 0.6; an
  *unscored* verdict has no value and is left out of the figures (counted as `unscored`);
- a human label is the effective label of that conversation's criterion, whichever judge's verdict
  it was written against (the human judges the conversation, not the judge), by the rule in
  `sage_desk.core.store.consensus`: each reviewer's latest label counts once; an adjudication
  wins; else the label all reviewers agree on; a disagreement nobody adjudicated is left out and
  counted (`CalibrationReport.disputed`). A label passes by `human_passed`, else by
  `human_score` >= 0.6, else by a `human_value` reading pass/fail.

Only judge criteria are calibrated: overrides of rule verdicts (source `rules`) are not labels here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from sage_desk.core.calibration.agreement import Agreement
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.judge.rubric import CRITERIA, PASS_THRESHOLD
from sage_desk.core.rules.verdict import RULES_SOURCE
from sage_desk.core.store.consensus import FAIL_WORDS, PASS_WORDS, Resolution, by_criterion, label_pass, resolve, word_pass

if TYPE_CHECKING:
    from sage_desk.core.rules.verdict import Verdict
    from sage_desk.core.store import Store
    from sage_desk.core.store.records import OverrideRecord

__all__ = ["FAIL_WORDS", "PASS_WORDS", "word_pass"]
NO_LABELS_HINT = "label conversations in Review or import them with `sage-desk label --run RUN_ID --from labels.csv`"


def judge_pass(verdict: Verdict) -> bool | None:
    """The judge's pass/fail of a verdict, or None when it is unscored or has no value."""
    if verdict.unscored:
        return None
    if verdict.passed is not None:
        return bool(verdict.passed)
    return None if verdict.score is None else verdict.score >= PASS_THRESHOLD


def human_pass(override: OverrideRecord) -> bool | None:
    """The human's pass/fail of an override, or None when it carries neither."""
    return label_pass(override)


@dataclass(frozen=True)
class HumanLabel:
    """The human word that counts on one criterion of one conversation (see the module's rule)."""

    conversation_id: str
    criterion: str
    passed: bool
    score: float | None
    reason: str
    author: str
    created_at: datetime
    override_id: int
    status: str = "single"
    """`single` (one reviewer), `agreed` (several, all the same) or `adjudicated`."""
    tags: tuple[str, ...] = ()
    corrected_reply: str | None = None


@dataclass(frozen=True)
class LabelledItem:
    """One judge's verdict on a criterion a human has labelled, with both values."""

    label: HumanLabel
    source: str
    case_id: str
    agent: str
    domain: str
    judge_passed: bool | None
    judge_score: float | None
    judge_rationale: str
    verdict_id: int

    @property
    def conversation_id(self) -> str:
        return self.label.conversation_id

    @property
    def criterion(self) -> str:
        return self.label.criterion

    @property
    def scored(self) -> bool:
        return self.judge_passed is not None

    @property
    def disagrees(self) -> bool:
        """The judge gave a value and it is not the human's."""
        return self.scored and self.judge_passed != self.label.passed


def judge_label_resolution(store: Store, run_id: str) -> Resolution:
    """The label rule applied to a run's labels of judge criteria, keyed (conversation id, criterion)."""
    return resolve((o for o in store.overrides(run_id=run_id) if o.source != RULES_SOURCE), key=by_criterion)


def human_labels(store: Store, run_id: str, resolution: Resolution | None = None) -> dict[tuple[str, str], HumanLabel]:
    """(conversation id, criterion) -> the effective human label of a judge criterion in the run."""
    resolution = judge_label_resolution(store, run_id) if resolution is None else resolution
    return {
        (cid, criterion): HumanLabel(
            cid,
            criterion,
            e.human_passed,
            e.human_score,
            e.reason,
            e.author,
            e.created_at,
            e.id,
            e.status,
            e.tags,
            e.corrected_reply,
        )
        for (cid, criterion), e in resolution.labels.items()
    }


def labelled_items(store: Store, run_id: str, labels: dict[tuple[str, str], HumanLabel] | None = None) -> list[LabelledItem]:
    """Every judge verdict (as the judge gave it) on a labelled criterion of the run."""
    labels = human_labels(store, run_id) if labels is None else labels
    ids = sorted({cid for cid, _ in labels})
    if not ids:
        return []
    convos = (
        {c.id: c for c in store.conversations(run_id=run_id)} if len(ids) > 20 else {cid: store.conversation(cid) for cid in ids}
    )
    items = []
    for v in store.verdicts_many(ids, criteria=sorted({criterion for _, criterion in labels})):
        label = labels.get((v.conversation_id, v.criterion))
        if label is not None and v.source != RULES_SOURCE:
            convo = convos[v.conversation_id]
            items.append(
                LabelledItem(label, v.source, convo.case_id, convo.agent, convo.domain, judge_pass(v), v.score, v.rationale, v.id)
            )
    return items


def criterion_order(name: str) -> tuple[int, str]:
    """The rubric's order for the fixed criteria, then `say:` steps and the rest by name."""
    fixed = [c.name for c in CRITERIA]
    return (fixed.index(name), "") if name in fixed else (len(fixed), name)


@dataclass(frozen=True)
class CriterionRow:
    """Agreement of one judge (source) on one criterion."""

    source: str
    criterion: str
    agreement: Agreement
    unscored: int = 0

    def to_dict(self) -> JsonObject:
        return {"source": self.source, "criterion": self.criterion, "unscored": self.unscored, **self.agreement.to_dict()}


@dataclass
class CalibrationReport:
    """A run's judge-versus-human figures: one row per judge and criterion, and the disagreements."""

    run_id: str
    items: list[LabelledItem] = field(default_factory=list)
    labels: int = 0  # human labels of judge criteria, whether or not a judge scored them
    disputed: int = 0  # criteria whose reviewers disagree and no one adjudicated: left out

    @property
    def sources(self) -> list[str]:
        """The judges with labelled verdicts, by name."""
        return sorted({i.source for i in self.items})

    def rows(self, source: str | None = None) -> list[CriterionRow]:
        """Per judge and criterion, in rubric order."""
        groups: dict[tuple[str, str], list[LabelledItem]] = defaultdict(list)
        for item in self.items:
            if source is None or item.source == source:
                groups[(item.source, item.criterion)].append(item)
        keys = sorted(groups, key=lambda k: (k[0], criterion_order(k[1])))
        return [_row(s, c, groups[(s, c)]) for s, c in keys]

    def disagreements(self, source: str | None = None, criterion: str | None = None) -> list[LabelledItem]:
        """Items where the judge's value is not the human's, by criterion then conversation."""
        found = [
            i
            for i in self.items
            if i.disagrees and (source is None or i.source == source) and (criterion is None or i.criterion == criterion)
        ]
        return sorted(found, key=lambda i: (i.source, criterion_order(i.criterion), i.conversation_id))

    def to_dict(self) -> JsonObject:
        """The whole report as plain data (the CLI's JSON)."""
        return {
            "run": self.run_id,
            "labels": self.labels,
            "disputed": self.disputed,
            "hint": None if self.labels else NO_LABELS_HINT,
            "criteria": [r.to_dict() for r in self.rows()],
            "disagreements": [item_dict(i) for i in self.disagreements()],
        }


def _row(source: str, criterion: str, items: Iterable[LabelledItem]) -> CriterionRow:
    items = list(items)
    scored = [(i.judge_passed, i.label.passed) for i in items if i.scored]
    return CriterionRow(source, criterion, Agreement.of(scored), unscored=len(items) - len(scored))  # type: ignore[arg-type]


def item_dict(item: LabelledItem) -> JsonObject:
    """One labelled item as plain data."""
    label = item.label
    return {
        "conversation_id": item.conversation_id,
        "case_id": item.case_id,
        "agent": item.agent,
        "criterion": item.criterion,
        "source": item.source,
        "judge_passed": item.judge_passed,
        "judge_score": item.judge_score,
        "judge_rationale": item.judge_rationale,
        "human_passed": label.passed,
        "human_score": label.score,
        "reason": label.reason,
        "author": label.author,
        "label_status": label.status,
        "labelled_at": label.created_at.isoformat(),
    }


def calibration_report(store: Store, run_id: str) -> CalibrationReport:
    """Read a run's labels and judge verdicts and pair them."""
    resolution = judge_label_resolution(store, run_id)
    labels = human_labels(store, run_id, resolution)
    return CalibrationReport(run_id, labelled_items(store, run_id, labels), len(labels), len(resolution.disputes))
