"""Build sample_runs/sample.db from nothing: offline runs on every shipped domain, then the sample labels.

Run through scripts/make_sample_runs.sh. No LLM and no network: the scripted customer, the
baseline agents (the oracle, the escalator and three settings of the imperfect agent) and the
heuristic judge. Everything is seeded and the ids are derived from what a row is (run
`r-sample-<domain>`, conversation `c-` + a hash of run, case, agent and repeat), so a rebuild
gives the same rows, byte for byte, except the timestamps; `dump` gives that content for the
test that checks the shipped database (tests/test_sample_runs.py).

The hand-written labels in sample_runs/labels.csv go in round by round through the same path as
`sage-desk label`: round 1 the first reviewer, round 2 the second reviewer on an overlapping
set, round 3 the adjudicated value where they disagreed, imported as adjudications (docs/calibration.md,
"Which label counts").
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import hashlib
import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DB = ROOT / "sample_runs" / "sample.db"
LABELS = ROOT / "sample_runs" / "labels.csv"
ADJUDICATION_ROUND = "3"  # the lead's final word where the first two reviewers disagreed
LABELLED_DOMAIN = "northline"

AGENTS = [
    "baseline:oracle",
    "baseline:escalator",
    "baseline:imperfect?classify=0.95&act=0.85&believe=0.1&escalate=0.15",
    "baseline:imperfect",
    "baseline:imperfect?classify=0.85&act=0.6&believe=0.4&escalate=0.05",
]
"""The agents of every sample run: two reference points and three settings of the imperfect agent
(careful and a little over-cautious; the defaults; hasty and credulous)."""
JUDGES = ["baseline:heuristic"]
REPEATS = 3
SEED = 0
RERUN = ("r-sample-northline-rerun", ["baseline:imperfect"], 1)
"""(run id, agents, seed) of a second Northline run, made just before the main one, so that `compare`
and the Compare Runs screen open on two runs of the same agent: how far a mere rerun moves each figure."""


def domains() -> list[str]:
    """Every playable shipped domain, Northline last: the app opens Review and the Leaderboard on the newest run.

    A domain with no case suite (tau_airline, tau_retail: made for auditing imported conversations) has
    nothing to play, so it has no sample run.
    """
    names = sorted(p.parent.name for p in (ROOT / "sops").glob("*/domain.yaml") if (p.parent / "cases.jsonl").exists())
    return [n for n in names if n != LABELLED_DOMAIN] + [n for n in names if n == LABELLED_DOMAIN]


def run_id(domain: str) -> str:
    return f"r-sample-{domain}"


def conversation_id(run: str, case_id: str, agent: str, repeat: int) -> str:
    """A stable id, so the labels of a rebuilt database still find their conversations."""
    return "c-" + hashlib.sha1(f"{run}|{case_id}|{agent}|{repeat}".encode()).hexdigest()[:10]


def spec_for(domain: str, agents: list[str] | None = None, seed: int = SEED, cases: list[str] | None = None) -> Any:
    """The RunSpec of a sample run (concurrency 1: conversations are played and written in one order)."""
    from sage_desk.core.engine.runner import RunSpec

    return RunSpec(domain=domain, agents=agents or AGENTS, judges=JUDGES, repeats=REPEATS, seed=seed, concurrency=1, cases=cases)


def stamp_for(spec: Any) -> dict[str, Any]:
    """What the run plays, as content hashes (the stamp `sage-desk compare` reads)."""
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.engine.runner import load_cases
    from sage_desk.core.engine.stamps import run_stamp
    from sage_desk.core.session import judge_prompt_hash

    bundle = load_domain(spec.domain)
    return run_stamp(spec, bundle, load_cases(bundle, spec), judge_prompt=judge_prompt_hash())


def build_run(
    store: Any,
    domain: str,
    cases: list[str] | None = None,
    rid: str | None = None,
    agents: list[str] | None = None,
    seed: int = SEED,
) -> str:
    """Create and play one domain's sample run (only some of its cases, for the test); returns its id."""
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.engine.runner import conversation_seed, load_cases
    from sage_desk.core.session import build_runner

    spec = spec_for(domain, agents, seed, cases)
    bundle = load_domain(domain)
    rid = rid or run_id(domain)
    rows = [
        {
            "id": conversation_id(rid, case.id, agent, repeat),
            "case_id": case.id,
            "agent": agent,
            "repeat": repeat,
            "bucket": case.bucket.value,
            "conflict": case.conflict.value,
            "tactics": case.tactics,
            "seed": conversation_seed(spec.seed, case.id, agent, repeat),
        }
        for agent in spec.agents
        for repeat in range(1, spec.repeats + 1)
        for case in load_cases(bundle, spec)
    ]
    spec.stamp = stamp_for(spec)
    store.create_run(bundle.name, spec.to_config(), rows, run_id=rid)
    runner = build_runner(store, spec)
    progress = asyncio.run(runner.execute(rid))
    if progress.errored or progress.unfinished or progress.unjudged:
        raise SystemExit(f"{domain}: {progress.errored} errored, {progress.unfinished} unfinished, {progress.unjudged} unjudged")
    return rid


def read_labels(path: Path = LABELS) -> list[dict[str, str]]:
    """The sample labels, each checked against the id its run, case, agent and repeat give."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for line, row in enumerate(rows, start=2):
        want = conversation_id(run_id(row["domain"]), row["case"], row["agent"], int(row["repeat"]))
        if row["conversation"] != want:
            raise SystemExit(
                f"{path}:{line}: conversation {row['conversation']} should be {want} "
                f"({row['case']}, {row['agent']}, repeat {row['repeat']})"
            )
    return rows


def import_labels(store: Any, rows: list[dict[str, str]]) -> int:
    """Append the labels round by round through the `sage-desk label` import; returns how many overrides."""
    from sage_desk.core.calibration.label_import import import_labels as import_csv

    count = 0
    columns = ["conversation", "criterion", "value", "reason", "author", "kind"]
    with tempfile.TemporaryDirectory() as tmp:
        for domain in sorted({r["domain"] for r in rows}):
            for round_ in sorted({r["round"] for r in rows if r["domain"] == domain}):
                part = Path(tmp) / f"{domain}-{round_}.csv"
                with part.open("w", encoding="utf-8", newline="") as handle:
                    writer = csv.DictWriter(handle, columns, extrasaction="ignore")
                    writer.writeheader()
                    writer.writerows(
                        {**r, "kind": "adjudication" if r["round"] == ADJUDICATION_ROUND else "label"}
                        for r in rows
                        if r["domain"] == domain and r["round"] == round_
                    )
                count += import_csv(part, store, run_id(domain))
    return count


def number_verdicts(db: Path) -> None:
    """Verdict row ids in one order on every build: by conversation, source and the order they came in.

    The run's writer commits every 50 ms and groups a batch's verdicts by source, so which verdict
    gets which id depends on where the batches fell. Nothing refers to them yet (labels come later).
    """
    con = sqlite3.connect(db)
    with con:
        con.execute(
            "create temp table renumber as select id as old, row_number() over "
            "(order by conversation_id, source, id) as new from verdicts"
        )
        con.execute("create index temp.renumber_old on renumber (old)")
        con.execute("update verdicts set id = -id")
        con.execute("update verdicts set id = (select new from renumber where old = -verdicts.id)")
    con.close()


def compact(db: Path) -> None:
    """One self-contained file in the repository: no WAL beside it, no free pages."""
    con = sqlite3.connect(db)
    con.execute("pragma wal_checkpoint(TRUNCATE)")
    con.execute("pragma journal_mode=DELETE")
    con.execute("vacuum")
    con.close()


def build(db: Path = DB, only: list[str] | None = None, labels: Path | None = LABELS) -> None:
    """The whole sample database (or only some domains' runs, for the test) at `db`, from nothing."""
    from sage_desk.core.store import Store

    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    store = Store(f"sqlite:///{db}")
    built = []
    for domain in domains():
        if only is None or domain in only:
            if domain == LABELLED_DOMAIN:
                rerun, agents, seed = RERUN
                built.append(build_run(store, domain, rid=rerun, agents=agents, seed=seed))
            built.append(build_run(store, domain))
    store.close()
    number_verdicts(db)
    store = Store(f"sqlite:///{db}")
    if labels is not None:
        rows = [r for r in read_labels(labels) if run_id(r["domain"]) in built]
        if rows:
            print(f"{import_labels(store, rows)} labels imported", file=sys.stderr)
    store.close()
    compact(db)


TIMES = {
    "runs": ("created_at",),
    "conversations": ("started_at", "finished_at"),
    "verdicts": ("created_at",),
    "overrides": ("created_at",),
}
"""The timestamp columns, the only content that differs between two builds."""
EVENT_TIMES = ("t", "latency_ms")
NATURAL = {
    "runs": ("id",),
    "conversations": ("id",),
    "events": ("conversation_id", "seq"),
    "verdicts": ("conversation_id", "source", "criterion", "node", "rationale"),
    "overrides": ("id",),
}
"""What identifies a row apart from its autoincrement id (a partial rebuild numbers rows differently)."""
_OF_RUNS = "conversation_id in (select id from conversations where run_id in ({}))"
_RUN_FILTER = {
    "runs": "id in ({})",
    "conversations": "run_id in ({})",
    "events": _OF_RUNS,
    "verdicts": _OF_RUNS,
    "overrides": _OF_RUNS,
}


def dump(db: Path, runs: list[str] | None = None, with_ids: bool = True) -> dict[str, list[tuple]]:
    """Every row of the run tables without timestamps (nor the events' `t` and latency), only of
    `runs` if given; `with_ids=False` leaves the autoincrement ids out and orders rows by what they are."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out: dict[str, list[tuple]] = {}
    for table in ("runs", "conversations", "events", "verdicts", "overrides"):
        names = [r[1] for r in con.execute(f"pragma table_info({table})")]
        ids = {"overrides": {"verdict_id"}, "events": {"id"}, "verdicts": {"id"}}.get(table, set())
        dropped = set(TIMES.get(table, ())) | (set() if with_ids else ids)
        kept = [n for n in names if n not in dropped]
        order = "id" if with_ids else ", ".join(k for k in NATURAL[table] if k in kept) or "1"
        sql = f"select {', '.join(kept)} from {table}"
        params: list[str] = list(runs or [])
        if runs is not None:
            sql += " where " + _RUN_FILTER[table].format(", ".join("?" * len(runs)))
        rows = []
        for row in con.execute(f"{sql} order by {order}", params):
            if table == "events":
                data = json.loads(row[kept.index("data")])
                for key in EVENT_TIMES:
                    data.pop(key, None)
                row = tuple(json.dumps(data, sort_keys=True) if n == "data" else v for n, v in zip(kept, row, strict=True))
            rows.append(tuple(row))
        out[table] = rows
    con.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=DB, help=f"where to build (default {DB.relative_to(ROOT)})")
    parser.add_argument("--domain", action="append", help="only this domain's run (repeatable); default: every domain")
    parser.add_argument("--no-labels", action="store_true", help="leave the sample labels out")
    args = parser.parse_args(argv)
    build(args.db, args.domain, None if args.no_labels else LABELS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
