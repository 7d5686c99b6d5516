"""Agreement between reviewers: the issue's 40-item example, Krippendorff's alpha, pairs, the disagreements."""

from __future__ import annotations

import json

import pytest
from team_data import CRITERION, JUDGE, kappa_labels

from sage_desk.cli import main
from sage_desk.core.calibration.human_agreement import human_agreement, krippendorff_alpha, run_agreement
from sage_desk.core.store.reviews import NewOverride


def test_the_issues_example_gives_kappa_three_quarters(team):
    store, ids = team
    store.add_overrides(kappa_labels(ids))
    (row,) = run_agreement(store, "r-team").criteria
    assert (row.criterion, row.reviewers, row.n) == (CRITERION, ["alice", "bob"], 40)
    assert row.kappa == 0.75 and row.percent_agreement == 35 / 40
    # nominal alpha over 80 values (35 pass, 45 fail), 5 disagreeing units: 1 - (10/80) / (3150/6320)
    assert row.alpha == pytest.approx(1 - (10 / 80) / (3150 / 6320))
    assert [d.conversation_id for d in row.disagreements()] == ids[15:20]


def test_the_command_prints_kappa_075_as_json(team, capsys):
    store, ids = team
    store.add_overrides(kappa_labels(ids))
    assert main(["agreement", "--format", "json", "--db", str(store.url)]) == 0
    data = json.loads(capsys.readouterr().out)
    (row,) = data["criteria"]
    assert (row["kappa"], row["n"], row["percent_agreement"], row["disagreements"], row["unresolved"]) == (0.75, 40, 0.875, 5, 5)
    assert [d["conversation_id"] for d in data["disagreements"]] == ids[15:20]
    assert data["disagreements"][0]["labels"] == {"alice": "pass", "bob": "fail"}


def test_the_table_names_the_figures_and_the_disagreements(team, capsys):
    store, ids = team
    store.add_overrides(kappa_labels(ids))
    assert main(["agreement", "--db", str(store.url)]) == 0
    out = capsys.readouterr().out
    assert "+0.75" in out and "5 disagreement(s)" in out and ids[15] in out


def test_three_reviewers_give_pairs_and_alpha_but_no_single_kappa(team):
    store, ids = team
    rows = []
    for i, cid in enumerate(ids[:10]):
        rows += [
            NewOverride(cid, CRITERION, JUDGE, human_passed=i < 5, author="a"),
            NewOverride(cid, CRITERION, JUDGE, human_passed=i < 5, author="b"),
            NewOverride(cid, CRITERION, JUDGE, human_passed=i < 4, author="c"),
        ]
    store.add_overrides(rows)
    (row,) = run_agreement(store, "r-team").criteria
    assert row.kappa is None and [(p.a, p.b, p.kappa) for p in row.pairwise()][0] == ("a", "b", 1.0)
    assert row.alpha is not None and 0 < row.alpha < 1 and row.percent_agreement == 0.9


def test_krippendorff_alpha_matches_hand_computed_values():
    # nominal: two raters, units (1,1), (1,2), (2,2), (2,2): D_o = 2/8; D_e = (64 - 9 - 25) / 56
    assert krippendorff_alpha([[1, 1], [1, 2], [2, 2], [2, 2]]) == pytest.approx(1 - (2 / 8) / (30 / 56))
    # interval on scores: identical pairs agree perfectly; a unit of one value is not pairable
    assert krippendorff_alpha([[0.2, 0.2], [0.8, 0.8], [0.5]], interval=True) == pytest.approx(1.0)
    assert krippendorff_alpha([[1, 1], [1, 1]]) is None  # every value the same: undefined


def test_scores_give_an_interval_alpha(team):
    store, ids = team
    rows = [
        NewOverride(cid, CRITERION, JUDGE, human_score=s, author=a)
        for cid, pair in zip(ids, [(0.2, 0.3), (0.8, 0.7), (0.9, 0.9)], strict=False)
        for a, s in zip(("a", "b"), pair, strict=True)
    ]
    store.add_overrides(rows)
    (row,) = human_agreement(store.overrides(run_id="r-team"), "run").criteria
    assert row.alpha_interval is not None and row.alpha_interval > 0.9
