"""The shipped sample_runs/sample.db is what scripts/make_sample_runs.sh builds from today's files.

A full rebuild takes most of a minute, so each domain's run is checked on a slice of its cases:
they are played again into a scratch database with the same seeds and ids, and every row they
wrote (events, verdicts, endings) must equal the shipped ones but for timestamps. A change to a
suite, a graph, an agent, the rules or the heuristic judge without a rebuild fails here, with the
fix: run ./dev sample-runs (./dev setup and ./dev test do it). The labels must be those of sample_runs/labels.csv, and the
screens must have something to show on first start.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sqlite3

import pytest

from sage_desk.core.locations import app_root, sample_runs_dir

SLICE = 7  # every 7th case of each suite, with every agent and repeat
REBUILD = "the sample database is out of date: rebuild it with ./dev sample-runs"


def _builder():
    spec = importlib.util.spec_from_file_location("make_sample_runs", app_root() / "scripts" / "make_sample_runs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _builder()
SHIPPED = sample_runs_dir() / "sample.db"


def _shipped_runs() -> dict[str, dict]:
    con = sqlite3.connect(f"file:{SHIPPED}?mode=ro", uri=True)
    runs = {rid: json.loads(config) for rid, config in con.execute("select id, config from runs")}
    con.close()
    return runs


def test_every_domain_has_its_sample_run():
    runs = _shipped_runs()
    rerun, agents, seed = build.RERUN
    assert sorted(runs) == sorted([*(build.run_id(d) for d in build.domains()), rerun]), REBUILD
    for rid, config in runs.items():
        want = (agents, seed) if rid == rerun else (build.AGENTS, build.SEED)
        assert (config["agents"], config["seed"]) == want and config["repeats"] == build.REPEATS, REBUILD
    assert len(build.AGENTS) >= 5


PLAYED = [(d, build.run_id(d), None, build.SEED) for d in build.domains()]
PLAYED.append((build.LABELLED_DOMAIN, build.RERUN[0], build.RERUN[1], build.RERUN[2]))


@pytest.mark.parametrize(("domain", "rid", "agents", "seed"), PLAYED, ids=[p[1] for p in PLAYED])
def test_the_shipped_run_is_what_the_script_builds(tmp_path, domain, rid, agents, seed):
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.engine.runner import load_cases
    from sage_desk.core.store import Store

    suite = load_cases(load_domain(domain), build.spec_for(domain))
    some = [c.id for c in suite[::SLICE]]
    db = tmp_path / "slice.db"
    store = Store(f"sqlite:///{db}")
    build.build_run(store, domain, cases=some, rid=rid, agents=agents, seed=seed)
    store.close()
    fresh = build.dump(db, [rid], with_ids=False)
    shipped = build.dump(SHIPPED, [rid], with_ids=False)
    ids = {row[0] for row in fresh["conversations"]}
    assert len(ids) == len(some) * len(agents or build.AGENTS) * build.REPEATS
    for table in ("conversations", "events", "verdicts"):
        mine = [row for row in shipped[table] if row[0] in ids]
        assert fresh[table] == mine, f"{domain}: {table} differ; {REBUILD}"
    shipped_config = json.loads(shipped["runs"][0][3])
    fresh_config = json.loads(fresh["runs"][0][3])
    assert {**fresh_config, "cases": None, "stamp": None} == {**shipped_config, "stamp": None}, REBUILD
    # the whole suite, graph, policy, world and prompts as they are today
    assert shipped_config["stamp"] == build.stamp_for(build.spec_for(domain, agents, seed)), REBUILD


def test_the_labels_are_those_of_the_csv():
    rows = build.read_labels()  # each row's conversation is the id its run, case, agent and repeat give
    con = sqlite3.connect(f"file:{SHIPPED}?mode=ro", uri=True)
    stored = con.execute("select conversation_id, criterion, human_passed, reason, author from overrides order by id").fetchall()
    con.close()
    in_order = sorted(rows, key=lambda r: (r["domain"], int(r["round"])))  # the order the build imports them
    assert [(r["conversation"], r["criterion"], r["value"] == "pass", r["reason"], r["author"]) for r in in_order] == [
        (c, k, bool(p), why, who) for c, k, p, why, who in stored
    ], REBUILD
    authors = {r["author"] for r in rows}
    assert len(authors & {"ana.sample", "ben.sample"}) == 2
    first = {(r["conversation"], r["criterion"]): r["value"] for r in rows if r["round"] == "1"}
    second = {(r["conversation"], r["criterion"]): r["value"] for r in rows if r["round"] == "2"}
    assert len(second) >= 20 and set(second) <= set(first)
    assert any(first[k] != v for k, v in second.items())  # the reviewers disagree somewhere
    assert any(r["round"] == "3" for r in rows)  # and some disagreements are adjudicated


def test_first_start_has_figures_to_show(tmp_path):
    """Calibration with 60+ labelled conversations, a Leaderboard of 5+ agents, a real Execution Gap."""
    from sage_desk.core.calibration.labels import calibration_report
    from sage_desk.core.metrics.aggregate import model_metrics
    from sage_desk.core.metrics.compare import compare_runs
    from sage_desk.core.metrics.load import results_for_runs
    from sage_desk.core.store import Store

    copy = tmp_path / "sample.db"
    shutil.copyfile(SHIPPED, copy)  # opening may migrate and sets WAL: never open the shipped file itself
    store = Store(f"sqlite:///{copy}")
    northline = build.run_id(build.LABELLED_DOMAIN)
    assert store.latest_run_id() == northline  # Review and the Leaderboard open on Northline
    report = calibration_report(store, northline)
    assert len({i.conversation_id for i in report.items}) >= 60
    assert all(row.agreement.n >= 60 for row in report.rows())
    for run in store.list_runs():
        if run.id == build.RERUN[0]:
            continue
        models = {m["agent"]: m for m in model_metrics(results_for_runs(store, [run.id]))}
        assert len(models) >= 5
        for agent in build.AGENTS:
            if agent.startswith("baseline:imperfect"):  # understands more often than it acts right: SAGE's gap
                assert 0.02 < models[agent]["execution_gap"] < 0.6, f"{run.domain} {agent}: {models[agent]['execution_gap']}"
        assert models["baseline:oracle"]["execution_gap"] == 0
    compared = compare_runs(store, *[r.id for r in store.list_runs()][1::-1])  # what `compare` shows by default
    assert compared["a"]["run"] == build.RERUN[0] and compared["a"]["stamp"] and compared["b"]["stamp"]
    assert compared["pairs"][0]["cases"] == 162 and compared["pairs"][0]["flips"]  # a rerun flips cases
    store.close()
