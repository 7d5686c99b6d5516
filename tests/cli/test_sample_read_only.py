"""`--sample` / `--db sample`: the shipped sample runs, read by every read command, changed by none.

Opening the tracked sample_runs/sample.db as an ordinary SQLite database switched it to WAL and
migrated it (a rewritten tracked file). Here every read command runs on it and the file's hash is the
same after each; the writing commands are refused in one line that says what to do instead.
"""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing

import pytest

from sage_desk.cli import main
from sage_desk.core.store import Store
from sage_desk.core.store.sample import sample_path, sample_url, schema_of

RUN = "r-sample-northline"


def _digest() -> tuple[str, float]:
    path = sample_path()
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime


@pytest.fixture(scope="module")
def before():
    if not sample_path().is_file():
        pytest.skip("no sample runs built: ./dev builds them (./dev sample-runs)")
    return _digest()


def _conversation_id() -> str:
    with Store(sample_url()) as store:
        return store.conversations(RUN, case_id="nl-001", agent="baseline:oracle", repeat=1)[0].id


READS = [
    ["runs", "--sample"],
    ["runs", "--db", "sample", "--format", "json"],
    ["report", "--sample", "--run", RUN],
    ["report", "--sample", "--run", RUN, "--format", "json"],
    ["conversations", "--sample", "--run", RUN, "--failed"],
    ["show", "--sample", "--case", "nl-001", "--run", "r-sample-northline-rerun", "--repeat", "1"],
    ["export-results", "--sample", "--run", RUN, "--format", "csv"],
    ["calibration", "--sample", "--run", RUN],
    ["agreement", "--sample", "--run", RUN],
    ["compare", "--sample", "r-sample-northline-rerun", RUN],
    ["queue", "list", "--db", "sample"],
]


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a[:2]))
def test_a_read_command_on_the_sample_leaves_it_as_shipped(argv, before, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 1) and "Traceback" not in err, err  # compare exits 1 on a regression: still a read
    assert out.strip(), f"{argv} printed nothing ({err})"
    assert _digest() == before, f"{' '.join(argv)} changed sample_runs/sample.db"


@pytest.mark.parametrize(
    "argv",
    [
        ["label", "--sample", "--run", RUN, "--from", "LABELS"],
        ["rejudge", "--sample", "--run", RUN, "--judge", "baseline:heuristic"],
        [
            "adjudicate",
            "--db",
            "sample",
            "--conversation",
            "CONVERSATION",
            "--criterion",
            "judge.empathy",
            "--value",
            "1",
            "--reason",
            "r",
            "--author",
            "dana",
        ],
    ],
)
def test_a_writing_command_is_refused_in_one_line(argv, before, capsys, tmp_path):
    labels = tmp_path / "labels.csv"
    conversation = _conversation_id()
    labels.write_text(f"conversation,criterion,value,reason,author\n{conversation},judge.empathy,1,kind,dana\n")
    argv = [str(labels) if a == "LABELS" else conversation if a == "CONVERSATION" else a for a in argv]
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "read-only (--sample)" in err and "--db my-runs.db" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert _digest() == before


def test_a_sample_at_the_current_schema_is_read_in_place(tmp_path, monkeypatch):
    import sage_desk.core.store.sample as sample

    shipped = tmp_path / "sample_runs"
    shipped.mkdir()
    Store(f"sqlite:///{shipped / 'sample.db'}").close()  # a new database, at the newest schema
    with closing(sqlite3.connect(shipped / "sample.db")) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")  # as shipped: one file, no WAL
    monkeypatch.setattr(sample, "sample_runs_dir", lambda: shipped)
    digest = hashlib.sha256((shipped / "sample.db").read_bytes()).hexdigest()
    assert sample.sample_url().startswith(f"sqlite:///file:{shipped / 'sample.db'}?mode=ro")
    with Store(sample.sample_url()) as store:
        assert store.list_runs() == []
        assert "read-only SQLite file" in str(store)
    assert hashlib.sha256((shipped / "sample.db").read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in shipped.iterdir()) == ["sample.db"]  # no -wal, no -shm left beside it


def test_an_older_sample_is_read_from_one_upgraded_copy(tmp_path, monkeypatch):
    """A sample written at an older schema is never migrated in place: one copy in the data folder is."""
    from alembic import command

    import sage_desk.core.store.sample as sample
    from sage_desk.core.store.engine import make_engine
    from sage_desk.core.store.migrate import alembic_config, head_revision, packaged_revisions

    shipped = tmp_path / "sample_runs"
    shipped.mkdir()
    older = packaged_revisions()[head_revision()]
    engine = make_engine(f"sqlite:///{shipped / 'sample.db'}")
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), older)  # as a previous SAGE Desk left it
    engine.dispose()
    with closing(sqlite3.connect(shipped / "sample.db")) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")
    monkeypatch.setattr(sample, "sample_runs_dir", lambda: shipped)
    digest = hashlib.sha256((shipped / "sample.db").read_bytes()).hexdigest()
    url = sample.sample_url()
    assert "sample-runs" in url and url == sample.sample_url()  # made once, then reused
    with Store(url) as store:
        assert store.list_runs() == []
        assert "read-only SQLite file" in str(store)
    assert schema_of(shipped / "sample.db") == older
    assert hashlib.sha256((shipped / "sample.db").read_bytes()).hexdigest() == digest


def test_no_runs_yet_suggests_the_sample(tmp_path, capsys):
    assert main(["report", "--db", str(tmp_path / "empty.db")]) == 1
    assert "--sample" in capsys.readouterr().err


def test_the_app_opens_db_sample_read_only_too(before, tmp_path, monkeypatch):
    """`sage-desk --db sample` (the app): the same read-only sample, not a new file called `sample`."""
    from sage_desk.gui.common.workspace import open_store

    monkeypatch.chdir(tmp_path)
    with open_store("sample") as store:
        assert "read-only SQLite file" in str(store) and store.get_run(RUN).domain == "northline"
    assert not (tmp_path / "sample").exists()
    assert _digest() == before
