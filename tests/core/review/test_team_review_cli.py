"""The team-review commands: reviewer, label's author, adjudicate, queue."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from team_data import CRITERION, kappa_labels

from sage_desk.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder of its own, so the reviewer profile starts empty."""
    folder = tmp_path / "home"
    monkeypatch.setenv("SAGE_DESK_HOME", str(folder))
    return folder


def _csv(path: Path, rows: list[str]) -> Path:
    path.write_text("conversation,criterion,value,reason,author,tags,corrected_reply\n" + "\n".join(rows) + "\n")
    return path


def test_the_reviewer_profile_is_set_once_and_read_back(home, capsys):
    assert main(["reviewer", "show"]) == 1
    assert "reviewer set NAME" in capsys.readouterr().err
    assert main(["reviewer", "set", "Dana"]) == 0
    assert main(["reviewer", "show"]) == 0 and capsys.readouterr().out.strip().endswith("Dana")
    assert "[review]" in (home / "settings.ini").read_text() and 'author="Dana"' in (home / "settings.ini").read_text()
    assert main(["reviewer", "clear"]) == 0 and main(["reviewer", "show"]) == 1


def test_labels_need_an_author_never_the_login_name(team, home, tmp_path, capsys):
    store, ids = team
    labels = _csv(tmp_path / "labels.csv", [f"{ids[0]},{CRITERION},fail,,,,"])
    assert main(["label", "--from", str(labels), "--db", str(store.url)]) == 1
    assert "no author" in capsys.readouterr().out and store.overrides() == []
    assert main(["reviewer", "set", "dana"]) == 0
    assert main(["label", "--from", str(labels), "--db", str(store.url)]) == 0
    assert [o.author for o in store.overrides()] == ["dana"]
    assert main(["label", "--from", str(labels), "--author", "eve", "--db", str(store.url)]) == 0
    assert [o.author for o in store.overrides()] == ["dana", "eve"]


def test_tags_come_from_the_domains_failure_modes(team, home, tmp_path, capsys):
    store, ids = team
    bad = _csv(tmp_path / "bad.csv", [f"{ids[0]},{CRITERION},fail,,ana,made_up,"])
    assert main(["label", "--from", str(bad), "--db", str(store.url)]) == 1
    assert "unknown failure mode(s) made_up" in capsys.readouterr().out


def test_tags_and_a_corrected_reply_are_imported(team, home, tmp_path, monkeypatch):
    from sage_desk.core.calibration import label_import

    store, ids = team
    monkeypatch.setattr(label_import, "run_failure_modes", lambda _s, _r: ["cold_tone", "no_apology"])
    good = _csv(tmp_path / "good.csv", [f'{ids[0]},{CRITERION},fail,,ana,cold_tone;no_apology,"Sorry, I will fix it."'])
    assert main(["label", "--from", str(good), "--db", str(store.url)]) == 0
    (o,) = store.overrides()
    assert (o.tags, o.corrected_reply) == (["cold_tone", "no_apology"], "Sorry, I will fix it.")


def test_adjudicate_lists_then_settles_a_disagreement(team, home, capsys):
    store, ids = team
    store.add_overrides(kappa_labels(ids))
    assert main(["adjudicate", "--db", str(store.url)]) == 0
    assert "5 open disagreement(s)" in capsys.readouterr().out
    args = ["adjudicate", "--db", str(store.url), "--conversation", ids[15], "--criterion", CRITERION, "--value", "pass"]
    assert main(args) == 2  # no reason
    assert main([*args, "--reason", "apologises twice"]) == 1  # no author
    assert "reviewer set NAME" in capsys.readouterr().err
    assert main([*args, "--reason", "apologises twice", "--author", "lead"]) == 0
    assert "adjudicated judge.empathy" in capsys.readouterr().out
    assert main(["adjudicate", "--db", str(store.url), "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["unresolved"]) == 4
    assert main(["calibration", "--format", "json", "--db", str(store.url)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["labels"], data["disputed"]) == (36, 4)
    assert main(["calibration", "--db", str(store.url)]) == 0
    assert "4 labelled criterion(s) left out" in capsys.readouterr().out


def test_queue_create_status_and_export(team, home, tmp_path, capsys):
    store, ids = team
    db = ["--db", str(store.url)]
    assert (
        main(
            [
                "queue",
                "create",
                "week-1",
                "--run",
                "r-team",
                "--sample",
                "12",
                "--seed",
                "3",
                "--order",
                "uncertain",
                "--reviewer",
                "alice",
                "--reviewer",
                "bob",
                "--reviews",
                "2",
                "--blind",
                "--criterion",
                CRITERION,
                *db,
            ]
        )
        == 0
    )
    assert "12 conversation(s)" in capsys.readouterr().out
    store.add_overrides(kappa_labels(ids))
    assert main(["queue", "list", *db]) == 0 and "week-1" in capsys.readouterr().out
    assert main(["queue", "status", "week-1", *db]) == 0
    out = capsys.readouterr().out
    assert "12 of 12 done" in out and "alice: 12 labelled" in out
    assert main(["queue", "status", "week-1", "--format", "json", *db]) == 0
    assert json.loads(capsys.readouterr().out)["done"] == 12
    from sage_desk.core.store.queues import mark, queue_conversations

    flagged = queue_conversations(store, "week-1")[0]
    mark(store, "week-1", flagged, "bob", "flag", "Customer Name Wrong In Case")
    assert main(["queue", "status", "week-1", *db]) == 0
    assert f"flagged: {flagged} by bob ('Customer Name Wrong In Case')" in capsys.readouterr().out
    assert main(["queue", "status", "week-1", "--format", "json", *db]) == 0
    assert json.loads(capsys.readouterr().out)["flag_notes"] == {flagged: {"bob": "Customer Name Wrong In Case"}}
    assert main(["agreement", "--queue", "week-1", "--format", "json", *db]) == 0
    (row,) = json.loads(capsys.readouterr().out)["criteria"]
    assert row["n"] == 12
    out_file = tmp_path / "week-1.csv"
    assert main(["queue", "export", "week-1", "--out", str(out_file), *db]) == 0
    rows = list(csv.DictReader(out_file.open()))
    assert len(rows) == 24 and {r["author"] for r in rows} == {"alice", "bob"}
    assert main(["queue", "create", "week-1", *db]) == 1
    assert "already exists" in capsys.readouterr().err


def test_a_domain_declares_its_failure_modes(tmp_path):
    import shutil

    from sage_desk.core.calibration.label_import import run_failure_modes
    from sage_desk.core.locations import sops_dir
    from sage_desk.core.store import Store

    folder = tmp_path / "shop"
    shutil.copytree(sops_dir() / "northline", folder)
    with (folder / "domain.yaml").open("a", encoding="utf-8") as handle:
        handle.write("\nfailure_modes: [cold_tone, wrong_refund_amount]\n")
    with Store(f"sqlite:///{tmp_path / 'fm.db'}") as store:
        run_id = store.create_run(str(folder), {}, [{"case_id": "c", "agent": "a"}])
        assert run_failure_modes(store, run_id) == ["cold_tone", "wrong_refund_amount"]
        plain = store.create_run("northline", {}, [{"case_id": "c", "agent": "a"}])
        assert run_failure_modes(store, plain) == []
