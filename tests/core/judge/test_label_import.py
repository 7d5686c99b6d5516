"""Labels in bulk from CSV: every row checked first, then all written in one transaction, or none."""

from __future__ import annotations

import pytest
from calibration_data import HEURISTIC

from sage_desk.core.calibration import calibration_report
from sage_desk.core.calibration.label_import import import_labels, parse_value
from sage_desk.core.errors import InputError
from sage_desk.core.store import StoreError
from sage_desk.core.store.reviews import NewOverride


def write(tmp_path, text, name="labels.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def ids(store, n=3):
    return [c.id for c in store.conversations(run_id=store.latest_run_id())[:n]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pass", (True, None)),
        ("FAIL", (False, None)),
        ("yes", (True, None)),
        ("0.8", (True, 0.8)),
        ("0.3", (False, 0.3)),
        ("7/10", (True, 0.7)),
        ("5 / 10", (False, 0.5)),
        ("1", (True, 1.0)),
        ("0", (False, 0.0)),
    ],
)
def test_values(text, expected):
    assert parse_value(text) == expected


@pytest.mark.parametrize(("text", "problem"), [("maybe", "is not pass/fail"), ("7", "outside 0-1"), ("11/10", "outside 0-1")])
def test_bad_values(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_value(text)


def test_import_writes_overrides_through_the_store(judged, tmp_path):
    a, b, c = ids(judged)
    path = write(
        tmp_path,
        "conversation,criterion,value,reason,author\n"
        f"{a},judge.empathy,pass,warm,ana\n"
        f"{b},judge.empathy,2/10,curt,\n"
        f"\n"
        f'{c},judge.resolution_quality,fail,"left the customer, without an answer",bo\n',
    )
    run_id = judged.latest_run_id()
    assert import_labels(path, judged, run_id, default_author="cli-user") == 3
    records = judged.overrides(run_id=run_id)
    assert [(o.conversation_id, o.criterion, o.source, o.human_passed, o.human_score, o.author) for o in records] == [
        (a, "judge.empathy", HEURISTIC, True, None, "ana"),
        (b, "judge.empathy", HEURISTIC, False, 0.2, "cli-user"),
        (c, "judge.resolution_quality", HEURISTIC, False, None, "bo"),
    ]
    assert records[2].reason == "left the customer, without an answer"
    assert records[0].original_score is not None  # the judge's value is kept on the override
    assert calibration_report(judged, run_id).labels == 3
    (effective,) = [v for v in judged.effective_verdicts(b, source=HEURISTIC) if v.criterion == "judge.empathy"]
    assert effective.passed is False and effective.score == 0.2


def test_bad_rows_name_their_line_and_nothing_is_imported(judged, tmp_path):
    a, b, _ = ids(judged)
    path = write(
        tmp_path,
        "conversation,criterion,value,reason,author\n"
        f"{a},judge.empathy,pass,ok,ana\n"
        f'{b},judge.empathy,"maybe\nlater",,ana\n'  # a quoted value over two lines
        f"nope,judge.empathy,pass,,ana\n"
        f"{a},judge.nothing,pass,,ana\n"
        f"{a},judge.empathy,fail,,bo\n",
    )
    with pytest.raises(InputError) as caught:
        import_labels(path, judged, judged.latest_run_id())
    problems = [(p.line, p.message) for p in caught.value.problems]
    assert [line for line, _ in problems] == [3, 5, 6, 7]
    assert "is not pass/fail" in problems[0][1]
    assert f"no conversation 'nope' in run {judged.latest_run_id()}" == problems[1][1]
    assert "has no verdict for criterion 'judge.nothing'" in problems[2][1] and "judge.empathy" in problems[2][1]
    assert "labelled twice (first on line 2)" in problems[3][1]
    assert str(caught.value.problems[0]).startswith(f"{path}:3:1: ")
    assert judged.overrides() == []


def test_header_and_file_problems(judged, tmp_path):
    run_id = judged.latest_run_id()
    with pytest.raises(InputError, match="missing column.*value"):
        import_labels(write(tmp_path, "conversation,criterion,verdict\nx,y,pass\n"), judged, run_id)
    with pytest.raises(InputError, match="no labels in the file"):
        import_labels(write(tmp_path, "conversation,criterion,value\n"), judged, run_id)
    with pytest.raises(InputError, match="no such file"):
        import_labels(tmp_path / "missing.csv", judged, run_id)
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("conversation,criterion,value,reason\nx,y,pass,très\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        import_labels(bad, judged, run_id)


def test_a_source_column_picks_one_judge_and_excel_bom_is_read(judged, tmp_path):
    (a,) = ids(judged, 1)
    path = tmp_path / "bom.csv"
    path.write_text(f"Conversation,Criterion,Value,Source\n{a},judge.empathy,pass,{HEURISTIC}\n", encoding="utf-8-sig")
    assert import_labels(path, judged, judged.latest_run_id(), default_author="ana") == 1
    wrong = write(tmp_path, f"conversation,criterion,value,source\n{a},judge.empathy,pass,judge:openai/x\n", "wrong.csv")
    with pytest.raises(InputError, match="no 'judge.empathy' verdict from source 'judge:openai/x'"):
        import_labels(wrong, judged, judged.latest_run_id())


def test_add_overrides_is_one_transaction(judged):
    (a,) = ids(judged, 1)
    good = NewOverride(a, "judge.empathy", HEURISTIC, human_passed=True)
    with pytest.raises(StoreError):
        judged.add_overrides([good, NewOverride("missing", "judge.empathy", HEURISTIC, human_passed=True)])
    assert judged.overrides() == []
    assert len(judged.add_overrides([good, good])) == 2
