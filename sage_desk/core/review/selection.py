"""Choosing a queue's conversations: runs, a filter, a seeded sample, and an order.

Orders:
- `listed`: as the store lists a run (case, agent, repeat), run after run;
- `random`: shuffled with the seed;
- `disagree`: conversations where the judge and the rules disagree first, most disagreements
  first. The pairs compared: the judge's `judge.resolution_quality` against the rules' `outcome`,
  and `judge.policy_adherence` / `judge.instruction_compliance` against `path.action_accuracy`;
- `uncertain`: lowest judge confidence first. A verdict's confidence is how far its score lies
  from the pass threshold (|score - 0.6| / 0.6 below it, / 0.4 above), 1 for a bare pass/fail, 0
  for an unscored one or when two judges differ on pass/fail; a conversation's is its lowest.
Ties keep the listed order. Only finished conversations are selected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import TYPE_CHECKING

from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.judge.rubric import PASS_THRESHOLD
from sage_desk.core.rules.verdict import RULES_SOURCE
from sage_desk.core.store.errors import StoreError

if TYPE_CHECKING:
    from sage_desk.core.store import Store
    from sage_desk.core.store.records import StoredVerdict

ORDERS = ("listed", "random", "disagree", "uncertain")
JUDGE_VS_RULES = {
    "judge.resolution_quality": "outcome",
    "judge.policy_adherence": "path.action_accuracy",
    "judge.instruction_compliance": "path.action_accuracy",
}


@dataclass(frozen=True)
class Selection:
    """How a queue's conversations are chosen (kept with the queue, so it can be read back)."""

    runs: list[str]
    filters: dict[str, str] = field(default_factory=dict)
    sample: int | None = None
    seed: int = 0
    order: str = "listed"

    def to_dict(self) -> JsonObject:
        return {"runs": self.runs, "filters": self.filters, "sample": self.sample, "seed": self.seed, "order": self.order}


def parse_filters(pairs: Sequence[str]) -> dict[str, str]:
    """`agent=baseline:oracle` ... into a dict; StoreError for a malformed one or an unknown column."""
    from sage_desk.core.store.conversations import CONVERSATION_FILTERS

    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise StoreError(f"filter {pair!r}: write COLUMN=VALUE, e.g. bucket=adversarial")
        if key.strip() not in CONVERSATION_FILTERS:
            raise StoreError(f"cannot filter by {key.strip()!r}; columns: {', '.join(sorted(CONVERSATION_FILTERS))}")
        out[key.strip()] = value.strip()
    return out


def select_conversations(store: Store, selection: Selection) -> list[str]:
    """The conversation ids the selection picks, in review order."""
    if selection.order not in ORDERS:
        raise StoreError(f"unknown order {selection.order!r}; orders: {', '.join(ORDERS)}")
    filters: JsonObject = {k: (int(v) if k == "repeat" else v) for k, v in selection.filters.items()}
    filters.setdefault("status", "finished")
    ids = [c.id for run in selection.runs for c in store.conversations(run, **filters)]
    if selection.sample is not None and selection.sample < len(ids):
        keep = set(Random(selection.seed).sample(sorted(ids), selection.sample))
        ids = [cid for cid in ids if cid in keep]
    if selection.order == "random":
        Random(selection.seed).shuffle(ids)
    elif selection.order in ("disagree", "uncertain"):
        verdicts = store.verdicts_many(ids)
        score = _disagreements(verdicts) if selection.order == "disagree" else _confidence(verdicts)
        sign = -1 if selection.order == "disagree" else 1
        ids.sort(key=lambda cid: sign * score.get(cid, 0 if sign < 0 else 1.0))
    return ids


def _disagreements(verdicts: Sequence[StoredVerdict]) -> dict[str, int]:
    rules: dict[tuple[str, str], bool] = {}
    judged: list[StoredVerdict] = []
    for v in verdicts:
        if v.source == RULES_SOURCE and v.passed is not None and not v.unscored:
            rules[(v.conversation_id, v.criterion)] = bool(v.passed)
        elif v.criterion in JUDGE_VS_RULES and not v.unscored and _passed(v) is not None:
            judged.append(v)
    out: dict[str, int] = {}
    for v in judged:
        rule = rules.get((v.conversation_id, JUDGE_VS_RULES[v.criterion]))
        if rule is not None and rule != _passed(v):
            out[v.conversation_id] = out.get(v.conversation_id, 0) + 1
    return out


def _passed(v: StoredVerdict) -> bool | None:
    if v.passed is not None:
        return bool(v.passed)
    return None if v.score is None else v.score >= PASS_THRESHOLD


def _confidence(verdicts: Sequence[StoredVerdict]) -> dict[str, float]:
    out: dict[str, float] = {}
    votes: dict[tuple[str, str], set[bool]] = {}
    for v in verdicts:
        if v.source == RULES_SOURCE or not v.criterion.startswith("judge"):
            continue
        value = 0.0 if v.unscored else _score_confidence(v)
        out[v.conversation_id] = min(out.get(v.conversation_id, 1.0), value)
        if not v.unscored and _passed(v) is not None:
            votes.setdefault((v.conversation_id, v.criterion), set()).add(bool(_passed(v)))
    for (cid, _criterion), seen in votes.items():
        if len(seen) > 1:  # the judges differ among themselves
            out[cid] = 0.0
    return out


def _score_confidence(v: StoredVerdict) -> float:
    if v.score is None:
        return 1.0
    span = PASS_THRESHOLD if v.score < PASS_THRESHOLD else 1 - PASS_THRESHOLD
    return min(1.0, abs(v.score - PASS_THRESHOLD) / span)
