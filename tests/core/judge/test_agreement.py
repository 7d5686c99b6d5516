"""Agreement math against values worked out by hand."""

from __future__ import annotations

import pytest

from sage_desk.core.calibration import MIN_LABELS, Agreement, Confusion, cohen_kappa


def pairs(tp=0, fp=0, fn=0, tn=0):
    """(judge, human) pairs for these counts."""
    return [(True, True)] * tp + [(True, False)] * fp + [(False, True)] * fn + [(False, False)] * tn


def test_confusion_counts_each_cell_with_the_human_as_reference():
    c = Confusion.of(pairs(tp=3, fp=2, fn=1, tn=4))
    assert (c.tp, c.fp, c.fn, c.tn, c.n) == (3, 2, 1, 4, 10)
    assert (c.human_passes, c.human_fails) == (4, 6)
    assert c.as_rows() == [[3, 1], [2, 4]]


def test_figures_of_a_textbook_table():
    # 50 items: judge pass 25, human pass 30. p_o = 35/50 = 0.7;
    # p_e = (25*30 + 25*20) / 50^2 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    a = Agreement.of(pairs(tp=20, fp=5, fn=10, tn=15))
    assert a.n == 50
    assert a.accuracy == pytest.approx(0.7)
    assert a.kappa == pytest.approx(0.4)
    assert a.true_pass_rate == pytest.approx(20 / 30)
    assert a.true_fail_rate == pytest.approx(15 / 20)
    assert a.reliable and a.warning is None


def test_kappa_of_another_table():
    # tp=45 fp=15 fn=25 tn=15, n=100: p_o = 0.6; p_e = (60*70 + 40*30)/10000 = 0.54; kappa = 0.06/0.46
    assert cohen_kappa(Confusion(45, 15, 25, 15)) == pytest.approx(0.06 / 0.46)


def test_perfect_agreement_and_perfect_disagreement():
    assert cohen_kappa(Confusion(tp=12, tn=8)) == pytest.approx(1.0)
    worst = Agreement(Confusion(fp=10, fn=10))
    assert worst.kappa == pytest.approx(-1.0) and worst.accuracy == 0.0
    assert worst.true_pass_rate == 0.0 and worst.true_fail_rate == 0.0


def test_kappa_is_undefined_when_chance_agreement_is_one():
    # Judge and humans both passed all 25: p_e = 1, so (p_o - p_e) / (1 - p_e) is 0/0.
    a = Agreement.of(pairs(tp=25))
    assert a.kappa is None
    assert a.accuracy == 1.0 and a.true_pass_rate == 1.0 and a.true_fail_rate is None
    assert a.warning == "too few labels: humans passed all 25; label some failing conversations"


def test_a_judge_that_always_passes_has_kappa_zero():
    a = Agreement.of(pairs(tp=18, fp=7))
    assert a.kappa == pytest.approx(0.0)
    assert a.true_fail_rate == 0.0
    assert a.accuracy == pytest.approx(18 / 25)


def test_no_items_gives_no_figures():
    a = Agreement.of([])
    assert (a.n, a.accuracy, a.kappa, a.true_pass_rate, a.true_fail_rate) == (0, None, None, None, None)
    assert a.warning == "no labels" and not a.reliable


def test_too_few_labels_below_the_minimum_and_when_humans_used_one_class():
    few = Agreement.of(pairs(tp=5, fp=3, fn=2, tn=MIN_LABELS - 11))
    assert few.n == MIN_LABELS - 1
    assert few.warning == f"too few labels: {MIN_LABELS - 1} of the {MIN_LABELS} needed"
    enough = Agreement.of(pairs(tp=5, fp=3, fn=2, tn=MIN_LABELS - 10))
    assert enough.reliable
    all_fail = Agreement.of(pairs(fp=4, tn=30))
    assert all_fail.warning == "too few labels: humans failed all 34; label some passing conversations"
    assert all_fail.kappa == pytest.approx(0.0)  # the judge passed some: chance agreement below 1


def test_to_dict_is_plain_data():
    d = Agreement.of(pairs(tp=20, fp=5, fn=10, tn=15)).to_dict()
    assert d["confusion"] == {"tp": 20, "fp": 5, "fn": 10, "tn": 15}
    assert d["kappa"] == pytest.approx(0.4) and d["reliable"] is True and d["warning"] is None
