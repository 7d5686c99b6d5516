"""One run is played by one process at a time (issue 34): a second `run --resume` of a run another
live process is playing is refused, naming that process; a dead owner's run is taken over."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections import Counter

from fakes import FakeOpenAIServer
from helpers import run_args

from sage_desk.core.judge.rubric import CRITERIA
from sage_desk.core.store import Store

CASES = "nl-001,nl-002,nl-003,nl-004,nl-005,nl-006"
JUDGE = "openai/judge-model"
CONVERSATIONS = 12  # 6 cases x 2 agents


def _judge(_request):
    return json.dumps({"scores": {c.name: {"score": 7, "rationale": "fine"} for c in CRITERIA}})


def _args(db, judge_url, *extra):
    return run_args(
        db, "baseline:oracle", "baseline:complier", judge=JUDGE, cases=CASES, extra=["--judge-api-base", judge_url, *extra]
    )


def _sage_desk(tmp_path, *args) -> subprocess.Popen:
    env = {**os.environ, "SAGE_DESK_HOME": str(tmp_path / "home")}
    return subprocess.Popen(
        [sys.executable, "-m", "sage_desk", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_a_second_resume_of_a_live_run_is_refused_and_nothing_is_played_twice(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_judge, latency=0.5) as judge:
        first = _sage_desk(tmp_path, *_args(db, judge.base_url, "--concurrency", "1"))
        try:
            assert judge.wait_for_requests(2, timeout=60), first.stderr.read() if first.poll() is not None else ""
            with Store(db) as store:
                (run,) = store.list_runs()
                (owner,) = store.run_owners(run.id)
            assert owner.pid == first.pid and owner.host == socket.gethostname()
            second = _sage_desk(tmp_path, *_args(db, judge.base_url, "--resume", run.id))
            _, err = second.communicate(timeout=60)
            assert second.returncode != 0
            assert f"run {run.id} is being played by process {first.pid} on host {socket.gethostname()} since" in err
            assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("sage-desk: run "), err
            assert first.poll() is None, "the refused resume must leave the live run alone"
            _, first_err = first.communicate(timeout=120)
            assert first.returncode == 0, first_err
        finally:
            if first.poll() is None:
                first.kill()
        assert len(judge.requests) == CONVERSATIONS  # each conversation judged once: none played twice
    with Store(db) as store:
        rows = store.conversations(run.id)
        assert [r.status.value for r in rows] == ["finished"] * CONVERSATIONS
        assert all(store.events(r.id) for r in rows), "a finished conversation has no transcript"
        assert store.run_owners(run.id, alive_only=False) == []  # the owner row went when the run ended


def test_a_run_whose_owner_was_killed_is_taken_over_at_once(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_judge, latency=0.5) as judge:
        first = _sage_desk(tmp_path, *_args(db, judge.base_url, "--concurrency", "1"))
        try:
            assert judge.wait_for_requests(2, timeout=60)
        finally:
            first.kill()
            first.wait(timeout=10)
        with Store(db) as store:
            (run,) = store.list_runs()
            assert [o.pid for o in store.run_owners(run.id, alive_only=False)] == [first.pid]  # it left its row
            assert store.run_owners(run.id) == []  # but its process is gone: nobody is playing
        second = _sage_desk(tmp_path, *_args(db, judge.base_url, "--resume", run.id))
        _, err = second.communicate(timeout=120)
        assert second.returncode == 0, err
        asked = len(judge.requests)
    with Store(db) as store:
        rows = store.conversations(run.id)
        assert [r.status.value for r in rows] == ["finished"] * CONVERSATIONS
        assert all(store.events(r.id) for r in rows)
        assert store.run_owners(run.id, alive_only=False) == []
        verdicts = Counter((v.conversation_id, v.source, v.criterion) for v in store.verdicts(run_id=run.id))
        assert max(verdicts.values()) == 1
    # Each conversation judged once, but for what the kill cut off (--concurrency 1): the one in flight, and
    # one judged whose finish was in the batch not yet written (a kill loses at most the last batch).
    assert CONVERSATIONS <= asked <= CONVERSATIONS + 2, asked


def test_resume_with_join_plays_a_live_run_alongside_and_nothing_twice(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(_judge, latency=0.3) as judge:
        first = _sage_desk(tmp_path, *_args(db, judge.base_url, "--concurrency", "1"))
        second = None
        try:
            assert judge.wait_for_requests(2, timeout=60), first.stderr.read() if first.poll() is not None else ""
            with Store(db) as store:
                (run,) = store.list_runs()
            second = _sage_desk(tmp_path, *_args(db, judge.base_url, "--resume", run.id, "--join"))
            results = [p.communicate(timeout=120) for p in (first, second)]
        finally:
            for p in (first, second):
                if p is not None and p.poll() is None:
                    p.kill()
        for p, (_, err) in zip((first, second), results, strict=True):
            assert p.returncode == 0, err
        assert "being played by" not in results[1][1]
        assert len(judge.requests) == CONVERSATIONS  # each judged once: none played by both
    with Store(db) as store:
        rows = store.conversations(run.id)
        assert [r.status.value for r in rows] == ["finished"] * CONVERSATIONS
        assert all(store.events(r.id) for r in rows)
        assert store.run_owners(run.id, alive_only=False) == []


def test_join_without_a_run_and_two_different_runs_are_usage_errors(tmp_path):
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    alone = _sage_desk(tmp_path, "run", "--db", db, "--join")
    _, err = alone.communicate(timeout=60)
    assert alone.returncode == 2 and "--join needs a run: --join RUN_ID, or --resume RUN_ID --join" in err
    both = _sage_desk(tmp_path, "run", "--db", db, "--resume", "r-1", "--join", "r-2")
    _, err = both.communicate(timeout=60)
    assert both.returncode == 2 and "--join and --resume name different runs" in err
