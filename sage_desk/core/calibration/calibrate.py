"""Calibrate: human labels become few-shot examples, and the judge is measured again on held-out labels.

1. The run's human labels are split by case (`split_of`); balanced examples come from *train*.
2. The held-out conversations (dev and test) are judged again by the LLM judge with the examples
   in its prompt. Their "before" is the stored verdicts of that judge (`judge:<model>`) when every
   held-out conversation has them; otherwise they are judged now without examples, so before and
   after differ only in the examples.
3. Agreement before and after is compared on the same held-out items (items left unscored by
   either side are dropped from both and counted).

Nothing in the run changes: the re-judged verdicts are returned, not stored. The chosen examples
are kept in the store's `judge_examples` (split `train`) so the calibration can be reproduced.
A baseline judge has no prompt, so few-shot examples cannot change it: it is refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sage_desk.core.calibration.agreement import Agreement, Confusion
from sage_desk.core.calibration.fewshot import DEFAULT_PER_CLASS, Example, Selection, select_examples, split_of
from sage_desk.core.calibration.labels import NO_LABELS_HINT, HumanLabel, criterion_order, human_labels, judge_pass
from sage_desk.core.errors import JudgeError, SageError
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.session import run_cases

if TYPE_CHECKING:
    from sage_desk.core.cases.model import Case
    from sage_desk.core.domain.loader import DomainBundle
    from sage_desk.core.judge.factory import Judge
    from sage_desk.core.llm import LlmClient
    from sage_desk.core.rules.verdict import Verdict
    from sage_desk.core.store import Store

BASELINE_MESSAGE = (
    "{model} has no prompt, so few-shot examples cannot change it: "
    "pick an LLM judge model (for example openai/gpt-4o-mini) to calibrate"
)
Progress = Callable[[int, int], None]


class CalibrationCancelled(SageError):
    """The user stopped a calibration before it finished."""


@dataclass(frozen=True)
class BeforeAfter:
    """One criterion's agreement on the held-out labels, before and after calibration."""

    criterion: str
    before: Agreement
    after: Agreement
    calibrated: bool  # the criterion had examples in the prompt
    dropped: int = 0  # held-out labels left unscored before or after

    def to_dict(self) -> JsonObject:
        return {
            "criterion": self.criterion,
            "calibrated": self.calibrated,
            "dropped": self.dropped,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
        }


@dataclass
class CalibrationResult:
    """What one calibration did and measured."""

    run_id: str
    model: str
    selection: Selection
    train_conversations: list[str]
    heldout_conversations: list[str]
    before_from: str  # "stored" verdicts, or "rejudged" now without examples
    rows: list[BeforeAfter] = field(default_factory=list)
    calls: int = 0
    cost_usd: float = 0.0
    after_verdicts: dict[str, list[Verdict]] = field(default_factory=dict)
    example_ids: list[int] = field(default_factory=list)

    @property
    def source(self) -> str:
        return f"judge:{self.model}"

    @property
    def before(self) -> Agreement:
        """Every held-out item pooled, before."""
        return Agreement(_pooled(r.before for r in self.rows))

    @property
    def after(self) -> Agreement:
        """Every held-out item pooled, after."""
        return Agreement(_pooled(r.after for r in self.rows))

    def to_dict(self) -> JsonObject:
        return {
            "run": self.run_id,
            "model": self.model,
            "before_from": self.before_from,
            "examples": [vars(e) for e in self.selection.examples],
            "skipped": self.selection.skipped,
            "train_conversations": len(self.train_conversations),
            "heldout_conversations": len(self.heldout_conversations),
            "calls": self.calls,
            "cost_usd": self.cost_usd,
            "overall": {"before": self.before.to_dict(), "after": self.after.to_dict()},
            "criteria": [r.to_dict() for r in self.rows],
        }


def _pooled(agreements: Iterable[Agreement]) -> Confusion:
    total = Confusion()
    for a in agreements:
        c = a.confusion
        total = Confusion(total.tp + c.tp, total.fp + c.fp, total.fn + c.fn, total.tn + c.tn)
    return total


def transcript_of(store: Store, conversation_id: str) -> str:
    """A conversation as the judge reads it (tool results clipped)."""
    from sage_desk.core.transcript import render_transcript

    return render_transcript(store.events(conversation_id), max_result=200)


class _Calibration:
    """One calibration's working state (see the module docstring for the steps)."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        model: str,
        on_progress: Progress | None,
        cancelled: Callable[[], bool] | None,
        concurrency: int,
    ):
        self.store, self.run_id, self.model = store, run_id, model
        self.on_progress = on_progress
        self.cancelled = cancelled or (lambda: False)
        self.limit = asyncio.Semaphore(max(1, concurrency))
        self.done = self.total = self.calls = 0
        self.cost = 0.0

    async def judge_all(
        self, judge: Judge, conversation_ids: list[str], bundle: DomainBundle, cases: dict[str, Case], case_of: dict[str, str]
    ) -> dict[str, list[Verdict]]:
        from sage_desk.core.scoring.hooks import judge_conversation

        async def one(cid: str) -> tuple[str, list[Verdict]]:
            async with self.limit:
                if self.cancelled():
                    raise CalibrationCancelled("calibration cancelled")
                events = await asyncio.to_thread(self.store.events, cid)
                verdicts = await judge_conversation(judge, cid, cases[case_of[cid]], bundle, events)
                self.calls += 1
                self.cost += float(verdicts[0].details.get("cost_usd", 0.0) or 0.0) if verdicts else 0.0
                self.done += 1
                if self.on_progress is not None:
                    self.on_progress(self.done, self.total)
                return cid, verdicts

        return dict(await asyncio.gather(*(one(cid) for cid in conversation_ids)))


def _split_labels(store: Store, run_id: str) -> tuple[dict[tuple[str, str], HumanLabel], dict[str, str]]:
    labels = human_labels(store, run_id)
    if not labels:
        raise JudgeError(f"no human labels in run {run_id}: {NO_LABELS_HINT}")
    case_of = {cid: store.conversation(cid).case_id for cid in {cid for cid, _ in labels}}
    return labels, case_of


def _value(verdict: Verdict | None) -> bool | None:
    return None if verdict is None else judge_pass(verdict)


def _compare(
    heldout: list[HumanLabel], before: dict[str, dict[str, Verdict]], after: dict[str, dict[str, Verdict]], calibrated: set[str]
) -> list[BeforeAfter]:
    pairs: dict[str, list[tuple[bool | None, bool | None, bool]]] = {}
    for label in heldout:
        b = before.get(label.conversation_id, {}).get(label.criterion)
        a = after.get(label.conversation_id, {}).get(label.criterion)
        pairs.setdefault(label.criterion, []).append((_value(b), _value(a), label.passed))
    rows = []
    for criterion in sorted(pairs, key=criterion_order):
        both = [(b, a, h) for b, a, h in pairs[criterion] if b is not None and a is not None]
        rows.append(
            BeforeAfter(
                criterion,
                Agreement.of((b, h) for b, _, h in both),
                Agreement.of((a, h) for _, a, h in both),
                criterion in calibrated,
                len(pairs[criterion]) - len(both),
            )
        )
    return rows


async def calibrate_async(
    store: Store,
    run_id: str,
    model: str,
    *,
    api_base: str | None = None,
    per_class: int = DEFAULT_PER_CLASS,
    seed: int = 0,
    concurrency: int = 4,
    client: LlmClient | None = None,
    judge_options: dict[str, Any] | None = None,
    on_progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    save_examples: bool = True,
) -> CalibrationResult:
    """Few-shot calibrate `model` on a run's human labels; measure before and after on the held-out part."""
    from sage_desk.core.judge.llm_judge import LlmJudge
    from sage_desk.core.llm import LlmClient

    if model.startswith("baseline:") or not model.strip():
        raise JudgeError(BASELINE_MESSAGE.format(model=model or "an empty judge name"))
    labels, case_of = _split_labels(store, run_id)
    bundle, cases, spec = run_cases(store, run_id)
    usable = {key: lab for key, lab in labels.items() if case_of[lab.conversation_id] in cases}
    selection = select_examples(usable.values(), case_of, per_class, seed)
    heldout = [lab for lab in usable.values() if split_of(case_of[lab.conversation_id]) != "train"]
    _check(selection, heldout, usable, case_of)
    examples = [e.prompt(transcript_of(store, e.conversation_id)) for e in selection.examples]
    heldout_ids = sorted({lab.conversation_id for lab in heldout})
    train_ids = sorted({lab.conversation_id for lab in usable.values()} - set(heldout_ids))
    work = _Calibration(store, run_id, model, on_progress, cancelled, concurrency)
    options = {
        "api_base": api_base or spec.api_base_for("judge"),
        "client": client or LlmClient(concurrency=concurrency),
        **(judge_options or {}),
    }
    source = f"judge:{model}"
    stored: dict[str, list[Verdict]] = {cid: list(store.verdicts(conversation_id=cid, source=source)) for cid in heldout_ids}
    before_from = "stored" if all(stored.values()) else "rejudged"
    work.total = len(heldout_ids) * (2 if before_from == "rejudged" else 1)
    if before_from == "rejudged":
        stored = await work.judge_all(LlmJudge(model, **options), heldout_ids, bundle, cases, case_of)
    after = await work.judge_all(LlmJudge(model, examples=examples, **options), heldout_ids, bundle, cases, case_of)
    rows = _compare(heldout, _by_criterion(stored), _by_criterion(after), set(selection.criteria))
    result = CalibrationResult(
        run_id, model, selection, train_ids, heldout_ids, before_from, rows, work.calls, round(work.cost, 6), after
    )
    if save_examples:
        result.example_ids = save_judge_examples(store, bundle.name, selection.examples, examples)
    return result


def _check(
    selection: Selection, heldout: list[HumanLabel], usable: dict[tuple[str, str], HumanLabel], case_of: dict[str, str]
) -> None:
    train = sum(1 for lab in usable.values() if split_of(case_of[lab.conversation_id]) == "train")
    if not selection.examples:
        raise JudgeError(
            f"no criterion has both a passing and a failing human label in the train split "
            f"({train} of {len(usable)} labels fall in train): label more conversations"
        )
    if not heldout:
        raise JudgeError(
            f"all {len(usable)} labels fall in the train split: nothing is held out to measure on; "
            "label conversations of more cases"
        )


def _by_criterion(verdicts: Mapping[str, Sequence[Verdict]]) -> dict[str, dict[str, Verdict]]:
    return {cid: {v.criterion: v for v in found} for cid, found in verdicts.items()}


def save_judge_examples(store: Store, domain: str, chosen: list[Example], prompts: list[JsonObject]) -> list[int]:
    """Keep the examples in the store's judge_examples (train split), skipping ones already there."""
    from sage_desk.core.store import JudgeExample

    new = []
    for example, prompt in zip(chosen, prompts, strict=True):
        known = {
            (e.conversation_id, e.label_passed, e.label_score) for e in store.judge_examples(domain, example.criterion, "train")
        }
        if (example.conversation_id, example.passed, example.score) in known:
            continue
        new.append(
            JudgeExample(
                domain=domain,
                criterion=example.criterion,
                conversation_id=example.conversation_id,
                transcript=prompt["transcript"],
                label_passed=example.passed,
                label_score=example.score,
                rationale=prompt["rationale"],
                split="train",
            )
        )
    return store.add_judge_examples(new) if new else []


def saved_examples(store: Store, domain: str) -> list[JsonObject]:
    """The domain's saved calibration examples (train split) as few-shot prompt examples for `LlmJudge`.

    This is how human overrides reach later judging: Calibrate keeps the examples it chose, and
    `rejudge --calibrated` (or any caller) puts them in the judge's prompt.
    """
    return [
        {
            "criterion": e.criterion,
            "transcript": e.transcript,
            "passed": e.label_passed,
            "score": e.label_score,
            "rationale": e.rationale,
        }
        for e in store.judge_examples(domain, None, "train")
    ]


def calibrate(store: Store, run_id: str, model: str, **options: Any) -> CalibrationResult:
    """`calibrate_async` for callers without an event loop (the CLI, a worker thread)."""
    return asyncio.run(calibrate_async(store, run_id, model, **options))
