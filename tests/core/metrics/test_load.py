"""Reading a run's results from the store: one summary row per conversation, marks decoded once per text."""

from __future__ import annotations

import gc
from pathlib import Path

from sage_desk.core.events import TerminationReason
from sage_desk.core.metrics.aggregate import Mark, model_metrics
from sage_desk.core.metrics.load import paused_gc, results_for_runs
from sage_desk.core.rules.verdict import Verdict
from sage_desk.core.store import Store


def _store(tmp_path: Path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    convs = [
        {"id": f"c{i}", "case_id": f"case-{i % 2}", "agent": "openai/a", "repeat": i // 2, "bucket": "resolvable"}
        for i in range(5)
    ]
    store.create_run("northline", {"agents": ["openai/a"]}, convs, run_id="r")
    for i in range(4):  # c4 stays pending
        store.finish(f"c{i}", TerminationReason.ERROR if i == 3 else TerminationReason.CLOSED, events=[])
    for i in range(3):  # c0 and c2 end alike; c1 fails its outcome; c3 errored before any verdict
        store.save_verdicts(
            f"c{i}",
            "rules",
            [Verdict(criterion="outcome", passed=i != 1), Verdict(criterion="path.action_accuracy", passed=True)],
        )
    return store


def test_results_are_the_runs_finished_and_errored_conversations_in_list_order(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        results = results_for_runs(store, ["r"])
        assert [(r.id, r.errored) for r in results] == [("c0", False), ("c2", False), ("c1", False), ("c3", True)]
        assert dict(results[2].marks) == {"outcome": Mark(passed=False), "path.action_accuracy": Mark(passed=True)}
        assert results[0].marks is results[1].marks  # the same text: decoded once, shared (read-only)
        assert dict(results[3].marks) == {}
        row = model_metrics(results)[0]  # repeat 0: c0 resolved, c1 not; repeat 1: c2 (c3 errored, left out)
        assert row["resolution_rate"] == 0.75 and row["resolution_rate_range"] == [0.5, 1.0]


def test_reading_pauses_the_collector_and_gives_it_back(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        assert gc.isenabled()
        results_for_runs(store, ["r"])
        assert gc.isenabled()
        with paused_gc():
            results_for_runs(store, ["r"])  # nested: a caller's pause is left as it was
            assert not gc.isenabled()
        assert gc.isenabled()
