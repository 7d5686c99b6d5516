"""SAGE's weighted view: 0.3 classification (per field) + 0.3 path (common-prefix partial credit)
+ 0.2 final action + 0.2 response quality (the judge's dimensions on SAGE's 3/6/9 scale, over 9)."""

from __future__ import annotations

import pytest

from sage_desk.core.metrics.aggregate import DIALOGUE_CRITERIA, ConversationResult, Mark, repeat_metrics


def _convo(
    i: int, fields: list[bool], prefix: float | None, outcome: bool, dialogue: float | None, exact: bool = True
) -> ConversationResult:
    marks = {f"classification.F{n}": Mark(passed=p) for n, p in enumerate(fields)}
    marks["classification"] = Mark(passed=all(fields))
    marks["path.action_accuracy"] = Mark(passed=exact)
    marks["path.prefix_similarity"] = Mark(passed=prefix == 1.0 if prefix is not None else None, score=prefix)
    marks["outcome"] = Mark(passed=outcome)
    if dialogue is not None:
        marks.update({k: Mark(score=dialogue) for k in DIALOGUE_CRITERIA})
    return ConversationResult(
        id=f"c{i}", agent="a", domain="d", case_id=f"k{i}", repeat=0, bucket="resolvable", conflict="zero", marks=marks
    )


def test_the_weights_with_partial_credit_and_the_3_6_9_scale():
    perfect = _convo(1, [True, True], 1.0, True, 0.9)
    assert repeat_metrics([perfect])["sage_score"] == pytest.approx(1.0)
    # half the fields, a common prefix of 2 of 4, the wrong ending, dialogue graded 6 of 9
    partial = _convo(2, [True, False], 0.5, False, 0.6)
    assert repeat_metrics([partial])["sage_score"] == pytest.approx(0.3 * 0.5 + 0.3 * 0.5 + 0.2 * 0 + 0.2 * 6 / 9)
    assert repeat_metrics([perfect, partial])["sage_score"] == pytest.approx((1.0 + 0.15 + 0.15 + 0.2 * 6 / 9) / 2)


@pytest.mark.parametrize(("stored", "grade"), [(0.0, 3), (0.3, 3), (0.44, 3), (0.5, 6), (0.6, 6), (0.7, 6), (0.8, 9), (1.0, 9)])
def test_judge_scores_snap_to_the_nearest_anchor(stored, grade):
    score = repeat_metrics([_convo(1, [True], 1.0, True, stored)])["sage_score"]
    assert score == pytest.approx(0.8 + 0.2 * grade / 9)


def test_a_path_with_nothing_to_do_done_right_is_full_credit_and_no_judge_is_no_score():
    nothing = _convo(1, [True], None, True, 0.9)
    assert repeat_metrics([nothing])["sage_score"] == pytest.approx(1.0)
    assert repeat_metrics([_convo(2, [True], 1.0, True, None)])["sage_score"] is None
