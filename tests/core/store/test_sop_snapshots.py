"""Each run keeps the SOP graph it was played with (issue 35): the text as played, once per distinct graph."""

from __future__ import annotations

from sage_desk.core.domain.loader import load_domain
from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.sop.io import dumps_graph, loads_graph


def test_a_run_keeps_the_graph_it_plays_and_runs_of_one_graph_share_it(any_store):
    runner = Runner(any_store)
    first = runner.create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=["nl-001"], repeats=1))
    second = runner.create(RunSpec(domain="northline", agents=["baseline:escalator"], cases=["nl-001"], repeats=1))
    kept = any_store.sop_snapshot(first)
    assert kept is not None and any_store.sop_snapshot(second) == kept  # one row, two runs
    graph = load_domain("northline").graph
    assert kept[1] == dumps_graph(graph) and loads_graph(kept[1]) == graph


def test_a_run_made_without_a_graph_has_none(any_store):
    run_id = any_store.create_run("shop", {"agents": ["x"]}, [{"case_id": "c1", "agent": "x"}])
    assert any_store.sop_snapshot(run_id) is None
    assert any_store.sop_snapshot("r-no-such-run") is None
