"""Few-shot selection: stable splits by case, balanced classes, seeded choice, nothing held out leaks."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime

from sage_desk.core.calibration import HumanLabel, select_examples, split_of
from sage_desk.core.calibration.fewshot import SPLITS


def make_labels(n_cases=60, per_case=3, criteria=("judge.empathy", "judge.content_utility")):
    """Labels over many cases; each case has `per_case` conversations, passes and fails mixed."""
    labels, case_of = [], {}
    for c in range(n_cases):
        for r in range(per_case):
            cid = f"conv-{c:03d}-{r}"
            case_of[cid] = f"case-{c:03d}"
            for k, criterion in enumerate(criteria):
                labels.append(
                    HumanLabel(
                        cid, criterion, (c + r + k) % 3 != 0, None, f"reason {cid}", "ana", datetime(2026, 1, 1), len(labels) + 1
                    )
                )
    return labels, case_of


def test_split_is_stable_and_roughly_a_half_quarter_quarter():
    assert split_of("nl-001") == split_of("nl-001")
    assert [split_of(f"nl-{i:03d}") for i in range(1, 9)] == [split_of(f"nl-{i:03d}") for i in range(1, 9)]
    counts = Counter(split_of(f"case-{i}") for i in range(4000))
    assert set(counts) == {name for name, _ in SPLITS}
    assert 0.46 < counts["train"] / 4000 < 0.54
    assert 0.21 < counts["dev"] / 4000 < 0.29 and 0.21 < counts["test"] / 4000 < 0.29


def test_examples_are_balanced_per_criterion():
    labels, case_of = make_labels()
    selection = select_examples(labels, case_of, per_class=3, seed=1)
    by = Counter((e.criterion, e.passed) for e in selection.examples)
    assert by == {
        ("judge.empathy", True): 3,
        ("judge.empathy", False): 3,
        ("judge.content_utility", True): 3,
        ("judge.content_utility", False): 3,
    }
    assert selection.criteria == ["judge.empathy", "judge.content_utility"]  # rubric order
    assert [e.passed for e in selection.examples[:4]] == [True, False, True, False]  # interleaved


def test_balance_is_capped_by_the_rarer_class_and_a_one_class_criterion_is_skipped():
    labels, case_of = make_labels(n_cases=40)
    train_fails = [
        lab
        for lab in labels
        if lab.criterion == "judge.empathy" and not lab.passed and split_of(case_of[lab.conversation_id]) == "train"
    ]
    keep_fail = train_fails[0]
    labels = [lab for lab in labels if lab.criterion != "judge.empathy" or lab.passed or lab is keep_fail]
    labels += [HumanLabel("conv-x", "judge.say.ask_photo", True, None, "", "", datetime(2026, 1, 1), 999)]
    case_of["conv-x"] = next(c for c in (f"other-{i}" for i in range(100)) if split_of(c) == "train")
    selection = select_examples(labels, case_of, per_class=4, seed=0)
    empathy = [e for e in selection.examples if e.criterion == "judge.empathy"]
    assert [e.passed for e in empathy] == [True, False] and empathy[1].conversation_id == keep_fail.conversation_id
    assert selection.skipped == {"judge.say.ask_photo": "no failing human label in the train split"}


def test_choice_depends_on_the_seed_only_not_on_input_order():
    labels, case_of = make_labels()
    first = select_examples(labels, case_of, per_class=2, seed=7).examples
    shuffled = labels[:]
    random.Random(3).shuffle(shuffled)
    assert select_examples(shuffled, case_of, per_class=2, seed=7).examples == first
    others = [select_examples(labels, case_of, per_class=2, seed=s).examples for s in range(8, 12)]
    assert any(o != first for o in others)


def test_examples_come_from_train_cases_only_so_nothing_held_out_leaks():
    labels, case_of = make_labels()
    examples = select_examples(labels, case_of, per_class=5, seed=0).examples
    example_cases = {e.case_id for e in examples}
    assert example_cases and all(split_of(c) == "train" for c in example_cases)
    heldout = {lab.conversation_id for lab in labels if split_of(case_of[lab.conversation_id]) != "train"}
    heldout_cases = {case_of[cid] for cid in heldout}
    assert heldout and not ({e.conversation_id for e in examples} & heldout)
    assert not example_cases & heldout_cases  # no conversation of an example's case is measured on


def test_example_prompt_carries_the_human_label_and_reason():
    labels, case_of = make_labels(n_cases=30)
    example = select_examples(labels, case_of, seed=0).examples[1]
    prompt = example.prompt("AGENT: hello")
    assert prompt == {
        "criterion": example.criterion,
        "passed": False,
        "score": None,
        "rationale": f"reason {example.conversation_id}",
        "transcript": "AGENT: hello",
    }
